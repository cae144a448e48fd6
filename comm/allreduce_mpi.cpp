// comm_allreduce_mpi: MPI_Allreduce of float32 sums, nccl-tests style (size, count, type, redop,
// time, algbw, busbw, #wrong), in-place and out-of-place, over the ranks mpirun (or srun) starts.
// Own main(): the Google Benchmark harness times one process; this times every rank and keeps the
// slowest. Options, results and exit code come from the harness's Session in its rank-0 mode
// (every rank runs, rank 0 writes the suite's result CSV).
//
// Open MPI's all-reduce algorithm decides the speed on small machines (docs/machines.md): the tuned
// component's algorithm is forced per case through the MPI tool interface (control variable
// coll_tuned_allreduce_algorithm, then a fresh communicator), and every row says which ran.
#include <mpi.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "allreduce_mpi_plan.hpp"
#include "comm_cli.hpp"
#include "comm_common.hpp"
#include "comm_mpi.hpp"
#include "mpi_api.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/session.hpp"
#include "rigcheck/harness/split.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"

using namespace rigcheck;
using namespace rigcheck::comm;
using namespace rigcheck::comm::mpi;

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
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
    if (index < 0)
      why_not = "this MPI has no coll_tuned_allreduce_algorithm control variable (not Open MPI's tuned component)";
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
// docs/machines.md). Plain pages by default, as an application's malloc gives (THP is usually in
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

// Before MPI_Init: the MCA parameters this process's Open MPI reads from its environment. Dynamic
// rules let the algorithm be forced per communicator; with algorithm 0 ("ignore") the tuned
// component keeps its own fixed decision rules, i.e. the default.
void set_mca_environment(const Options& o) {
  setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
  if (o.transport == "tcp") {
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", "tcp,self", 1);
    mpi_api::tcp_environment();
  } else if (o.transport == "shm") {
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", "vader,self", 1);
  }
}

// The job: ranks, nodes, machines, and this rank's place.
struct Job {
  int rank = 0, nranks = 1, local_rank = 0, nodes = 1;
  // Machines: distinct kernels (boot ids). Nodes that are network namespaces of one machine (the
  // test cluster of scripts/netns-cluster.sh) are separate nodes on one machine sharing its CPUs.
  int machines = 1;
  int max_ranks_per_machine = 1, threads_of_that_machine = 1;
  bool oversubscribed = false;     // more ranks on a machine than it has hardware threads
  std::string link = "unknown";    // RIGCHECK_LINK as the launcher's environment says (netns cluster)
  std::string tcp_if = "default";  // btl_tcp_if_include the launcher gave, or Open MPI's default
  std::string mpi_lib;
  std::string oversubscribed_note() const {
    return fmt::format(
        "oversubscribed: {} ranks on one machine with {} hardware threads ({} node(s) on {} machine(s)); "
        "the ranks take turns on the CPUs, so the times measure the CPU sharing as much as the "
        "transport",
        max_ranks_per_machine, threads_of_that_machine, nodes, machines);
  }
};

// Every rank's host, machine and network interfaces, gathered on rank 0 as mpi_ranks rows (the
// run's node inventory); the node and machine counts, on every rank.
Job gather_job(Session& s) {
  Job j;
  MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &j.nranks);
  j.local_rank = mpi_local_rank(j.rank);
  if (const char* l = std::getenv("RIGCHECK_LINK")) j.link = param_safe(l);
  if (const char* t = std::getenv("OMPI_MCA_btl_tcp_if_include")) j.tcp_if = param_safe(t);
  const std::string via = j.tcp_if == "default" ? std::string("default") : param_safe(interfaces_in(j.tcp_if));
  constexpr int kInfo = 1024;
  std::string me =
      fmt::format("{}\t{}\t{}\t{}\t{}", host_name(), boot_id(), hardware_thread_count(), via, network_interfaces());
  me.resize(kInfo - 1, '\0');
  std::vector<char> all_info(static_cast<size_t>(kInfo) * j.nranks);
  MPI_Gather(me.c_str(), kInfo, MPI_CHAR, all_info.data(), kInfo, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> hosts, boots, threads, vias, nics;
  for (int r = 0; r < j.nranks; ++r) {
    std::string x(all_info.data() + static_cast<size_t>(r) * kInfo);
    std::vector<std::string> f;
    size_t a = 0;
    for (int k = 0; k < 4; ++k) {
      size_t t = x.find('\t', a);
      f.push_back(x.substr(a, t == std::string::npos ? std::string::npos : t - a));
      a = t == std::string::npos ? x.size() : t + 1;
    }
    f.push_back(x.substr(std::min(a, x.size())));
    hosts.push_back(f[0]);
    boots.push_back(f[1]);
    threads.push_back(f[2]);
    vias.push_back(f[3]);
    nics.push_back(f[4]);
  }
  std::vector<std::string> u = hosts;
  std::sort(u.begin(), u.end());
  j.nodes = static_cast<int>(std::unique(u.begin(), u.end()) - u.begin());
  std::map<std::string, int> per_machine;
  std::map<std::string, int> threads_of;
  for (int r = 0; r < j.nranks; ++r) {
    per_machine[boots[r]]++;
    threads_of[boots[r]] = std::max(1, std::atoi(threads[r].c_str()));
  }
  // The most loaded machine: ranks per hardware thread.
  int facts[5] = {j.nodes, static_cast<int>(per_machine.size()), 0, 1, 0};
  for (auto& [b, n] : per_machine)
    if (static_cast<double>(n) / threads_of[b] > static_cast<double>(facts[2]) / facts[3]) {
      facts[2] = n;
      facts[3] = threads_of[b];
    }
  facts[4] = facts[2] > facts[3] ? 1 : 0;
  MPI_Bcast(facts, 5, MPI_INT, 0, MPI_COMM_WORLD);
  j.nodes = facts[0];
  j.machines = facts[1];
  j.max_ranks_per_machine = facts[2];
  j.threads_of_that_machine = facts[3];
  j.oversubscribed = facts[4] != 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int lib_len = 0;
  MPI_Get_library_version(lib, &lib_len);
  j.mpi_lib = std::string(lib);
  j.mpi_lib = j.mpi_lib.substr(0, j.mpi_lib.find_first_of(",;\n"));
  if (j.rank == 0) {
    std::vector<std::string> ids;
    for (auto& [b, n] : per_machine) ids.push_back(b);
    for (int r = 0; r < j.nranks; ++r) {
      const int machine = static_cast<int>(std::find(ids.begin(), ids.end(), boots[r]) - ids.begin());
      s.row(
          names::kMpiRanks, fmt::format("rank{}", r),
          fmt::format("host={};nics={};tcp_if_include={};tcp_via={};link={};machine={};machine_threads={};ranks={};"
                      "nodes={};machines={};mpi={}",
                      hosts[r], nics[r], j.tcp_if, vias[r], j.link, machine, threads[r], j.nranks, j.nodes, j.machines,
                      j.mpi_lib),
          "rank", r, "count", -1, Status::ok,
          "host name, network interfaces (/sys/class/net), the interface holding btl_tcp_if_include's subnet, and the "
          "machine (kernel boot id: network-namespace nodes of one machine share it) of the node this rank ran on");
    }
  }
  return j;
}

// One case on a communicator whose algorithm is set: the check on exact inputs, then the timed
// repetitions, as rows (rank 0) and a table line.
std::string case_params(const Options& o, const Job& job, const Plan& p) {
  return fmt::format(
      "size_bytes={};count={};type=float32;redop=sum;place={};ranks={};nodes={};algorithm={};algorithm_id={};"
      "algorithm_choice={};transport={};pages={};mpi={};machines={};oversubscribed={};tcp_if_include={};link={}",
      p.bytes, p.bytes / 4, p.inplace ? "in" : "out", job.nranks, job.nodes, ompi_allreduce_algorithm_name(p.algorithm),
      p.algorithm,
      p.algorithm == 0 ? "the MPI's own decision rules (it does not say which algorithm they pick)"
                       : "forced through MPI_T coll_tuned_allreduce_algorithm",
      o.transport, o.huge_pages ? "huge" : "4k", job.mpi_lib, job.machines, job.oversubscribed ? "yes" : "no",
      job.tcp_if, job.link);
}

// The case's check: fresh exact inputs, one call, every element against the exact sum (all ranks);
// its row written, and false (the case failed) when any element differs.
bool check_case(Session& s, const Job& job, const Plan& p, const std::string& params, float* in, float* out,
                const std::function<void()>& call) {
  const int64_t count = p.bytes / 4;
  const std::string cname = p.name();
  fill_inputs(in, count, job.rank);
  if (!p.inplace) std::fill(out, out + count, std::nanf(""));
  call();
  long long wrong_local = count_wrong(out, count, job.nranks), wrong = 0;
  MPI_Allreduce(&wrong_local, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const bool ok = wrong == 0;
  const std::string check_note =
      ok ? fmt::format(
               "checked all {} elements on each of {} ranks against the exact sum (inputs are multiples of 1/4, "
               "summed exactly in float32)",
               count, job.nranks)
         : fmt::format("WRONG: {} of {} elements (all ranks) differ from the exact sum", wrong, count * job.nranks);
  s.row(kBench, cname, params, names::kCheckWrong, static_cast<double>(wrong), "count", -1,
        ok ? Status::ok : Status::failed, check_note);
  if (!ok) {
    s.case_failed(
        kBench, cname, check_note,
        fmt::format("--filter '^{}/{}$'   (started by the launcher: mpirun -np {})", kBench, cname, job.nranks));
    if (job.rank == 0)
      std::printf("%s\n", table_line(p.bytes, count, "float", "sum", p.inplace, 0, 0, 0, wrong).c_str());
    return false;
  }
  s.case_ok();
  return true;
}

void run_case(Session& s, const Options& o, const Job& job, const Plan& p, MPI_Comm comm, Buffer& recv, Buffer* send) {
  const CommonOptions& opt = s.options();
  const int64_t count = p.bytes / 4;
  const std::string params = case_params(o, job, p);
  const std::string cname = p.name();
  float* in = p.inplace ? recv.p : send->p;
  float* out = recv.p;
  const void* sendbuf = p.inplace ? MPI_IN_PLACE : static_cast<const void*>(in);
  auto call = [&] { MPI_Allreduce(sendbuf, out, static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm); };

  if (!check_case(s, job, p, params, in, out, call)) return;

  // Warm-up, then the calls per repetition from one timed call (the slowest rank's): every rank
  // must make the same calls.
  double t = MPI_Wtime();
  call();
  double one = MPI_Wtime() - t;
  MPI_Allreduce(MPI_IN_PLACE, &one, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int w = 1; w < o.warmup && one < 0.1; ++w) call();
  const long iters = std::clamp<long>(static_cast<long>(std::ceil(opt.min_time / std::max(one, 1e-7))), 1, 1000000);
  // A case whose one call takes over half a second runs 3 repetitions at most, in the full profile
  // too (its 30 minutes).
  const int reps = one > 0.5 ? std::min(opt.reps, 3) : opt.reps;
  std::vector<double> times;
  const bool count_bytes = o.transport == "tcp";
  for (int rep = 0; rep < reps; ++rep) {
    long long tx0 = 0, tx1 = 0;
    MPI_Barrier(comm);
    if (count_bytes && job.local_rank == 0) tx0 = net_tx_bytes_total();
    double c0 = cpu_seconds();
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; ++i) call();
    double el = MPI_Wtime() - t0;
    double util = (cpu_seconds() - c0) / el;
    if (count_bytes) {
      MPI_Barrier(comm);
      if (job.local_rank == 0) tx1 = net_tx_bytes_total();
    }
    double slowest = 0, min_util = 0;
    MPI_Reduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&util, &min_util, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    long long tx = (count_bytes && job.local_rank == 0 && tx0 >= 0 && tx1 >= 0) ? tx1 - tx0 : 0, tx_sum = 0;
    if (count_bytes) MPI_Reduce(&tx, &tx_sum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (job.rank != 0) continue;
    const double per = slowest / iters;
    times.push_back(per);
    std::string note;
    Status st = trust(min_util, 1, &note);  // each rank is one thread: its own share of a CPU
    if (st != Status::ok) note = "the rank with the least CPU: " + note;
    // More ranks than hardware threads on a machine: never a clean time, and said so whatever the
    // CPU share looked like.
    if (job.oversubscribed) {
      st = Status::mistrusted;
      note = job.oversubscribed_note() + (note.empty() ? "" : "; " + note);
    }
    const double algbw = algbw_gbps(static_cast<double>(p.bytes), per);
    s.row(kBench, cname, params, names::kTimePerIter, per, "s", rep, st,
          note.empty() ? "the slowest rank's time per call" : note);
    s.row(kBench, cname, params, names::kAlgbw, algbw, "GB/s", rep, st,
          note.empty() ? "size / time (nccl-tests)" : note);
    s.row(kBench, cname, params, names::kBusbw, algbw * busbw_factor_allreduce(job.nranks), "GB/s", rep, st,
          note.empty() ? "algbw x 2(n-1)/n (nccl-tests, all-reduce)" : note);
    s.row(kBench, cname, params, names::kCpuUtilization, min_util, "fraction", rep, st, "lowest over ranks");
    s.row(kBench, cname, params, names::kIterations, static_cast<double>(iters), "count", rep, st, "");
    if (count_bytes)
      s.row(kBench, cname, params, names::kNetTxBytesPerRank, static_cast<double>(tx_sum) / iters / job.nranks, "B",
            rep,
            Status::ok,  // a byte count does not depend on CPU contention
            "transmit bytes of every interface (loopback included) in /proc/net/dev, read by one rank per node, summed "
            "over nodes, divided by calls and ranks: includes TCP/IP headers and any other traffic of the node");
  }
  if (job.rank == 0) {
    Summary sm = summarize(times);
    const double algbw = algbw_gbps(static_cast<double>(p.bytes), sm.median);
    std::printf("%s  %s\n",
                table_line(p.bytes, count, "float", "sum", p.inplace, 1e6 * sm.median, algbw,
                           algbw * busbw_factor_allreduce(job.nranks), 0)
                    .c_str(),
                ompi_allreduce_algorithm_name(p.algorithm));
    std::fflush(stdout);
  }
}

// Every case in plan order, one communicator per algorithm (the tuned module reads the forced
// value when a communicator is made).
void run_plan(Session& s, const Options& o, const Job& job, const std::vector<Plan>& plan) {
  AlgorithmControl control;
  control.find();
  int64_t max_bytes = 0;
  bool any_out = false;
  for (const Plan& p : plan) {
    max_bytes = std::max(max_bytes, p.bytes);
    any_out |= !p.inplace;
  }
  Buffer recv(max_bytes, o.huge_pages);
  std::unique_ptr<Buffer> send;
  if (any_out) send = std::make_unique<Buffer>(max_bytes, o.huge_pages);
  if (job.rank == 0) std::printf("%s\n", table_header().c_str());
  int current_alg = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  std::string alg_error;
  for (const Plan& p : plan) {
    if (p.algorithm != current_alg) {
      if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
      comm = MPI_COMM_NULL;
      alg_error.clear();
      if (control.index < 0) {
        if (p.algorithm != 0) alg_error = control.why_not;
      } else {
        control.set(p.algorithm, alg_error);  // alg_error says why when it cannot
      }
      if (alg_error.empty()) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
      current_alg = p.algorithm;
    }
    if (!alg_error.empty()) {
      s.case_skipped(alg_error);
      s.row(kBench, p.name(), case_params(o, job, p), "", std::nan(""), "", -1, Status::skipped, alg_error);
      continue;
    }
    run_case(s, o, job, p, comm, recv, send.get());
  }
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

int run(int argc, char** argv) {
  SharedOptions shared;
  shared.threads = false;  // one thread per rank: the launcher sets the ranks
  Session s(argv[0],
            "comm_allreduce_mpi: MPI_Allreduce of float32 sums over the ranks the launcher starts (nccl-tests columns)",
            shared);
  Options o;
  std::vector<Plan> plan;
  if (auto rc = parse_plan(s, argc, argv, o, plan)) return *rc;
  // Quick runs shorter repetitions than the in-process benchmarks: the comm area has 1 minute.
  if (s.app().count("--min-time") == 0 && s.options().profile == Profile::quick) s.options().min_time = 0.05;
  if (s.listing()) {
    for (const Plan& p : plan)
      s.list_case(kBench, p.name(), fmt::format("bytes={}\tplace={}", p.bytes, p.inplace ? "in" : "out"));
    return kExitOk;
  }
  if (auto rc = s.require_cases(plan.size())) return *rc;

  if (o.transport == "tcp") {
    // Before MPI_Init, which would fail on every rank without saying why: each rank checks its node.
    const std::string missing =
        tcp_transport_missing(routable_interfaces(), std::getenv("OMPI_MCA_btl_tcp_if_include"));
    if (!missing.empty()) {
      const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");  // one line, not one per rank
      if (!rank) rank = std::getenv("PMIX_RANK");
      if (!rank) rank = std::getenv("SLURM_PROCID");
      if (!rank || std::string(rank) == "0") std::fprintf(stderr, "SKIP: --transport tcp %s\n", missing.c_str());
      return kExitSkipped;
    }
  }
  set_mca_environment(o);
  MPI_Init(&argc, &argv);
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  s.set_rank(rank);
  // Rank 0 owns the CSV; results are never overwritten.
  int open_ok = s.open_results() ? 1 : 0;
  MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!open_ok) {
    MPI_T_finalize();
    MPI_Finalize();
    return kExitUsage;
  }
  const int rc = s.run(
      [&] {
        const Job job = gather_job(s);
        const std::string transport_desc = o.transport == "tcp"   ? "tcp (btl tcp,self; pml ob1)"
                                           : o.transport == "shm" ? "shm (btl vader,self; pml ob1)"
                                                                  : "auto (the MPI's choice)";
        if (job.rank == 0)
          std::fprintf(stderr,
                       "%s: %zu cases on %d ranks, %d node(s) on %d machine(s)%s, %s, transport %s, tcp interfaces %s, "
                       "link %s, %d repetitions, profile %s -> %s\n",
                       s.prog().c_str(), plan.size(), job.nranks, job.nodes, job.machines,
                       job.oversubscribed ? " (oversubscribed: more ranks than hardware threads)" : "",
                       job.mpi_lib.c_str(), transport_desc.c_str(), job.tcp_if.c_str(), job.link.c_str(),
                       s.options().reps, to_string(s.options().profile), s.results_path().c_str());
        run_plan(s, o, job, plan);
      },
      // A rank that cannot go on (its results cannot be written, a buffer cannot be had): the
      // others would wait in the next collective for ever.
      [] { MPI_Abort(MPI_COMM_WORLD, kExitFailed); });
  MPI_T_finalize();
  MPI_Finalize();
  return rc;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
