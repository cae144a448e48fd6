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
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "comm_common.hpp"
#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"

using namespace rigcheck;
using namespace rigcheck::comm;

namespace {

#define CUDA_OK(x)                                                                                            \
  do {                                                                                                        \
    cudaError_t e_ = (x);                                                                                     \
    if (e_ != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", #x, cudaGetErrorString(e_)));      \
  } while (0)
#define NCCL_OK(x)                                                                                            \
  do {                                                                                                        \
    ncclResult_t r_ = (x);                                                                                    \
    if (r_ != ncclSuccess) throw std::runtime_error(fmt::format("{}: {}", #x, ncclGetErrorString(r_)));      \
  } while (0)

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool file_exists(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0;
}

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

// Collective helpers that work with and without MPI (single-process mode has one "rank").
struct Group {
  bool mpi = false;
  int rank = 0, size = 1, local_rank = 0;
  double max(double v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
    return v;
  }
  double min(double v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
    return v;
  }
  long long sum(long long v) const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
#endif
    return v;
  }
  void barrier() const {
#ifdef RIGCHECK_HAVE_MPI
    if (mpi) MPI_Barrier(MPI_COMM_WORLD);
#endif
  }
  // Every rank's string, on every rank.
  std::vector<std::string> gather(const std::string& s) const {
    if (!mpi) return {s};
    std::vector<std::string> out;
#ifdef RIGCHECK_HAVE_MPI
    constexpr int k = 2048;
    std::string mine = s.substr(0, k - 1);
    mine.resize(k, '\0');
    std::vector<char> all(static_cast<size_t>(k) * size);
    MPI_Allgather(mine.data(), k, MPI_CHAR, all.data(), k, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) out.emplace_back(all.data() + static_cast<size_t>(r) * k);
#endif
    return out;
  }
};

// One communicator per local GPU this process drives.
struct Rank {
  int device = 0;
  int global_rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
};

int run(int argc, char** argv) {
  std::string prog = argv[0];
  if (auto slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
  CLI::App app{"comm_allreduce_nccl: ncclAllReduce of float32 sums on every GPU (nccl-tests columns)"};
  CommonOptions opt;
  add_common_options(app, opt);
  std::string launch = "single", modes = "out,in";
  int warmup = 5;
  app.add_option("--launch", launch,
                 "process: one process per GPU, started by mpirun/srun, bootstrapped through MPI; single: one process "
                 "drives every local GPU")
      ->capture_default_str();
  app.add_option("--modes", modes, "out, in or out,in")->capture_default_str();
  app.add_option("--warmup", warmup, "untimed calls before timing")->capture_default_str();
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK") ? std::getenv("OMPI_COMM_WORLD_RANK") : std::getenv("PMI_RANK");
  const bool print = rank_env == nullptr || std::atoi(rank_env) == 0;
  try {
    app.parse(argc, argv);
    finish_common_options(opt, physical_core_count(), hardware_thread_count());
    if (launch != "single" && launch != "process") throw std::invalid_argument("--launch must be single or process");
    if (modes != "out" && modes != "in" && modes != "out,in" && modes != "in,out")
      throw std::invalid_argument("--modes must be out, in or out,in");
  } catch (const CLI::ParseError& e) {
    return print ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  } catch (const std::invalid_argument& e) {
    if (print) std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  if (opt.stem.empty()) opt.stem = prog;
  if (opt.run_id.empty()) opt.run_id = fmt::format("adhoc-{}-{}", host_name(), utc_timestamp_compact());
  std::vector<int64_t> sizes = !opt.sizes.empty()                ? opt.sizes
                               : opt.profile == Profile::tiny    ? parse_size_list("8-1M*8,1M")
                               : opt.profile == Profile::quick   ? parse_size_list("8-512M*8,512M")
                                                                 : parse_size_list("8-1G*2");
  struct Plan {
    int64_t bytes;
    bool inplace;
  };
  std::vector<Plan> plan;
  for (int64_t s : sizes) {
    if (s <= 0 || s % 4) {
      if (print) std::fprintf(stderr, "%s: size %lld is not a positive multiple of 4 (float32)\n", prog.c_str(), static_cast<long long>(s));
      return 2;
    }
    if (modes.find("out") != std::string::npos) plan.push_back({s, false});
    if (modes.find("in") != std::string::npos) plan.push_back({s, true});
  }
  auto case_name = [&](const Plan& p) { return fmt::format("{}/{}B/{}", launch, p.bytes, p.inplace ? "in" : "out"); };
  if (!opt.filter.empty()) {
    std::regex re(opt.filter);
    plan.erase(std::remove_if(plan.begin(), plan.end(),
                              [&](const Plan& p) { return !std::regex_search("nccl_allreduce_f32/" + case_name(p), re); }),
               plan.end());
  }
  if (opt.list) {
    if (print)
      for (const Plan& p : plan) std::printf("nccl_allreduce_f32/%s\tbytes=%lld\n", case_name(p).c_str(), static_cast<long long>(p.bytes));
    return 0;
  }
  if (plan.empty()) {
    if (print) std::fprintf(stderr, "%s: no case matches --filter '%s'\n", prog.c_str(), opt.filter.c_str());
    return 2;
  }

  // NCCL's own account of the transport it picks: its INFO lines, into a file per process.
  const bool own_debug = std::getenv("NCCL_DEBUG") == nullptr;
  const std::string debug_pattern = opt.out_dir + "/" + opt.stem + ".nccl-debug.%h.%p.log";
  if (own_debug) {
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_FILE", debug_pattern.c_str(), 1);
  }

  Group g;
  if (launch == "process") {
#ifdef RIGCHECK_HAVE_MPI
    MPI_Init(&argc, &argv);
    g.mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g.rank, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &g.local_rank);
    MPI_Comm_free(&local);
#else
    std::fprintf(stderr, "%s: --launch process needs MPI, and this binary was built without it\n", prog.c_str());
    return 2;
#endif
  }
  auto finish = [&](int rc) {
#ifdef RIGCHECK_HAVE_MPI
    if (g.mpi) MPI_Finalize();
#endif
    return rc;
  };

  // Rank 0 owns the CSV; results are never overwritten.
  const std::string out_path = opt.out_dir + "/" + opt.stem + ".csv";
  std::unique_ptr<ResultWriter> writer;
  double open_ok = 1;
  if (g.rank == 0) {
    if (file_exists(out_path)) {
      std::fprintf(stderr, "%s: %s exists; results are never overwritten (choose another --out or --stem)\n", prog.c_str(), out_path.c_str());
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
  if (g.min(open_ok) == 0) return finish(2);
  auto row = [&](const std::string& bench, const std::string& cname, const std::string& params, const std::string& metric,
                 double value, const std::string& unit, int rep, Status st, const std::string& note) {
    if (g.rank != 0) return;
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
  const std::string knobs = fmt::format(
      "nccl_p2p_disable={};nccl_shm_disable={};nccl_ib_disable={};nccl_net={};nccl_socket_ifname={};nccl_algo={};"
      "nccl_proto={}",
      env_or("NCCL_P2P_DISABLE"), env_or("NCCL_SHM_DISABLE"), env_or("NCCL_IB_DISABLE"), env_or("NCCL_NET"),
      env_or("NCCL_SOCKET_IFNAME"), env_or("NCCL_ALGO"), env_or("NCCL_PROTO"));

  // No GPU: every case skipped with the reason (PITFALLS: without a driver cudaGetDeviceCount
  // returns a non-zero status and leaves the count untouched).
  int ndev = 0;
  cudaError_t st = cudaGetDeviceCount(&ndev);
  std::string why;
  if (st != cudaSuccess) why = fmt::format("no usable CUDA GPU: cudaGetDeviceCount returned {} ({})", static_cast<int>(st), cudaGetErrorString(st));
  else if (ndev == 0) why = "no CUDA GPU: cudaGetDeviceCount found 0 devices";
  else if (launch == "process" && g.local_rank >= ndev)
    why = fmt::format("{} ranks on this node but only {} GPU(s): one process per GPU", g.local_rank + 1, ndev);
  if (g.min(why.empty() ? 1 : 0) == 0) {
    std::vector<std::string> whys = g.gather(why);
    std::string reason;
    for (int r = 0; r < static_cast<int>(whys.size()); ++r)
      if (!whys[r].empty()) {
        reason = whys[r] + (g.mpi ? fmt::format(" (rank {} on {})", r, host_name()) : "");
        break;
      }
    for (const Plan& p : plan) row("nccl_allreduce_f32", case_name(p), knobs, "", std::nan(""), "", -1, Status::skipped, reason);
    if (g.rank == 0) {
      writer->finish();
      std::fprintf(stderr, "SKIP: %s\n", reason.c_str());
    }
    return finish(77);
  }

  int ret = 0;
  std::vector<Rank> ranks;
  try {
    int nccl_version = 0;
    ncclGetVersion(&nccl_version);
    if (launch == "single") {
      std::vector<int> devs(ndev);
      std::vector<ncclComm_t> comms(ndev);
      for (int d = 0; d < ndev; ++d) devs[d] = d;
      NCCL_OK(ncclCommInitAll(comms.data(), ndev, devs.data()));
      for (int d = 0; d < ndev; ++d) ranks.push_back({d, d, comms[d]});
    } else {
#ifdef RIGCHECK_HAVE_MPI
      ncclUniqueId id;
      if (g.rank == 0) NCCL_OK(ncclGetUniqueId(&id));
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
      Rank r;
      r.device = g.local_rank;
      r.global_rank = g.rank;
      CUDA_OK(cudaSetDevice(r.device));
      NCCL_OK(ncclCommInitRank(&r.comm, g.size, id, g.rank));
      ranks.push_back(r);
#endif
    }
    const int nranks = launch == "single" ? ndev : g.size;
    int64_t max_bytes = 0;
    for (const Plan& p : plan) max_bytes = std::max(max_bytes, p.bytes);
    for (Rank& r : ranks) {
      CUDA_OK(cudaSetDevice(r.device));
      CUDA_OK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
      CUDA_OK(cudaMalloc(&r.send, max_bytes));
      CUDA_OK(cudaMalloc(&r.recv, max_bytes));
    }

    // The GPUs: name, PCI bus, NUMA node (the inventory of every node's GPUs).
    std::string mine;
    for (Rank& r : ranks) {
      cudaDeviceProp prop;
      CUDA_OK(cudaGetDeviceProperties(&prop, r.device));
      char bus[32] = {};
      cudaDeviceGetPCIBusId(bus, sizeof bus, r.device);
      std::string lower(bus);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string numa = read_first_line("/sys/bus/pci/devices/" + lower + "/numa_node");
      mine += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", r.global_rank, host_name(), prop.name, bus, numa, network_interfaces());
    }
    std::vector<std::string> infos = g.gather(mine);
    std::vector<std::string> hosts;
    std::string gpu_name;
    for (const std::string& block : infos) {
      std::istringstream in(block);
      std::string line;
      while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::istringstream ls(line);
        for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
        if (f.size() < 6) continue;
        hosts.push_back(f[1]);
        gpu_name = f[2];
        row("nccl_ranks", "rank" + f[0],
            fmt::format("host={};gpu={};pci_bus={};numa_node={};nics={}", f[1], f[2], f[3], f[4], f[5]), "rank",
            std::atof(f[0].c_str()), "count", -1, Status::ok,
            "host, GPU, its PCI bus id and NUMA node (/sys/bus/pci/devices/BUS/numa_node), network interfaces");
      }
    }
    std::sort(hosts.begin(), hosts.end());
    const int nodes = static_cast<int>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());

    auto call = [&](const Plan& p) {
      const size_t count = static_cast<size_t>(p.bytes / 4);
      if (ranks.size() > 1) NCCL_OK(ncclGroupStart());
      for (Rank& r : ranks)
        NCCL_OK(ncclAllReduce(p.inplace ? r.recv : r.send, r.recv, count, ncclFloat32, ncclSum, r.comm, r.stream));
      if (ranks.size() > 1) NCCL_OK(ncclGroupEnd());
    };
    auto sync = [&] {
      for (Rank& r : ranks) {
        CUDA_OK(cudaSetDevice(r.device));
        CUDA_OK(cudaStreamSynchronize(r.stream));
      }
    };

    std::vector<float> host(static_cast<size_t>(max_bytes / 4));
    std::string transport, paths, network;
    if (g.rank == 0) std::printf("%s\n", table_header().c_str());
    size_t failed = 0;
    std::vector<std::string> failed_cases;
    for (const Plan& p : plan) {
      const int64_t count = p.bytes / 4;
      // Check: fresh exact inputs on every GPU, one call, every element against the exact sum.
      for (Rank& r : ranks) {
        fill_inputs(host.data(), count, r.global_rank);
        CUDA_OK(cudaSetDevice(r.device));
        CUDA_OK(cudaMemcpy(p.inplace ? r.recv : r.send, host.data(), p.bytes, cudaMemcpyHostToDevice));
        if (!p.inplace) CUDA_OK(cudaMemset(r.recv, 0xff, p.bytes));  // NaN: an unwritten element is wrong
      }
      call(p);
      sync();
      long long wrong = 0;
      for (Rank& r : ranks) {
        CUDA_OK(cudaMemcpy(host.data(), r.recv, p.bytes, cudaMemcpyDeviceToHost));
        wrong += count_wrong(host.data(), count, nranks);
      }
      wrong = g.sum(wrong);

      // The transport, once connections exist (NCCL connects at the first collective).
      if (transport.empty()) {
        std::string text;
        if (own_debug) {
          std::string f = debug_pattern;
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
        for (const std::string& s : g.gather(ser)) {
          std::istringstream in(s);
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
        transport = own_debug ? all.kinds() : "unknown (NCCL_DEBUG was set by the user: " + env_or("NCCL_DEBUG") + ")";
        paths = own_debug ? all.summary() : "-";
        network = all.network.empty() ? "-" : all.network;
        for (char& c : paths)
          if (c == ';' || c == '=') c = ' ';
      }
      const std::string params = fmt::format(
          "size_bytes={};count={};type=float32;redop=sum;place={};ranks={};nodes={};launch={};gpu={};"
          "transport={};transport_paths={};nccl_network={};nccl_version={};{}",
          p.bytes, count, p.inplace ? "in" : "out", nranks, nodes, launch, gpu_name, transport, paths, network,
          nccl_version, knobs);
      const std::string cname = case_name(p);
      const bool ok = wrong == 0;
      std::string note = ok ? fmt::format("checked all {} elements on each of {} GPUs against the exact sum", count, nranks)
                            : fmt::format("WRONG: {} of {} elements (all GPUs) differ from the exact sum", wrong, count * nranks);
      row("nccl_allreduce_f32", cname, params, "check_wrong", static_cast<double>(wrong), "count", -1,
          ok ? Status::ok : Status::failed, note);
      if (!ok) {
        ++failed;
        failed_cases.push_back(cname + ": " + note);
        continue;
      }
      double t0 = now_s();
      call(p);
      sync();
      double one = now_s() - t0;
      for (int w = 1; w < warmup; ++w) call(p);
      sync();
      one = g.max(one);
      const long iters = std::clamp<long>(static_cast<long>(std::ceil(opt.min_time / std::max(one, 1e-7))), 1, 100000);
      std::vector<double> times;
      for (int rep = 0; rep < opt.reps; ++rep) {
        g.barrier();
        double a = now_s();
        for (long i = 0; i < iters; ++i) call(p);
        sync();
        double per = g.max(now_s() - a) / iters;
        times.push_back(per);
        const double algbw = algbw_gbps(static_cast<double>(p.bytes), per);
        row("nccl_allreduce_f32", cname, params, "time_per_iter", per, "s", rep, Status::ok, "the slowest rank's time per call");
        row("nccl_allreduce_f32", cname, params, "algbw", algbw, "GB/s", rep, Status::ok, "size / time (nccl-tests)");
        row("nccl_allreduce_f32", cname, params, "busbw", algbw * busbw_factor_allreduce(nranks), "GB/s", rep, Status::ok,
            "algbw x 2(n-1)/n (nccl-tests, all-reduce)");
        row("nccl_allreduce_f32", cname, params, "iterations", static_cast<double>(iters), "count", rep, Status::ok, "");
      }
      if (g.rank == 0) {
        Summary s = summarize(times);
        double algbw = algbw_gbps(static_cast<double>(p.bytes), s.median);
        std::printf("%s  %s\n",
                    table_line(p.bytes, count, "float", "sum", p.inplace, 1e6 * s.median, algbw,
                               algbw * busbw_factor_allreduce(nranks), wrong)
                        .c_str(),
                    transport.c_str());
        std::fflush(stdout);
      }
    }
    if (g.rank == 0) {
      writer->finish();
      for (const std::string& f : failed_cases) std::fprintf(stderr, "FAILED: %s\n", f.c_str());
    }
    ret = failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s (rank %d on %s)\n", e.what(), g.rank, host_name().c_str());
    ret = 1;
#ifdef RIGCHECK_HAVE_MPI
    if (g.mpi) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  }
  for (Rank& r : ranks) {
    cudaSetDevice(r.device);
    if (r.send) cudaFree(r.send);
    if (r.recv) cudaFree(r.recv);
    if (r.stream) cudaStreamDestroy(r.stream);
    if (r.comm) ncclCommDestroy(r.comm);
  }
  return finish(ret);
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
