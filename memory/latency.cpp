// memory_latency: load-to-use latency by pointer chasing over ONE random cyclic permutation of
// the cache lines of a buffer (Sattolo's algorithm: no hardware prefetcher can guess the next
// line), sizes 4 KiB to 1 GiB, with 4 KiB pages (MADV_NOHUGEPAGE) and with 2 MiB pages
// (MADV_HUGEPAGE, AnonHugePages read back from /proc/self/smaps to prove it took). ns per load
// per repetition is derived (metric ns_per_load), and the curve's plateaus are written as
// measured cache levels (benchmark latency_levels). A second curve is measured while every
// other core streams through memory (loaded latency).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <thread>

#include <pthread.h>

#include <fmt/format.h>

#include "memutil.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/machine_topology.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck::mem {
namespace {

constexpr size_t kLine = 64;  // one pointer per cache line

// One buffer per page kind, as large as the largest size of its curve, allocated and touched once
// at the curve's first case (the sizes grow: a buffer regrown at each size touched twice the largest
// with 4 KiB pages, 3.4 times with 2 MiB pages at 2 sizes per octave; the first touch was 42% of
// this binary's samples in the quick profile, perf). One per memory policy too: on a machine of
// several NUMA nodes the harness binds each case's memory to its nodes (placement), and the
// matrix's cases each to one node.
Buffer& chase_buffer(Pages pages, size_t bytes) {
  static std::map<std::pair<Pages, std::string>, Buffer> bufs;
  Buffer& b = bufs[{pages, memory_policy_nodes()}];
  if (b.bytes() < bytes) {
    b = Buffer();
    b = Buffer(bytes, pages);
    b.touch(omp_get_num_procs());
  }
  return b;
}

// Streams through memory on every core but the chasing one until stopped (loaded latency).
class Streamers {
 public:
  Streamers(int n, size_t bytes_each) : bufs_(buffers(n, bytes_each)) {
    for (int i = 0; i < n; ++i)
      threads_.emplace_back([this, i] {
        pthread_setname_np(pthread_self(), "rc-streamer");  // named: the thread check's notes name it
        double* a = static_cast<double*>(bufs_[i].data());
        const size_t n2 = bufs_[i].bytes() / sizeof(double) / 2;
        double* b = a + n2;
        for (size_t k = 0; k < 2 * n2; ++k) a[k] = 1.0 + static_cast<double>(k % 7);
        while (!stop_.load(std::memory_order_relaxed)) {
          for (size_t k = 0; k < n2; ++k) b[k] = a[k] + 0.5 * b[k];  // 2 reads, 1 write
          passes_.fetch_add(1, std::memory_order_relaxed);
        }
      });
  }
  ~Streamers() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }

 private:
  // Two arrays per streaming thread, kept across cases (first touch is slow: docs/machines.md).
  static std::vector<Buffer>& buffers(int n, size_t bytes_each) {
    static std::vector<Buffer> b;
    while (static_cast<int>(b.size()) < n) {
      b.emplace_back(2 * bytes_each, Pages::huge);
      b.back().touch(1);
    }
    return b;
  }
  std::vector<Buffer>& bufs_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<long> passes_{0};
};

class Chase final : public Kernel {
 public:
  // `largest`: the largest size of this case's curve, the buffer's size.
  Chase(Pages pages, size_t bytes, size_t largest, int64_t loads, int streamers)
      : buf_(chase_buffer(pages, std::max(bytes, largest))), bytes_(bytes), loads_(loads), streamers_(streamers) {
    const int64_t huge = buf_.huge_bytes();
    huge_bytes_ = huge;
    if (pages == Pages::huge && huge == 0)
      throw Skip(fmt::format("MADV_HUGEPAGE took no effect: AnonHugePages 0 of {} MiB (THP {}, defrag {})",
                             buf_.bytes() >> 20, thp_setting("enabled"), thp_setting("defrag")));
    nodes_ = static_cast<uint32_t>(bytes / kLine);
    next_ = random_cycle(nodes_, 0x5eed + bytes);
    char* base = static_cast<char*>(buf_.data());
    for (uint32_t i = 0; i < nodes_; ++i)
      *reinterpret_cast<char**>(base + size_t(i) * kLine) = base + size_t(next_[i]) * kLine;
    p_ = base;
  }
  ~Chase() override { stream_.reset(); }

  void run() override {
    if (streamers_ > 0 && !stream_) stream_ = std::make_unique<Streamers>(streamers_, stream_bytes_);
    void* p = p_;
    for (int64_t i = 0; i < loads_; i += 16) {
#pragma GCC unroll 16
      for (int u = 0; u < 16; ++u) p = *static_cast<void**>(p);
    }
    p_ = p;
    sink_ = p;
  }

  // Every node's pointer is the permutation's successor (a sequential scan of the whole
  // buffer), and a walk of the first min(nodes, 2^16) loads visits exactly the permutation's
  // sequence, with no early return to the start (Sattolo's permutation is one cycle: unit test).
  // 2^16, not 2^20: beyond the caches each load of the walk waits for memory; with 2^20
  // the check was 26% of this binary's samples in the quick profile (perf, 25 s in all).
  CheckResult check() override {
    CheckResult r;
    char* base = static_cast<char*>(buf_.data());
    for (uint32_t i = 0; i < nodes_; ++i, ++r.checked)
      if (*reinterpret_cast<char**>(base + size_t(i) * kLine) != base + size_t(next_[i]) * kLine) ++r.wrong;
    const uint32_t walk = std::min<uint32_t>(nodes_, 1u << 16);
    void* p = base;
    uint32_t idx = 0;
    for (uint32_t k = 1; k <= walk; ++k, ++r.checked) {
      p = *static_cast<void**>(p);
      idx = next_[idx];
      const bool back_at_start = p == base;
      if (p != base + size_t(idx) * kLine || (back_at_start && k < nodes_)) ++r.wrong;
    }
    if (walk == nodes_ && p != base) ++r.wrong;  // the full cycle must close
    r.worst = r.wrong ? INFINITY : 0;
    r.method = fmt::format("{} node pointers vs the permutation, and a {}-load walk along it ({})", nodes_, walk,
                           walk == nodes_ ? "the whole cycle, closing at the start" : "a prefix of the cycle");
    p_ = base;
    return r;
  }

  Params facts() const override {
    return {{"buffer_anon_huge_bytes", std::to_string(huge_bytes_)},
            {"buffer_bytes", std::to_string(buf_.bytes())},
            {"thp_enabled", thp_setting("enabled")},
            {"thp_defrag", thp_setting("defrag")}};
  }

 private:
  Buffer& buf_;
  size_t bytes_;
  int64_t loads_;
  int streamers_;
  size_t stream_bytes_ = size_t(64) << 20;  // per array; two per streaming thread
  uint32_t nodes_ = 0;
  std::vector<uint32_t> next_;
  void* p_ = nullptr;
  int64_t huge_bytes_ = -1;
  std::unique_ptr<Streamers> stream_;
  static inline void* volatile sink_ = nullptr;
};

// Sizes: 4 KiB up to the largest, `per_octave` points per octave, rounded to 4 KiB.
std::vector<int64_t> curve_sizes(const CommonOptions& o, int per_octave, int64_t largest) {
  if (!o.sizes.empty()) return o.sizes;
  std::vector<int64_t> s;
  const int steps = static_cast<int>(std::lround(std::log2(largest / 4096.0) * per_octave));
  for (int k = 0; k <= steps; ++k) {
    int64_t v = static_cast<int64_t>(std::llround(4096.0 * std::pow(2.0, double(k) / per_octave) / 4096.0)) * 4096;
    if (s.empty() || v > s.back()) s.push_back(v);
  }
  return s;
}

int64_t loads_for(const CommonOptions& o) { return o.profile == Profile::tiny ? 1 << 14 : 1 << 16; }

std::vector<Case> chase_cases(const CommonOptions& o, bool loaded) {
  std::vector<Case> cs;
  const int64_t largest = o.profile == Profile::tiny ? int64_t(16) << 20 : int64_t(1) << 30;
  const int64_t loads = loads_for(o);
  const int streamers = loaded ? o.physical_cores - 1 : 0;
  const std::vector<Pages> kinds =
      loaded ? std::vector<Pages>{Pages::huge} : std::vector<Pages>{Pages::huge, Pages::nohuge};
  for (Pages pg : kinds) {
    // The idle 2 MiB-page curve is the one the levels are read from: 2 points per octave in the
    // quick profile; the 4 KiB-page and loaded curves 1 (the memory area's 2-minute budget).
    const bool fine = !loaded && pg == Pages::huge && o.profile == Profile::quick;
    const int per_octave = o.profile == Profile::full ? 4 : fine ? 2 : 1;
    const std::vector<int64_t> sizes = curve_sizes(o, per_octave, largest);
    const int64_t biggest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    for (int64_t bytes : sizes) {
      Case c;
      c.name = fmt::format("{}/{}", to_string(pg), bytes);
      c.params = {{"pages", to_string(pg)},
                  {"bytes", std::to_string(bytes)},
                  {"loads", std::to_string(loads)},
                  {"streaming_threads", std::to_string(streamers)}};
      c.threads = 1 + streamers;
      c.make = [pg, bytes, biggest, loads, streamers, loaded]() -> std::unique_ptr<Kernel> {
        if (loaded && streamers < 1)
          throw Skip("loaded latency needs at least 2 cores (one chases, the others stream)");
        if (bytes < 2 * int64_t(kLine)) throw Skip("a buffer of fewer than 2 cache lines has no cycle");
        return std::make_unique<Chase>(pg, static_cast<size_t>(bytes), static_cast<size_t>(biggest), loads, streamers);
      };
      cs.push_back(std::move(c));
    }
  }
  return cs;
}

// The matrix: the chase (2 MiB pages) from the first core of each host NUMA node to a buffer on each
// node, one thread, at one size far beyond the caches (256 MiB; tiny: 16 MiB). On a machine of one
// host node, one skipped case saying so.
std::vector<Case> numa_cases(const CommonOptions& o) {
  std::vector<Case> cs;
  const std::vector<std::pair<int, int>> nodes = node_core_counts(this_machine(), o.allowed_cpus);
  const int64_t bytes = o.profile == Profile::tiny ? int64_t(16) << 20 : int64_t(256) << 20;
  const int64_t loads = loads_for(o);
  if (nodes.size() < 2) {
    Case c;
    c.name = "matrix";
    c.params = {{"pages", to_string(Pages::huge)}, {"bytes", std::to_string(bytes)}};
    skip_case(c, fmt::format("the latency matrix needs two host NUMA nodes with allowed CPUs (this process: {})",
                             nodes.size()));
    cs.push_back(std::move(c));
    return cs;
  }
  for (const auto& cpu : nodes)
    for (const auto& mem : nodes) {
      Case c;
      c.name = fmt::format("cpu{}/mem{}", cpu.first, mem.first);
      c.params = {{"pages", to_string(Pages::huge)},
                  {"bytes", std::to_string(bytes)},
                  {"loads", std::to_string(loads)},
                  {"threads", "1"},
                  {"numa_node", std::to_string(cpu.first)},
                  {"memory_node", std::to_string(mem.first)},
                  {"memory", cpu.first == mem.first ? "local" : "remote"}};
      c.numa_node = cpu.first;
      c.memory_node = mem.first;
      c.make = [bytes, loads]() -> std::unique_ptr<Kernel> {
        return std::make_unique<Chase>(Pages::huge, static_cast<size_t>(bytes), static_cast<size_t>(bytes), loads, 0);
      };
      cs.push_back(std::move(c));
    }
  return cs;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_memory_latency = declare_entry(
    {"memory_latency", "memory", "--min-time 0.02", "", "", 60, 240, 1800,
     R"(random cyclic pointer chase 4 KiB..1 GiB, 4 KiB and 2 MiB pages, idle and loaded; cache levels found on
the curve (MEM-3 figures))",
     true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(random cyclic pointer chase 4 KiB..1 GiB with 4 KiB and 2 MiB pages (AnonHugePages read back), ns per
load; cache levels found on the curve (`latency_levels`: `level_size_bytes`, `level_latency_ns` per L1,
L2, L3, DRAM, beside the nominal sizes); the same curve with the other cores streaming;
`memory_latency_numa`: the chase (2 MiB pages, 256 MiB) from each NUMA node's first core to each node's
memory, local and remote (MLC's matrix; one skipped case on a machine of one node))",
     "MEM-3 (figures for a second run)"});
// The cache levels found on the curve: rows derived from memory_latency's (register_derived_rows below).
const bool writes_levels = declare_writes({names::kLatencyLevels});

const bool lat = register_benchmark({names::kMemoryLatency,
                                     "random cyclic pointer chase, 4 KiB to 1 GiB, 4 KiB and 2 MiB pages (ns per load)",
                                     [](const CommonOptions& o) { return chase_cases(o, false); }});
const bool lat_loaded = register_benchmark(
    {names::kMemoryLatencyLoaded, "the same chase (2 MiB pages) while every other core streams through memory",
     [](const CommonOptions& o) { return chase_cases(o, true); }});

ResultRow derived(const ResultRow& from, const std::string& metric, double value, const std::string& unit) {
  ResultRow d = from;
  d.metric = metric;
  d.value = value;
  d.unit = unit;
  return d;
}

// ns_per_load for every repetition: time_per_iter / loads.
std::vector<ResultRow> ns_rows(const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  for (const ResultRow& r : rows)
    if (r.metric == "time_per_iter") {
      const double loads = std::atof(param_value(r.params, "loads").c_str());
      if (loads > 0) out.push_back(derived(r, names::kNsPerLoad, r.value / loads * 1e9, "ns"));
    }
  return out;
}

// The inventory's nominal size of a level (sysfs), for the row's params.
std::string nominal(const std::string& level) {
  const char* idx = level == "L1" ? "index0" : level == "L2" ? "index2" : level == "L3" ? "index3" : nullptr;
  if (!idx) return "n/a";
  std::ifstream f(std::string("/sys/devices/system/cpu/cpu0/cache/") + idx + "/size");
  std::string s;
  return f >> s ? s : "unknown (no sysfs cache information)";
}

const bool lat_rows = register_derived_rows(names::kMemoryLatency, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out = ns_rows(rows);
  // One curve per page kind: median ns per load of each size over its ok repetitions; a size
  // with none ok (another process took the CPU) uses its mistrusted ones, and the levels found
  // on such a curve are marked mistrusted.
  struct Pt {
    std::vector<double> ok, other;
  };
  std::map<std::string, std::map<double, Pt>> curves;
  for (const ResultRow& r : out) {
    if (r.status != Status::ok && r.status != Status::mistrusted) continue;
    Pt& p = curves[param_value(r.params, "pages")][std::atof(param_value(r.params, "bytes").c_str())];
    (r.status == Status::ok ? p.ok : p.other).push_back(r.value);
  }
  for (auto& [pg, pts] : curves) {
    std::vector<CurvePoint> curve;
    int doubtful = 0;
    for (auto& [b, p] : pts) {
      doubtful += p.ok.empty();
      curve.push_back({b, summarize(p.ok.empty() ? p.other : p.ok).median});
    }
    for (const Level& l : find_levels(curve)) {
      ResultRow base;
      base.benchmark = names::kLatencyLevels;
      base.case_name = pg + "/" + l.name;
      base.params = fmt::format(
          "level={};pages={};curve=memory_latency;first_bytes={:.0f};last_bytes={:.0f};points={};nominal_size={};"
          "latency_at={}",
          l.name, pg, l.first_bytes, l.last_bytes, l.points, nominal(l.name),
          l.name == "DRAM" ? "largest buffer" : "median of the plateau");
      base.repetition = -1;
      base.status = doubtful ? Status::mistrusted : Status::ok;
      base.note = doubtful ? fmt::format(
                                 "{} of {} sizes had only mistrusted repetitions (their notes say why: another "
                                 "process, or emulation)",
                                 doubtful, curve.size())
                           : "found by the plateau detection of docs/methodology.md on the median curve";
      if (l.name != "DRAM") out.push_back(derived(base, names::kLevelSizeBytes, l.size_bytes, "B"));
      out.push_back(derived(base, "level_latency_ns", l.latency_ns, "ns"));
    }
  }
  return out;
});
const bool lat_loaded_rows = register_derived_rows(names::kMemoryLatencyLoaded, ns_rows);
const bool lat_numa = register_benchmark(
    {names::kMemoryLatencyNuma, "the chase (2 MiB pages, 256 MiB) from each NUMA node's cores to each node's memory",
     numa_cases});
const bool lat_numa_rows = register_derived_rows(names::kMemoryLatencyNuma, ns_rows);

}  // namespace
}  // namespace rigcheck::mem
