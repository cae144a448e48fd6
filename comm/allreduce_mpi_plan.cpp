// The cases of comm_allreduce_mpi: allreduce_mpi_plan.hpp.
#include "allreduce_mpi_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "rigcheck/harness/split.hpp"

namespace rigcheck::comm::mpi {

// The sizes of each profile when neither --sizes nor --algorithms is given. Quick: Open MPI's
// default up to 2 MiB, in and out of place; from 16 MiB the `nonoverlapping` algorithm (reduce
// then broadcast), out of place only: on small VMs the default's large-message algorithms, and
// every algorithm in place, allocate a message-sized buffer per call whose first touch dominates
// (docs/machines.md; 64 MiB in place took 1-2 s per call with every algorithm here). Full: the
// default from 8 B to 1 GiB (x2 steps) and every tuned algorithm at 8 B and 16 B to 256 MiB (x4),
// both places, so the report can name the best one.
std::vector<Plan> profile_plan(Profile p) {
  std::vector<Plan> plan;
  auto add = [&](int alg, const std::vector<int64_t>& sizes, bool out, bool in) {
    for (int64_t s : sizes) {
      if (out) plan.push_back({alg, s, false});
      if (in) plan.push_back({alg, s, true});
    }
  };
  if (p == Profile::tiny) {
    add(0, parse_size_list("8-1M*8,1M"), true, true);
  } else if (p == Profile::quick) {
    add(0, parse_size_list("8-2M*64"), true, true);
    add(2, parse_size_list("16M,64M"), true, false);
  } else {
    // About 5 minutes on 2 vCPUs (a sweep of every size x2 and every algorithm in place took 833 s):
    // the default from 8 B to 512 MiB in x4 steps both ways; algorithms 1-5 out of place (in place
    // they allocate a message-sized buffer per call, docs/methodology.md) at sizes from the
    // latency end to NET-1's comparison size, 64 MiB, and 256 MiB.
    add(0, parse_size_list("8-1G*4"), true, true);
    for (int alg = 1; alg <= 5; ++alg) add(alg, parse_size_list("8,1K,64K,1M,16M,64M,256M"), true, false);
  }
  return plan;
}

std::vector<int> parse_algorithms(const std::string& spec) {
  std::vector<int> out;
  for (const std::string& w : split_fields(spec, ',')) {
    if (w == "all") {
      for (int a = 0; a <= 5; ++a) out.push_back(a);
      continue;
    }
    int found = -1;
    for (int a = 0; a <= 6; ++a)
      if (w == ompi_allreduce_algorithm_name(a) || w == std::to_string(a)) found = a;
    if (found < 0)
      throw std::invalid_argument(fmt::format(
          "--algorithms: '{}' is not an Open MPI all-reduce algorithm (default|0, basic_linear|1, nonoverlapping|2, "
          "recursive_doubling|3, ring|4, segmented_ring|5, all)",
          w));
    out.push_back(found);
  }
  return out;
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--algorithms", o.algorithms,
                 "Open MPI tuned all-reduce algorithms to run at every size: default, basic_linear, nonoverlapping, "
                 "recursive_doubling, ring, segmented_ring (or 0-5), all (default: the profile's plan)");
  app.add_option("--modes", o.modes, "out (out-of-place), in (in-place), or out,in")->capture_default_str();
  app.add_option("--transport", o.transport,
                 "auto (the MPI's choice), shm (vader,self: one node), tcp (tcp,self over the ob1 PML)")
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls before timing")->capture_default_str();
  app.add_flag("--huge-pages", o.huge_pages,
               "buffers on transparent huge pages (MADV_HUGEPAGE) instead of plain pages");
  app.add_flag("--net1,!--no-net1", o.net1, "add the 100M-float32 case of claim NET-1 (quick and full)");
}

void validate(const Options& o) {
  if (o.transport != "auto" && o.transport != "shm" && o.transport != "tcp")
    throw std::invalid_argument("--transport must be auto, shm or tcp");
  if (o.modes != "out" && o.modes != "in" && o.modes != "out,in" && o.modes != "in,out")
    throw std::invalid_argument("--modes must be out, in or out,in");
}

// The cases: the profile's plan, or --sizes x --algorithms; NET-1's 100M floats; --filter.
std::vector<Plan> make_plan(const Session& s, const Options& o) {
  const CommonOptions& opt = s.options();
  std::vector<Plan> plan;
  if (opt.sizes.empty() && o.algorithms.empty()) {
    plan = profile_plan(opt.profile);
    if (o.modes != "out,in" && o.modes != "in,out")
      plan.erase(
          std::remove_if(plan.begin(), plan.end(), [&](const Plan& p) { return p.inplace != (o.modes == "in"); }),
          plan.end());
  } else {
    std::vector<int> algs = parse_algorithms(o.algorithms.empty() ? "default" : o.algorithms);
    std::vector<int64_t> sizes = opt.sizes.empty() ? parse_size_list("8-1M*8,1M") : opt.sizes;
    for (int a : algs)
      for (int64_t sz : sizes) {
        if (o.modes.find("out") != std::string::npos) plan.push_back({a, sz, false});
        if (o.modes.find("in") != std::string::npos) plan.push_back({a, sz, true});
      }
  }
  // NET-1's case, 100M float32 (400 MB), out of place: quick and full only; Open MPI's
  // nonoverlapping algorithm (the default allocates 400 MB per call), in full every algorithm.
  if (o.net1 && opt.profile != Profile::tiny) {
    if (opt.profile == Profile::full && o.algorithms.empty())
      for (int alg = 0; alg <= 5; ++alg) plan.push_back({alg, kNet1Bytes, false});
    else
      plan.push_back({2, kNet1Bytes, false});
  }
  for (Plan& p : plan)
    if (p.bytes % 4 != 0 || p.bytes <= 0)
      throw std::invalid_argument(fmt::format("size {} B is not a positive multiple of 4 (float32)", p.bytes));
  plan.erase(std::remove_if(plan.begin(), plan.end(), [&](const Plan& p) { return !s.selected(kBench, p.name()); }),
             plan.end());
  return plan;
}

// The binary's rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh),
// beside the plan their arguments select, and the benchmark names it writes.
namespace {
const bool entry_mpi = declare_entry(
    {"comm_allreduce_mpi", "comm", "@launcher", "", "", 60, 120, 3600,
     R"(MPI_Allreduce float32 sum, in- and out-of-place, nccl-tests columns, Open MPI's all-reduce algorithms;
100M floats (NET-1))"});
const bool entry_mpi_tcp = declare_entry(
    {"comm_allreduce_mpi_tcp", "comm", "@launcher --transport tcp --sizes 8,4K --modes out", "", "", 60, 120, 1800,
     "MPI_Allreduce over TCP: small-message latency and the bytes each rank sends for 100M floats (NET-1, NET-2)"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row =
    declare_doc({"",
                 R"(MPI_Allreduce of float32 sums over the ranks the launcher starts, in- and out-of-place up to 100M
floats, nccl-tests' columns (algbw, busbw), Open MPI's all-reduce algorithms; a second entry
(`comm_allreduce_mpi_tcp`) over TCP: small-message latency and the bytes each rank sends
(docs/multi-node.md))",
                 "NET-1, NET-2"});
const bool writes = declare_writes({names::kMpiAllreduce, names::kMpiRanks});
}  // namespace

}  // namespace rigcheck::comm::mpi
