// comm_allreduce_nccl: ncclAllReduce of float32 sums, nccl-tests columns, in-place and
// out-of-place, in one of two shapes:
//   --launch process  one process per GPU, started by the launcher (mpirun/srun), bootstrapped
//                     through MPI (rank 0's ncclUniqueId broadcast), GPU = local rank;
//   --launch single   one process driving every local GPU (ncclCommInitAll, grouped calls).
// The transport NCCL chose is read back from its NCCL_DEBUG=INFO lines ("... via P2P/IPC",
// "Using network IB"); force another for A/B runs with NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1,
// NCCL_IB_DISABLE=1 / NCCL_NET=Socket, NCCL_SOCKET_IFNAME (recorded in every row).
// Without a GPU every case is skipped with the reason and the binary exits 77.
#include <cuda_runtime.h>
#include <nccl.h>
#ifdef RIGCHECK_HAVE_MPI
#include <mpi.h>

#include "comm_mpi.hpp"
#endif
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "comm_cli.hpp"
#include "allreduce_nccl_plan.hpp"
#include "comm_common.hpp"
#include "rank_group.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/session.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"

using namespace rigcheck;
using namespace rigcheck::comm;

namespace {

#define CUDA_OK(x)                                                                                      \
  do {                                                                                                  \
    cudaError_t e_ = (x);                                                                               \
    if (e_ != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", #x, cudaGetErrorString(e_))); \
  } while (0)
#define NCCL_OK(x)                                                                                      \
  do {                                                                                                  \
    ncclResult_t r_ = (x);                                                                              \
    if (r_ != ncclSuccess) throw std::runtime_error(fmt::format("{}: {}", #x, ncclGetErrorString(r_))); \
  } while (0)

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string env_or(const char* k, const char* fallback = "unset") {
  const char* v = std::getenv(k);
  return v ? v : fallback;
}

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_first_line(const std::string& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s.empty() ? "unknown" : s;
}

// One communicator per local GPU this process drives.
struct Rank {
  int device = 0;
  int global_rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
};

constexpr const char* kBench = names::kNcclAllreduce;

// Everything a case needs: the process group, the GPUs this process drives, the job's shape.
struct Ctx {
  Group g;
  std::vector<Rank> ranks;
  int nranks = 1, nodes = 1, nccl_version = 0;
  std::string gpu_name, knobs;
  bool own_debug = false;
  std::string debug_pattern;
  std::string transport, paths, network;  // read back from NCCL's INFO lines after the first call
};

// Why this job cannot run here ("" when it can): no CUDA GPU (docs/machines.md: without a driver
// cudaGetDeviceCount returns a non-zero status and leaves the count untouched), or fewer GPUs than
// ranks on a node.
std::string no_gpu_reason(const Options& o, const Group& g, int* ndev) {
  *ndev = 0;
  cudaError_t st = cudaGetDeviceCount(ndev);
  if (st != cudaSuccess)
    return fmt::format("no usable CUDA GPU: cudaGetDeviceCount returned {} ({})", static_cast<int>(st),
                       cudaGetErrorString(st));
  if (*ndev == 0) return "no CUDA GPU: cudaGetDeviceCount found 0 devices";
  if (o.launch == "process" && g.local_rank >= *ndev)
    return fmt::format("{} ranks on this node but only {} GPU(s): one process per GPU", g.local_rank + 1, *ndev);
  return "";
}

// The communicators (every local GPU, or this rank's one through MPI) and their buffers.
void init_ranks(const Options& o, Ctx& c, int ndev, int64_t max_bytes) {
  ncclGetVersion(&c.nccl_version);
  if (o.launch == "single") {
    std::vector<int> devs(ndev);
    std::vector<ncclComm_t> comms(ndev);
    for (int d = 0; d < ndev; ++d) devs[d] = d;
    NCCL_OK(ncclCommInitAll(comms.data(), ndev, devs.data()));
    for (int d = 0; d < ndev; ++d) c.ranks.push_back({d, d, comms[d]});
  } else {
#ifdef RIGCHECK_HAVE_MPI
    ncclUniqueId id;
    if (c.g.rank == 0) NCCL_OK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    Rank r;
    r.device = c.g.local_rank;
    r.global_rank = c.g.rank;
    CUDA_OK(cudaSetDevice(r.device));
    NCCL_OK(ncclCommInitRank(&r.comm, c.g.size, id, c.g.rank));
    c.ranks.push_back(r);
#endif
  }
  c.nranks = o.launch == "single" ? ndev : c.g.size;
  for (Rank& r : c.ranks) {
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
    CUDA_OK(cudaMalloc(&r.send, max_bytes));
    CUDA_OK(cudaMalloc(&r.recv, max_bytes));
  }
}

// The GPUs of every rank (name, PCI bus, NUMA node, the node's network interfaces) as nccl_ranks
// rows; the node count and the GPU name.
void record_gpus(Session& s, Ctx& c) {
  std::string mine;
  for (Rank& r : c.ranks) {
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, r.device));
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, r.device);
    std::string lower(bus);
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string numa = read_first_line("/sys/bus/pci/devices/" + lower + "/numa_node");
    mine +=
        fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", r.global_rank, host_name(), prop.name, bus, numa, network_interfaces());
  }
  std::vector<std::string> hosts;
  for (const std::string& block : c.g.gather(mine)) {
    std::istringstream in(block);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream ls(line);
      for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
      if (f.size() < 6) continue;
      hosts.push_back(f[1]);
      c.gpu_name = f[2];
      s.row(names::kNcclRanks, "rank" + f[0],
            fmt::format("host={};gpu={};pci_bus={};numa_node={};nics={}", f[1], f[2], f[3], f[4], f[5]), "rank",
            std::atof(f[0].c_str()), "count", -1, Status::ok,
            "host, GPU, its PCI bus id and NUMA node (/sys/bus/pci/devices/BUS/numa_node), network interfaces");
    }
  }
  std::sort(hosts.begin(), hosts.end());
  c.nodes = static_cast<int>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());
}

// The transport NCCL chose, from every rank's NCCL_DEBUG=INFO file (NCCL connects at the first
// collective, so this runs after one).
void read_transport(Ctx& c) {
  std::string text;
  if (c.own_debug) {
    std::string f = c.debug_pattern;
    auto rep = [&](const std::string& key, const std::string& val) {
      for (size_t at; (at = f.find(key)) != std::string::npos;) f.replace(at, key.size(), val);
    };
    std::string h = host_name();  // NCCL names the file after the host name cut at its first dot
    rep("%h", h.substr(0, h.find('.')));
    rep("%p", std::to_string(getpid()));
    text = read_file(f);
  }
  NcclTransport t = parse_nccl_debug(text);
  std::string ser;
  for (auto& [k, n] : t.paths) ser += fmt::format("{} {}\n", k, n);
  ser += "network " + (t.network.empty() ? std::string("-") : t.network) + "\n";
  NcclTransport all;
  for (const std::string& x : c.g.gather(ser)) {
    std::istringstream in(x);
    std::string k;
    long n;
    while (in >> k) {
      if (k == "network") {
        std::string net;
        in >> net;
        if (net != "-" && all.network.find(net) == std::string::npos)
          all.network += (all.network.empty() ? "" : "+") + net;
      } else if (in >> n) {
        all.paths[k] += static_cast<int>(n);
      }
    }
  }
  c.transport = c.own_debug ? all.kinds() : "unknown (NCCL_DEBUG was set by the user: " + env_or("NCCL_DEBUG") + ")";
  c.paths = c.own_debug ? all.summary() : "-";
  c.network = all.network.empty() ? "-" : all.network;
  for (char& ch : c.paths)
    if (ch == ';' || ch == '=') ch = ' ';
}

void call(Ctx& c, const Plan& p) {
  const size_t count = static_cast<size_t>(p.bytes / 4);
  if (c.ranks.size() > 1) NCCL_OK(ncclGroupStart());
  for (Rank& r : c.ranks)
    NCCL_OK(ncclAllReduce(p.inplace ? r.recv : r.send, r.recv, count, ncclFloat32, ncclSum, r.comm, r.stream));
  if (c.ranks.size() > 1) NCCL_OK(ncclGroupEnd());
}

void sync(Ctx& c) {
  for (Rank& r : c.ranks) {
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaStreamSynchronize(r.stream));
  }
}

// Fresh exact inputs on every GPU, one call, every element against the exact sum: wrong elements
// over every rank.
long long check(Ctx& c, const Plan& p, std::vector<float>& host) {
  const int64_t count = p.bytes / 4;
  for (Rank& r : c.ranks) {
    fill_inputs(host.data(), count, r.global_rank);
    CUDA_OK(cudaSetDevice(r.device));
    CUDA_OK(cudaMemcpy(p.inplace ? r.recv : r.send, host.data(), p.bytes, cudaMemcpyHostToDevice));
    if (!p.inplace) CUDA_OK(cudaMemset(r.recv, 0xff, p.bytes));  // NaN: an unwritten element is wrong
  }
  call(c, p);
  sync(c);
  long long wrong = 0;
  for (Rank& r : c.ranks) {
    CUDA_OK(cudaMemcpy(host.data(), r.recv, p.bytes, cudaMemcpyDeviceToHost));
    wrong += count_wrong(host.data(), count, c.nranks);
  }
  return c.g.sum(wrong);
}

void run_case(Session& s, const Options& o, Ctx& c, const Plan& p, std::vector<float>& host) {
  const CommonOptions& opt = s.options();
  const int64_t count = p.bytes / 4;
  const long long wrong = check(c, p, host);
  if (c.transport.empty()) read_transport(c);
  const std::string params = fmt::format(
      "size_bytes={};count={};type=float32;redop=sum;place={};ranks={};nodes={};launch={};gpu={};"
      "transport={};transport_paths={};nccl_network={};nccl_version={};{}",
      p.bytes, count, p.inplace ? "in" : "out", c.nranks, c.nodes, o.launch, c.gpu_name, c.transport, c.paths,
      c.network, c.nccl_version, c.knobs);
  const std::string cname = case_name(o, p);
  const bool ok = wrong == 0;
  const std::string note =
      ok ? fmt::format("checked all {} elements on each of {} GPUs against the exact sum", count, c.nranks)
         : fmt::format("WRONG: {} of {} elements (all GPUs) differ from the exact sum", wrong, count * c.nranks);
  s.row(kBench, cname, params, names::kCheckWrong, static_cast<double>(wrong), "count", -1,
        ok ? Status::ok : Status::failed, note);
  if (!ok) {
    s.case_failed(kBench, cname, note);
    return;
  }
  s.case_ok();
  double t0 = now_s();
  call(c, p);
  sync(c);
  double one = now_s() - t0;
  for (int w = 1; w < o.warmup; ++w) call(c, p);
  sync(c);
  one = c.g.max(one);
  const long iters = std::clamp<long>(static_cast<long>(std::ceil(opt.min_time / std::max(one, 1e-7))), 1, 100000);
  std::vector<double> times;
  for (int rep = 0; rep < opt.reps; ++rep) {
    c.g.barrier();
    double a = now_s();
    for (long i = 0; i < iters; ++i) call(c, p);
    sync(c);
    double per = c.g.max(now_s() - a) / iters;
    times.push_back(per);
    const double algbw = algbw_gbps(static_cast<double>(p.bytes), per);
    s.row(kBench, cname, params, names::kTimePerIter, per, "s", rep, Status::ok, "the slowest rank's time per call");
    s.row(kBench, cname, params, names::kAlgbw, algbw, "GB/s", rep, Status::ok, "size / time (nccl-tests)");
    s.row(kBench, cname, params, names::kBusbw, algbw * busbw_factor_allreduce(c.nranks), "GB/s", rep, Status::ok,
          "algbw x 2(n-1)/n (nccl-tests, all-reduce)");
    s.row(kBench, cname, params, names::kIterations, static_cast<double>(iters), "count", rep, Status::ok, "");
  }
  if (c.g.rank == 0) {
    Summary sm = summarize(times);
    double algbw = algbw_gbps(static_cast<double>(p.bytes), sm.median);
    std::printf("%s  %s\n",
                table_line(p.bytes, count, "float", "sum", p.inplace, 1e6 * sm.median, algbw,
                           algbw * busbw_factor_allreduce(c.nranks), wrong)
                    .c_str(),
                c.transport.c_str());
    std::fflush(stdout);
  }
}

// MPI for --launch process (one process per GPU); nothing for --launch single.
bool init_group(const Options& o, Group& g, int* argc, char*** argv, const std::string& prog) {
  if (o.launch != "process") return true;
#ifdef RIGCHECK_HAVE_MPI
  (void)prog;
  MPI_Init(argc, argv);
  g.mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g.size);
  g.local_rank = mpi_local_rank(g.rank);
  return true;
#else
  (void)g, (void)argc, (void)argv;
  std::fprintf(stderr, "%s: --launch process needs MPI, and this binary was built without it\n", prog.c_str());
  return false;
#endif
}

// Its rows of data/benchmarks.csv and of docs/benchmarks.md's table, and the names it writes (--describe).
const bool entry_nccl =
    declare_entry({"comm_allreduce_nccl", "comm", "--launch single", "", "gpu_count>=1", 60, 300, 1800,
                   "NCCL all-reduce, one process driving every local GPU, transport read back from NCCL (GPU-6)"});
const bool entry_nccl_nop2p =
    declare_entry({"comm_allreduce_nccl_nop2p", "comm", "--launch single", "NCCL_P2P_DISABLE=1", "gpu_count>=2", 60,
                   300, 1800, "NCCL all-reduce with NCCL_P2P_DISABLE=1: the A side of GPU-6"});
const bool entry_nccl_mpi = declare_entry(
    {"comm_allreduce_nccl_mpi", "comm", "@launcher --launch process", "", "gpu_count>=1", 60, 300, 1800,
     "NCCL all-reduce, one process per GPU started by the launcher, bootstrapped through MPI (GPU-7 across nodes)"});
const bool doc_row = declare_doc(
    {"",
     R"(ncclAllReduce of float32 sums on every GPU, the transport NCCL picked read back from its own log: one
process driving every local GPU (`comm_allreduce_nccl`), the same with `NCCL_P2P_DISABLE=1`
(`comm_allreduce_nccl_nop2p`), one process per GPU bootstrapped through MPI (`comm_allreduce_nccl_mpi`))",
     "GPU-6, GPU-7"});
const bool writes = declare_writes({names::kNcclAllreduce, names::kNcclRanks});

int run(int argc, char** argv) {
  SharedOptions shared;
  shared.threads = false;  // one host thread per process
  Session s(argv[0], "comm_allreduce_nccl: ncclAllReduce of float32 sums on every GPU (nccl-tests columns)", shared);
  Options o;
  std::vector<Plan> plan;
  if (auto rc = parse_plan(s, argc, argv, o, plan)) return *rc;
  if (s.listing()) {
    for (const Plan& p : plan) s.list_case(kBench, case_name(o, p), fmt::format("bytes={}", p.bytes));
    return kExitOk;
  }
  if (auto rc = s.require_cases(plan.size())) return *rc;

  // NCCL's own account of the transport it picks: its INFO lines, into a file per process.
  Ctx c;
  const CommonOptions& opt = s.options();
  c.own_debug = std::getenv("NCCL_DEBUG") == nullptr;
  c.debug_pattern = opt.out_dir + "/" + opt.stem + ".nccl-debug.%h.%p.log";
  if (c.own_debug) {
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_FILE", c.debug_pattern.c_str(), 1);
  }
  if (!init_group(o, c.g, &argc, &argv, s.prog())) return kExitUsage;
  auto finalize = [&](int rc) {
#ifdef RIGCHECK_HAVE_MPI
    if (c.g.mpi) MPI_Finalize();
#endif
    return rc;
  };
  s.set_rank(c.g.rank);
  // Rank 0 owns the CSV; results are never overwritten.
  if (c.g.min(s.open_results() ? 1 : 0) == 0) return finalize(kExitUsage);
  c.knobs = fmt::format(
      "nccl_p2p_disable={};nccl_shm_disable={};nccl_ib_disable={};nccl_net={};nccl_socket_ifname={};nccl_algo={};"
      "nccl_proto={}",
      env_or("NCCL_P2P_DISABLE"), env_or("NCCL_SHM_DISABLE"), env_or("NCCL_IB_DISABLE"), env_or("NCCL_NET"),
      env_or("NCCL_SOCKET_IFNAME"), env_or("NCCL_ALGO"), env_or("NCCL_PROTO"));

  int ndev = 0;
  const std::string why = no_gpu_reason(o, c.g, &ndev);
  if (c.g.min(why.empty() ? 1 : 0) == 0) {
    std::vector<std::string> whys = c.g.gather(why);
    std::string reason;
    for (int r = 0; r < static_cast<int>(whys.size()) && reason.empty(); ++r)
      if (!whys[r].empty()) reason = whys[r] + (c.g.mpi ? fmt::format(" (rank {} on {})", r, host_name()) : "");
    return finalize(s.run([&] {
      for (const Plan& p : plan) {
        s.row(kBench, case_name(o, p), c.knobs, "", std::nan(""), "", -1, Status::skipped, reason);
        s.case_skipped(reason);
      }
    }));
  }
  const int rc = s.run(
      [&] {
        int64_t max_bytes = 0;
        for (const Plan& p : plan) max_bytes = std::max(max_bytes, p.bytes);
        init_ranks(o, c, ndev, max_bytes);
        record_gpus(s, c);
        std::vector<float> host(static_cast<size_t>(max_bytes / 4));
        if (c.g.rank == 0) std::printf("%s\n", table_header().c_str());
        for (const Plan& p : plan) run_case(s, o, c, p, host);
      },
      [&] {
        std::fprintf(stderr, "(rank %d on %s)\n", c.g.rank, host_name().c_str());
#ifdef RIGCHECK_HAVE_MPI
        if (c.g.mpi) MPI_Abort(MPI_COMM_WORLD, kExitFailed);
#endif
      });
  for (Rank& r : c.ranks) {
    cudaSetDevice(r.device);
    if (r.send) cudaFree(r.send);
    if (r.recv) cudaFree(r.recv);
    if (r.stream) cudaStreamDestroy(r.stream);
    if (r.comm) ncclCommDestroy(r.comm);
  }
  return finalize(rc);
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
