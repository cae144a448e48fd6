// Inventory: provenance, platform, OS, build, libraries, tools and environment.
#include "internal.hpp"

#include <initializer_list>

#include "rigcheck/harness/emulation.hpp"

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

#if defined(RIGCHECK_HAVE_DNNL) && RIGCHECK_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#if defined(RIGCHECK_HAVE_TORCH) && RIGCHECK_HAVE_TORCH
#include <torch/version.h>
#endif

#if defined(RIGCHECK_HAVE_OPENBLAS) && RIGCHECK_HAVE_OPENBLAS
// Declared here rather than through cblas.h, whose location and contents vary.
extern "C" {
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
}
#endif

namespace rigcheck::inventory_detail {

// Provenance: which method, which suite commit, when, where.
void add_provenance(Collector& c) {
#if defined(RIGCHECK_METHOD_VERSION)
  c.add("method_version", macro_text(RIGCHECK_INV_STR(RIGCHECK_METHOD_VERSION)));
#else
  c.add("method_version", "1");
#endif

  c.section("suite_commit", [&] {
    std::string commit, why;
#if defined(RIGCHECK_SOURCE_DIR)
    const std::string dir = macro_text(RIGCHECK_INV_STR(RIGCHECK_SOURCE_DIR));
    // safe.directory: the checkout may belong to another user (a root CI job in a user's clone);
    // since the owner check is off, the settings through which a checkout's config can run a
    // command during `status` (fsmonitor, hooks) are overridden and no index refresh is written.
    const std::string git =
        "git -c safe.directory='*' -c core.fsmonitor=false -c core.hooksPath=/dev/null "
        "--no-optional-locks -C " +
        shell_quote(dir);
    const std::string head = first_line_of(run_command(git + " rev-parse HEAD 2>/dev/null").output);
    if (head.size() >= 40 && head.find_first_not_of("0123456789abcdef") == std::string::npos) {
      commit = head;
      if (!trim(run_command(git + " status --porcelain 2>/dev/null").output).empty()) commit += "-dirty";
    } else {
      why = "git rev-parse HEAD failed in " + dir;
    }
#else
    why = "RIGCHECK_SOURCE_DIR not defined";
#endif
#if defined(RIGCHECK_GIT_COMMIT)
    if (commit.empty()) commit = macro_text(RIGCHECK_INV_STR(RIGCHECK_GIT_COMMIT));
#else
    why += " and RIGCHECK_GIT_COMMIT not defined";
#endif
    if (why.empty()) why = "RIGCHECK_GIT_COMMIT is empty";
    c.add("suite_commit", commit.empty() ? unknown(why) : commit);
  });

  c.section("inventory_time_utc", [&] {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    char buf[32];
    if (::gmtime_r(&now, &tm) != nullptr && std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
      c.add("inventory_time_utc", buf);
    else
      c.add("inventory_time_utc", unknown("gmtime failed"));
  });

  c.section("hostname", [&] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) == 0)
      c.add("hostname", buf);
    else
      c.add("hostname", unknown("gethostname: " + errno_text(errno)));
  });
}

// cpufreq and virtualization.
void add_platform(Collector& c, const CpuId& cpu) {
  const std::string freq = cpu_dir(0) + "/cpufreq/";
  c.add("cpufreq_governor", first_line_or(freq + "scaling_governor", "no cpufreq in sysfs"));
  std::string khz;
  if (!read_first_line(freq + "cpuinfo_max_freq", khz) || khz.empty())
    khz = first_line_or(freq + "scaling_max_freq", "no cpufreq in sysfs");
  c.add("cpufreq_max_khz", khz);

  std::string virt;
  if (cpu.flags.count("hypervisor") != 0) {
    std::string name = cpuid_hypervisor(), vendor;
    if (name.empty()) read_first_line("/sys/hypervisor/type", name);
    read_first_line("/sys/class/dmi/id/sys_vendor", vendor);
    if (!name.empty() && !vendor.empty() && vendor != name)
      virt = name + " (" + vendor + ")";
    else if (!name.empty())
      virt = name;
    else if (!vendor.empty())
      virt = vendor;
    else
      virt = "yes (hypervisor flag)";
  } else if (cpu.flags_found) {
    virt = "none";
  } else {
    virt = unknown("no cpuinfo flags to look for the hypervisor flag");
  }
  c.add("virtualization", virt);
}

// Whether a user-space cycle counter can be opened (perf_event_open).
std::string probe_perf_counters() {
#if defined(__linux__) && defined(SYS_perf_event_open)
  std::string paranoid;
  if (!read_first_line("/proc/sys/kernel/perf_event_paranoid", paranoid)) paranoid = "?";
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return fmt::format("yes (perf_event_paranoid={})", paranoid);
  }
  return fmt::format("no: perf_event_open(cycles) failed: {} (perf_event_paranoid={})", errno_text(errno), paranoid);
#else
  return unknown("not probed");
#endif
}

// Kernel, OS, load, performance counters.
void add_os(Collector& c) {
  struct utsname u;
  c.add("kernel", ::uname(&u) == 0 ? std::string(u.release) : unknown("uname: " + errno_text(errno)));

  std::string os = unknown("no PRETTY_NAME in /etc/os-release");
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    std::ifstream in(path);
    std::string line;
    bool found = false;
    while (std::getline(in, line)) {
      if (line.compare(0, 12, "PRETTY_NAME=") != 0) continue;
      std::string v = trim(line.substr(12));
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
      os = v;
      found = true;
      break;
    }
    if (found) break;
  }
  c.add("os", os);

  std::string load;
  if (read_first_line("/proc/loadavg", load))
    c.add("loadavg_1m", load.substr(0, load.find(' ')));
  else
    c.add("loadavg_1m", unknown("/proc/loadavg not readable"));

  c.add("perf_counters", probe_perf_counters());
}

// Build: compiler, flags, build type, sanitizers.
void add_build(Collector& c) {
#if defined(__clang__)
  c.add("compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  c.add("compiler", std::string("gcc ") + __VERSION__);
#else
  c.add("compiler", unknown("neither gcc nor clang"));
#endif

  std::string flags;
#if defined(RIGCHECK_CXX_FLAGS)
  flags = macro_text(RIGCHECK_INV_STR(RIGCHECK_CXX_FLAGS));
  c.add("cxx_flags", flags.empty() ? std::string("(none)") : flags);
#else
  c.add("cxx_flags", unknown("RIGCHECK_CXX_FLAGS not defined"));
#endif
#if defined(RIGCHECK_BUILD_TYPE)
  c.add("build_type", macro_text(RIGCHECK_INV_STR(RIGCHECK_BUILD_TYPE)));
#else
  c.add("build_type", unknown("RIGCHECK_BUILD_TYPE not defined"));
#endif

  // Sanitizers: named by -fsanitize= in the flags (GCC has no macro for UBSan),
  // then those the compiler announces.
  std::vector<std::string> san;
  auto add_san = [&](const std::string& s) {
    if (!s.empty() && std::find(san.begin(), san.end(), s) == san.end()) san.push_back(s);
  };
  for (std::size_t pos = flags.find("-fsanitize="); pos != std::string::npos;
       pos = flags.find("-fsanitize=", pos + 1)) {
    const std::size_t b = pos + 11;
    const std::string list = flags.substr(b, flags.find_first_of(kWhitespace, b) - b);
    std::size_t s = 0;
    while (s <= list.size()) {
      const std::size_t e = std::min(list.find(',', s), list.size());
      add_san(list.substr(s, e - s));
      s = e + 1;
    }
  }
#if defined(__SANITIZE_ADDRESS__)
  add_san("address");
#endif
#if defined(__SANITIZE_THREAD__)
  add_san("thread");
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  add_san("address");
#endif
#if __has_feature(thread_sanitizer)
  add_san("thread");
#endif
#if __has_feature(memory_sanitizer)
  add_san("memory");
#endif
#endif
  c.add("sanitizers", san.empty() ? std::string("none") : join(san, ","));
}

// oneDNN, LibTorch and OpenBLAS: versions as linked, and the environment that steers them.
void add_libraries(Collector& c) {
#if defined(RIGCHECK_HAVE_DNNL) && RIGCHECK_HAVE_DNNL
  // dnnl_version() only reads constants; nothing here may fix the ISA cap
  // (no dnnl_get_effective_cpu_isa), which the benchmarks set later.
  const dnnl_version_t* v = dnnl_version();
  if (v != nullptr) {
    c.add("onednn_version",
          fmt::format("{}.{}.{} ({})", v->major, v->minor, v->patch, v->hash != nullptr ? v->hash : "no hash"));
    std::string rt;
    switch (v->cpu_runtime) {
      case DNNL_RUNTIME_NONE: rt = "none"; break;
      case DNNL_RUNTIME_SEQ: rt = "seq"; break;
      case DNNL_RUNTIME_OMP: rt = "omp"; break;
      case DNNL_RUNTIME_TBB: rt = "tbb"; break;
      case DNNL_RUNTIME_THREADPOOL: rt = "threadpool"; break;
      case DNNL_RUNTIME_SYCL: rt = "sycl"; break;
      default: rt = unknown(fmt::format("runtime code {}", v->cpu_runtime));
    }
    c.add("onednn_cpu_runtime", rt);
  } else {
    c.add("onednn_version", unknown("dnnl_version() returned null"));
    c.add("onednn_cpu_runtime", unknown("dnnl_version() returned null"));
  }
#else
  c.add("onednn_version", unknown("built without oneDNN"));
  c.add("onednn_cpu_runtime", unknown("built without oneDNN"));
#endif
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (isa == nullptr) isa = std::getenv("DNNL_MAX_CPU_ISA");
  c.add("onednn_max_cpu_isa_env", isa != nullptr ? std::string(isa) : std::string("unset"));

#if defined(RIGCHECK_HAVE_TORCH) && RIGCHECK_HAVE_TORCH
  c.add("torch_version", TORCH_VERSION);
#else
  c.add("torch_version", unknown("built without LibTorch"));
#endif

#if defined(RIGCHECK_HAVE_OPENBLAS) && RIGCHECK_HAVE_OPENBLAS
  const char* cfg = openblas_get_config();
  const std::string config = cfg != nullptr ? trim(cfg) : std::string();
  // The configuration starts "OpenBLAS 0.3.21 ...".
  std::string version = unknown("no version in openblas_get_config()");
  if (config.compare(0, 9, "OpenBLAS ") == 0) {
    const std::string rest = config.substr(9);
    version = rest.substr(0, rest.find(' '));
  }
  const char* core = openblas_get_corename();
  c.add("openblas_version", version);
  c.add("openblas_corename", core != nullptr ? std::string(core) : unknown("null corename"));
  c.add("openblas_config", config.empty() ? unknown("empty openblas_get_config()") : config);
  c.add("openblas_num_threads", std::to_string(openblas_get_num_threads()));
#else
  for (const char* k : {"openblas_version", "openblas_corename", "openblas_config", "openblas_num_threads"})
    c.add(k, unknown("built without OpenBLAS"));
#endif
  c.add("openblas_coretype_env", env_or_unset("OPENBLAS_CORETYPE"));
  c.add("openblas_l2_size_env", env_or_unset("OPENBLAS_L2_SIZE"));
  c.add("openblas_num_threads_env", env_or_unset("OPENBLAS_NUM_THREADS"));
  c.add("omp_num_threads_env", env_or_unset("OMP_NUM_THREADS"));
  // The benchmark binaries' driver and the topology library, as the build found them (distributions
  // differ: Debian 12 has Google Benchmark 1.7.1 and hwloc 2.9, Debian 13 1.9.1 and 2.12).
#if defined(RIGCHECK_BENCHMARK_VERSION)
  const std::string gbench = RIGCHECK_BENCHMARK_VERSION;
#else
  const std::string gbench;
#endif
  c.add("benchmark_version", gbench.empty() ? unknown("the build found no Google Benchmark version") : gbench);
  // hwloc's release (2.9.0 on Debian 12); the library's own answer, its API version (2.8.0 there), is
  // hwloc_api_version in the topology section.
  c.add("hwloc_version", hwloc_release());
}

std::string hwloc_release() {
#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC && defined(RIGCHECK_HWLOC_VERSION)
  const std::string v = RIGCHECK_HWLOC_VERSION;
  return v.empty() ? unknown("the build found no hwloc version (pkg-config)") : v;
#else
  return unknown("built without hwloc");
#endif
}

// External tools the I/O and MPI benchmarks use.
void add_tools(Collector& c) {
  const std::string fio = first_line_of(run_command("fio --version 2>/dev/null").output);
  c.add("fio_version", fio.empty() ? unknown("fio not found") : fio);
  const std::string mpi = first_line_of(run_command("mpirun --version 2>/dev/null").output);
  c.add("mpi_version", mpi.empty() ? unknown("mpirun not found") : mpi);
}

// The environment variables that change what the benchmarks do, as the user had them. The thread
// caps are cleared in every benchmark process (harness.cpp), so that the counts swept can run.
namespace {
// Each variable's value (or "unset") under PREFIX + its name in lower case.
void add_env_vars(Collector& c, const std::string& prefix, std::initializer_list<const char*> vars) {
  for (const char* v : vars) {
    std::string key = prefix + v;
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char ch) { return std::tolower(ch); });
    c.add(key, env_or_unset(v));
  }
}
}  // namespace

// Inside a Slurm allocation (sbatch, salloc, srun): the job, its nodes and cluster, from the
// variables Slurm sets; "unset" outside one (docs/multi-node.md "Slurm").
void add_slurm(Collector& c) {
  add_env_vars(c, "",
               {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES", "SLURM_CLUSTER_NAME",
                "SLURM_JOB_PARTITION", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE"});
}

void add_environment(Collector& c) {
  c.add("env_cuda_visible_devices", env_or_unset("CUDA_VISIBLE_DEVICES"));
  c.add("env_nccl_socket_ifname", env_or_unset("NCCL_SOCKET_IFNAME"));
  add_env_vars(c, "env_",
               {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_THREAD_LIMIT", "OMP_PROC_BIND",
                "OMP_PLACES", "ONEDNN_MAX_CPU_ISA", "ATEN_CPU_CAPABILITY"});
}

}  // namespace rigcheck::inventory_detail
