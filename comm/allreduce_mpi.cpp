// comm_allreduce_mpi: MPI_Allreduce of float32 sums, nccl-tests style (size, count, type, redop,
// time, algbw, busbw, #wrong), in-place and out-of-place, over the ranks mpirun (or srun) starts.
// Own main(): the Google Benchmark harness times one process; this times every rank and keeps the
// slowest. It takes the common options of every rigcheck binary (--profile --out --stem --run-id
// --sizes --reps --min-time --filter --list) and writes the suite's result CSV from rank 0.
//
// Open MPI's all-reduce algorithm decides the speed on small machines (PITFALLS.md): the tuned
// component's algorithm is forced per case through the MPI tool interface (control variable
// coll_tuned_allreduce_algorithm, then a fresh communicator), and every row says which ran.
#include <mpi.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "comm_common.hpp"
#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"

using namespace rigcheck;
using namespace rigcheck::comm;

namespace {

constexpr double kMinCpuUtilization = 0.5;  // as the harness: below it a repetition is mistrusted
constexpr int64_t kNet1Bytes = 400000000;   // NET-1: 100M float32 parameters

struct Plan {
  int algorithm = 0;  // 0 = Open MPI's own decision rules
  int64_t bytes = 0;
  bool inplace = false;
  std::string name() const {
    return fmt::format("{}/{}B/{}", ompi_allreduce_algorithm_name(algorithm), bytes, inplace ? "in" : "out");
  }
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

bool file_exists(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0;
}

// The sizes of each profile when neither --sizes nor --algorithms is given. Quick: Open MPI's
// default up to 2 MiB, in and out of place; from 16 MiB the `nonoverlapping` algorithm (reduce
// then broadcast), out of place only: on small VMs the default's large-message algorithms, and
// every algorithm in place, allocate a message-sized buffer per call whose first touch dominates
// (PITFALLS.md; 64 MiB in place took 1-2 s per call with every algorithm here). Full: the
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
    add(0, parse_size_list("8-1G*2"), true, true);
    for (int alg = 1; alg <= 5; ++alg) add(alg, parse_size_list("8,16-256M*4"), true, true);
  }
  return plan;
}

// The MPI tool interface's handle on coll_tuned_allreduce_algorithm (Open MPI only).
struct AlgorithmControl {
  int index = -1;
  std::string why_not;
  void find() {
    int n = 0;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS) {
      why_not = "MPI_T_cvar_get_num failed";
      return;
    }
    for (int i = 0; i < n; ++i) {
      char name[256];
      int name_len = sizeof name, verbosity, binding, scope;
      char desc[2048];
      int desc_len = sizeof desc;
      MPI_Datatype dt;
      MPI_T_enum en;
      if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc, &desc_len, &binding, &scope) !=
          MPI_SUCCESS)
        continue;
      if (std::strcmp(name, "coll_tuned_allreduce_algorithm") == 0) index = i;
    }
    if (index < 0) why_not = "this MPI has no coll_tuned_allreduce_algorithm control variable (not Open MPI's tuned component)";
  }
  bool set(int alg, std::string& err) {
    MPI_T_cvar_handle h;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) {
      err = "MPI_T_cvar_handle_alloc failed";
      return false;
    }
    int rc = MPI_T_cvar_write(h, &alg);
    int back = -1;
    MPI_T_cvar_read(h, &back);
    MPI_T_cvar_handle_free(&h);
    if (rc != MPI_SUCCESS || back != alg) {
      err = fmt::format("writing coll_tuned_allreduce_algorithm={} failed (rc {}, reads back {})", alg, rc, back);
      return false;
    }
    return true;
  }
};

// A page-aligned buffer, touched before anything is timed (first touch is slow in VMs:
// PITFALLS.md). Plain pages by default, as an application's malloc gives (THP is usually in
// madvise mode); --huge-pages asks for transparent huge pages, which makes Open MPI's
// shared-memory copies of large messages faster on some machines (the rows say which).
struct Buffer {
  float* p = nullptr;
  size_t bytes = 0;
  Buffer(size_t b, bool huge) : bytes(std::max<size_t>(b, 4096)) {
    const size_t align = huge ? (2u << 20) : 4096;
    size_t rounded = (bytes + align - 1) / align * align;
    p = static_cast<float*>(std::aligned_alloc(align, rounded));
    if (!p) throw std::bad_alloc();
    if (huge) madvise(p, rounded, MADV_HUGEPAGE);
    std::memset(p, 0, rounded);
  }
  ~Buffer() { std::free(p); }
};

struct Options {
  CommonOptions common;
  std::string algorithms;  // "default,1,2" or "all"
  std::string modes = "out,in";
  std::string transport = "auto";
  int warmup = 2;
  bool net1 = true;
  bool huge_pages = false;
  bool min_time_given = false;
};

std::vector<int> parse_algorithms(const std::string& spec) {
  std::vector<int> out;
  size_t s = 0;
  while (s <= spec.size()) {
    size_t e = spec.find(',', s);
    if (e == std::string::npos) e = spec.size();
    std::string w = spec.substr(s, e - s);
    s = e + 1;
    if (w.empty()) continue;
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

int run(int argc, char** argv) {
  std::string prog = argv[0];
  if (auto slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
  CLI::App app{"comm_allreduce_mpi: MPI_Allreduce of float32 sums over the ranks the launcher starts (nccl-tests columns)"};
  Options o;
  add_common_options(app, o.common);
  app.add_option("--algorithms", o.algorithms,
                 "Open MPI tuned all-reduce algorithms to run at every size: default, basic_linear, nonoverlapping, "
                 "recursive_doubling, ring, segmented_ring (or 0-5), all (default: the profile's plan)");
  app.add_option("--modes", o.modes, "out (out-of-place), in (in-place), or out,in")->capture_default_str();
  app.add_option("--transport", o.transport,
                 "auto (the MPI's choice), shm (vader,self: one node), tcp (tcp,self over the ob1 PML)")
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls before timing")->capture_default_str();
  app.add_flag("--huge-pages", o.huge_pages, "buffers on transparent huge pages (MADV_HUGEPAGE) instead of plain pages");
  app.add_flag("--net1,!--no-net1", o.net1, "add the 100M-float32 case of claim NET-1 (quick and full)");
  int world_rank_env = std::getenv("OMPI_COMM_WORLD_RANK") ? std::atoi(std::getenv("OMPI_COMM_WORLD_RANK"))
                       : std::getenv("PMI_RANK")           ? std::atoi(std::getenv("PMI_RANK"))
                                                           : 0;
  try {
    app.parse(argc, argv);
    o.min_time_given = app.count("--min-time") > 0;
    finish_common_options(o.common, physical_core_count(), hardware_thread_count());
    if (o.transport != "auto" && o.transport != "shm" && o.transport != "tcp")
      throw std::invalid_argument("--transport must be auto, shm or tcp");
    if (o.modes != "out" && o.modes != "in" && o.modes != "out,in" && o.modes != "in,out")
      throw std::invalid_argument("--modes must be out, in or out,in");
  } catch (const CLI::ParseError& e) {
    return world_rank_env == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  } catch (const std::invalid_argument& e) {
    if (world_rank_env == 0) std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  CommonOptions& opt = o.common;
  if (opt.stem.empty()) opt.stem = prog;
  if (opt.run_id.empty()) opt.run_id = fmt::format("adhoc-{}-{}", host_name(), utc_timestamp_compact());
  // Quick runs shorter repetitions than the in-process benchmarks: the comm area has 1 minute.
  if (!o.min_time_given && opt.profile == Profile::quick) opt.min_time = 0.05;

  std::vector<Plan> plan;
  try {
    if (opt.sizes.empty() && o.algorithms.empty()) {
      plan = profile_plan(opt.profile);
      if (o.modes != "out,in" && o.modes != "in,out")
        plan.erase(std::remove_if(plan.begin(), plan.end(), [&](const Plan& p) { return p.inplace != (o.modes == "in"); }),
                   plan.end());
    } else {
      std::vector<int> algs = parse_algorithms(o.algorithms.empty() ? "default" : o.algorithms);
      std::vector<int64_t> sizes = opt.sizes.empty() ? parse_size_list("8-1M*8,1M") : opt.sizes;
      for (int a : algs)
        for (int64_t s : sizes) {
          if (o.modes.find("out") != std::string::npos) plan.push_back({a, s, false});
          if (o.modes.find("in") != std::string::npos) plan.push_back({a, s, true});
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
    if (!opt.filter.empty()) {
      std::regex re(opt.filter);
      plan.erase(std::remove_if(plan.begin(), plan.end(),
                                [&](const Plan& p) { return !std::regex_search("mpi_allreduce_f32/" + p.name(), re); }),
                 plan.end());
    }
  } catch (const std::exception& e) {
    if (world_rank_env == 0) std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  if (opt.list) {
    if (world_rank_env == 0)
      for (const Plan& p : plan)
        std::printf("mpi_allreduce_f32/%s\tbytes=%lld\tplace=%s\n", p.name().c_str(), static_cast<long long>(p.bytes),
                    p.inplace ? "in" : "out");
    return 0;
  }
  if (plan.empty()) {
    if (world_rank_env == 0) std::fprintf(stderr, "%s: no case matches --filter '%s'\n", prog.c_str(), opt.filter.c_str());
    return 2;
  }

  // Before MPI_Init: the MCA parameters this process's Open MPI reads from its environment.
  // Dynamic rules let the algorithm be forced per communicator; with algorithm 0 ("ignore") the
  // tuned component keeps its own fixed decision rules, i.e. the default.
  setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
  if (o.transport == "tcp") {
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", "tcp,self", 1);
  } else if (o.transport == "shm") {
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", "vader,self", 1);
  }

  MPI_Init(&argc, &argv);
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);

  // Every rank's host and network interfaces, gathered on rank 0 (the run's node inventory).
  constexpr int kInfo = 1024;
  std::string me = fmt::format("{}\t{}", host_name(), network_interfaces());
  me.resize(kInfo - 1, '\0');
  std::vector<char> all_info(static_cast<size_t>(kInfo) * nranks);
  MPI_Gather(me.c_str(), kInfo, MPI_CHAR, all_info.data(), kInfo, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> hosts, nics;
  for (int r = 0; r < nranks; ++r) {
    std::string s(all_info.data() + static_cast<size_t>(r) * kInfo);
    auto tab = s.find('\t');
    hosts.push_back(s.substr(0, tab));
    nics.push_back(tab == std::string::npos ? "" : s.substr(tab + 1));
  }
  int nodes = 0;
  {
    std::vector<std::string> u = hosts;
    std::sort(u.begin(), u.end());
    nodes = static_cast<int>(std::unique(u.begin(), u.end()) - u.begin());
  }
  MPI_Bcast(&nodes, 1, MPI_INT, 0, MPI_COMM_WORLD);

  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int lib_len = 0;
  MPI_Get_library_version(lib, &lib_len);
  std::string mpi_lib(lib);
  mpi_lib = mpi_lib.substr(0, mpi_lib.find_first_of(",;\n"));

  // Rank 0 owns the CSV; results are never overwritten.
  const std::string out_path = opt.out_dir + "/" + opt.stem + ".csv";
  std::unique_ptr<ResultWriter> writer;
  int open_ok = 1;
  if (rank == 0) {
    if (file_exists(out_path)) {
      std::fprintf(stderr, "%s: %s exists; results are never overwritten (choose another --out or --stem)\n",
                   prog.c_str(), out_path.c_str());
      open_ok = 0;
    } else {
      try {
        writer = std::make_unique<ResultWriter>(out_path);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
        open_ok = 0;
      }
    }
  }
  MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!open_ok) {
    MPI_T_finalize();
    MPI_Finalize();
    return 2;
  }

  auto row = [&](const std::string& bench, const std::string& cname, const std::string& params,
                 const std::string& metric, double value, const std::string& unit, int rep, Status st,
                 const std::string& note) {
    if (rank != 0) return;
    ResultRow r;
    r.run_id = opt.run_id;
    r.benchmark = bench;
    r.case_name = cname;
    r.params = params;
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.repetition = rep;
    r.status = st;
    r.note = note;
    writer->write(r);
  };
  for (int r = 0; r < nranks; ++r)
    row("mpi_ranks", fmt::format("rank{}", r),
        fmt::format("host={};nics={};ranks={};nodes={};mpi={}", hosts[r], nics[r], nranks, nodes, mpi_lib), "rank", r,
        "count", -1, Status::ok, "host name and network interfaces (/sys/class/net) of the node this rank ran on");

  const std::string transport_desc = o.transport == "tcp"   ? "tcp (btl tcp,self; pml ob1)"
                                     : o.transport == "shm" ? "shm (btl vader,self; pml ob1)"
                                                            : "auto (the MPI's choice)";
  if (rank == 0)
    std::fprintf(stderr, "%s: %zu cases on %d ranks, %d node(s), %s, transport %s, %d repetitions, profile %s -> %s\n",
                 prog.c_str(), plan.size(), nranks, nodes, mpi_lib.c_str(), transport_desc.c_str(), opt.reps,
                 to_string(opt.profile), out_path.c_str());

  AlgorithmControl control;
  control.find();

  int64_t max_bytes = 0;
  bool any_out = false;
  for (const Plan& p : plan) {
    max_bytes = std::max(max_bytes, p.bytes);
    any_out |= !p.inplace;
  }
  std::unique_ptr<Buffer> send, recv;
  try {
    recv = std::make_unique<Buffer>(max_bytes, o.huge_pages);
    if (any_out) send = std::make_unique<Buffer>(max_bytes, o.huge_pages);
  } catch (const std::bad_alloc&) {
    if (rank == 0) std::fprintf(stderr, "%s: cannot allocate %lld bytes per buffer\n", prog.c_str(), static_cast<long long>(max_bytes));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  if (rank == 0) std::printf("%s\n", table_header().c_str());
  size_t failed = 0, skipped = 0;
  std::string first_skip;
  std::vector<std::string> failed_cases;
  int current_alg = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  std::string alg_error;
  for (const Plan& p : plan) {
    const int64_t count = p.bytes / 4;
    std::string params = fmt::format(
        "size_bytes={};count={};type=float32;redop=sum;place={};ranks={};nodes={};algorithm={};algorithm_id={};"
        "algorithm_choice={};transport={};pages={};mpi={}",
        p.bytes, count, p.inplace ? "in" : "out", nranks, nodes, ompi_allreduce_algorithm_name(p.algorithm),
        p.algorithm, p.algorithm == 0 ? "the MPI's own decision rules (it does not say which algorithm they pick)"
                                      : "forced through MPI_T coll_tuned_allreduce_algorithm",
        o.transport, o.huge_pages ? "huge" : "4k", mpi_lib);
    const std::string bench = "mpi_allreduce_f32";
    const std::string cname = p.name();
    if (p.algorithm != current_alg) {
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
      comm = MPI_COMM_NULL;
      alg_error.clear();
      if (control.index < 0) {
        if (p.algorithm != 0) alg_error = control.why_not;
      } else if (!control.set(p.algorithm, alg_error)) {
        // alg_error says why
      }
      if (alg_error.empty()) MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // the tuned module reads the forced value here
      current_alg = p.algorithm;
    }
    if (!alg_error.empty()) {
      ++skipped;
      if (first_skip.empty()) first_skip = alg_error;
      row(bench, cname, params, "", std::nan(""), "", -1, Status::skipped, alg_error);
      continue;
    }
    float* in = p.inplace ? recv->p : send->p;
    float* out = recv->p;
    const void* sendbuf = p.inplace ? MPI_IN_PLACE : static_cast<const void*>(in);
    auto call = [&] { MPI_Allreduce(sendbuf, out, static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm); };

    // Check: fresh exact inputs, one call, every element against the exact sum (all ranks).
    fill_inputs(in, count, rank);
    if (!p.inplace) std::fill(out, out + count, std::nanf(""));
    call();
    long long wrong_local = count_wrong(out, count, nranks), wrong = 0;
    MPI_Allreduce(&wrong_local, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const bool ok = wrong == 0;
    const std::string check_note =
        ok ? fmt::format("checked all {} elements on each of {} ranks against the exact sum (inputs are multiples of 1/4, "
                         "summed exactly in float32)",
                         count, nranks)
           : fmt::format("WRONG: {} of {} elements (all ranks) differ from the exact sum", wrong, count * nranks);
    row(bench, cname, params, "check_wrong", static_cast<double>(wrong), "count", -1, ok ? Status::ok : Status::failed,
        check_note);
    if (!ok) {
      ++failed;
      failed_cases.push_back(cname + ": " + check_note);
      if (rank == 0) std::printf("%s\n", table_line(p.bytes, count, "float", "sum", p.inplace, 0, 0, 0, wrong).c_str());
      continue;
    }

    // Warm-up, then the calls per repetition from one timed call (the slowest rank's).
    double t = MPI_Wtime();
    call();
    double one = MPI_Wtime() - t;
    // Every rank must make the same calls: decide from the slowest rank's time.
    MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int w = 1; w < o.warmup && one < 0.1; ++w) call();
    const long iters = std::clamp<long>(static_cast<long>(std::ceil(opt.min_time / std::max(one, 1e-7))), 1, 1000000);

    // Quick and tiny: a case whose one call takes over half a second runs 3 repetitions at most.
    const int reps = (opt.profile != Profile::full && one > 0.5) ? std::min(opt.reps, 3) : opt.reps;
    std::vector<double> times;
    const bool count_bytes = o.transport == "tcp";
    for (int rep = 0; rep < reps; ++rep) {
      long long tx0 = 0, tx1 = 0;
      MPI_Barrier(comm);
      if (count_bytes && local_rank == 0) tx0 = net_tx_bytes_total();
      double c0 = cpu_seconds();
      double t0 = MPI_Wtime();
      for (long i = 0; i < iters; ++i) call();
      double el = MPI_Wtime() - t0;
      double util = (cpu_seconds() - c0) / el;
      if (count_bytes) {
        MPI_Barrier(comm);
        if (local_rank == 0) tx1 = net_tx_bytes_total();
      }
      double slowest = 0, min_util = 0;
      MPI_Reduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&util, &min_util, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      long long tx = (count_bytes && local_rank == 0 && tx0 >= 0 && tx1 >= 0) ? tx1 - tx0 : 0, tx_sum = 0;
      if (count_bytes) MPI_Reduce(&tx, &tx_sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank != 0) continue;
      const double per = slowest / iters;
      times.push_back(per);
      Status st = Status::ok;
      std::string note;
      if (min_util < kMinCpuUtilization) {
        st = Status::mistrusted;
        note = fmt::format("a rank had {:.0f}% of a CPU during the timed calls: something else competed", 100 * min_util);
      }
      const double algbw = algbw_gbps(static_cast<double>(p.bytes), per);
      row(bench, cname, params, "time_per_iter", per, "s", rep, st,
          note.empty() ? "the slowest rank's time per call" : note);
      row(bench, cname, params, "algbw", algbw, "GB/s", rep, st, note.empty() ? "size / time (nccl-tests)" : note);
      row(bench, cname, params, "busbw", algbw * busbw_factor_allreduce(nranks), "GB/s", rep, st,
          note.empty() ? "algbw x 2(n-1)/n (nccl-tests, all-reduce)" : note);
      row(bench, cname, params, "cpu_utilization", min_util, "fraction", rep, st, "lowest over ranks");
      row(bench, cname, params, "iterations", static_cast<double>(iters), "count", rep, st, "");
      if (count_bytes)
        row(bench, cname, params, "net_tx_bytes_per_rank", static_cast<double>(tx_sum) / iters / nranks, "B", rep,
            Status::ok,  // a byte count does not depend on CPU contention
            "transmit bytes of every interface (loopback included) in /proc/net/dev, read by one rank per node, summed "
            "over nodes, divided by calls and ranks: includes TCP/IP headers and any other traffic of the node");
    }
    if (rank == 0) {
      Summary s = summarize(times);
      const double algbw = algbw_gbps(static_cast<double>(p.bytes), s.median);
      std::printf("%s  %s\n",
                  table_line(p.bytes, count, "float", "sum", p.inplace, 1e6 * s.median, algbw,
                             algbw * busbw_factor_allreduce(nranks), wrong)
                      .c_str(),
                  ompi_allreduce_algorithm_name(p.algorithm));
      std::fflush(stdout);
    }
  }
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  MPI_Comm_free(&local);
  if (rank == 0) {
    writer->finish();
    for (const std::string& f : failed_cases)
      std::fprintf(stderr, "FAILED: %s   # rerun: mpirun -np %d %s --filter '%s'\n", f.c_str(), nranks, argv[0],
                   f.substr(0, f.find(':')).c_str());
  }
  MPI_T_finalize();
  MPI_Finalize();
  if (failed) return 1;
  if (skipped == plan.size()) {
    if (rank == 0) std::fprintf(stderr, "SKIP: %s\n", first_skip.c_str());
    return 77;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
