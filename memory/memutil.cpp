#include "memutil.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <omp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/topology.hpp"

namespace rigcheck::mem {

const char* to_string(Pages p) {
  return enum_name(p, {{Pages::none, "default"}, {Pages::huge, "thp"}, {Pages::nohuge, "4k"}});
}

Buffer::Buffer(size_t bytes, Pages advice) : advice_(advice) {
  if (bytes == 0) throw std::runtime_error("Buffer: zero bytes");
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  map_bytes_ = rounded + kHugePage;
  map_ = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::runtime_error(fmt::format("mmap of {} bytes failed: {}", map_bytes_, std::strerror(errno)));
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(map_);
  const uintptr_t aligned = (base + kHugePage - 1) / kHugePage * kHugePage;
  p_ = reinterpret_cast<void*>(aligned);
  bytes_ = rounded;
  int adv = advice == Pages::huge ? MADV_HUGEPAGE : advice == Pages::nohuge ? MADV_NOHUGEPAGE : -1;
  if (adv >= 0 && ::madvise(p_, bytes_, adv) != 0) {
    const int e = errno;
    release();
    throw std::runtime_error(fmt::format("madvise({}) failed: {}",
                                         adv == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", std::strerror(e)));
  }
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    bytes_ = o.bytes_;
    map_ = o.map_;
    map_bytes_ = o.map_bytes_;
    advice_ = o.advice_;
    o.p_ = o.map_ = nullptr;
    o.bytes_ = o.map_bytes_ = 0;
  }
  return *this;
}

void Buffer::release() {
  if (map_) ::munmap(map_, map_bytes_);
  map_ = p_ = nullptr;
  bytes_ = map_bytes_ = 0;
}

int64_t Buffer::huge_bytes() const { return anon_huge_bytes(p_, bytes_); }

void Buffer::touch(int threads) {
  char* c = static_cast<char*>(p_);
  const int64_t pages = static_cast<int64_t>(bytes_ / 4096);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < pages; ++i) c[i * 4096] = 1;
}

int64_t anon_huge_bytes(const void* p, size_t n) {
  std::ifstream f("/proc/self/smaps");
  if (!f) return -1;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + n;
  std::string line;
  bool inside = false;
  int64_t total = 0;
  while (std::getline(f, line)) {
    uintptr_t a = 0, b = 0;
    // A mapping header: "start-end perms offset dev inode path".
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2 && line.find('-') < line.find(' ')) {
      inside = a < hi && b > lo;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      long long kb = 0;
      if (std::sscanf(line.c_str() + 14, "%lld", &kb) == 1) total += static_cast<int64_t>(kb) * 1024;
    }
  }
  return total;
}

std::string thp_setting(const std::string& file) {
  const std::string path = "/sys/kernel/mm/transparent_hugepage/" + file;
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return "unknown (" + path + " not readable)";
  auto b = line.find('['), e = line.find(']');
  if (b == std::string::npos || e == std::string::npos || e < b) return "unknown (no [choice] in " + path + ")";
  return line.substr(b + 1, e - b - 1);
}

uint64_t sysfs_l3_total_bytes() {
  // Sizes of L3 instances seen over every CPU, distinct by shared_cpu_list.
  std::vector<std::string> seen;
  uint64_t total = 0;
  for (int cpu = 0; cpu < 4096; ++cpu) {
    const std::string base = fmt::format("/sys/devices/system/cpu/cpu{}/cache/", cpu);
    if (::access(base.c_str(), R_OK) != 0) {
      if (::access(fmt::format("/sys/devices/system/cpu/cpu{}", cpu).c_str(), F_OK) != 0) break;
      continue;
    }
    for (int idx = 0; idx < 16; ++idx) {
      const std::string d = base + "index" + std::to_string(idx) + "/";
      std::ifstream lf(d + "level"), sf(d + "size"), shf(d + "shared_cpu_list");
      int level = 0;
      std::string size, shared;
      if (!(lf >> level)) break;
      if (level != 3 || !(sf >> size)) continue;
      std::getline(shf, shared);
      if (std::find(seen.begin(), seen.end(), shared) != seen.end()) continue;
      seen.push_back(shared);
      uint64_t v = std::strtoull(size.c_str(), nullptr, 10);
      const char u = size.empty() ? 0 : size.back();
      total += u == 'K' ? v << 10 : u == 'M' ? v << 20 : u == 'G' ? v << 30 : v;
    }
  }
  return total;
}

int64_t mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  long long kb = 0;
  std::string unit;
  while (f >> key >> kb) {
    std::getline(f, unit);
    if (key == "MemAvailable:") return static_cast<int64_t>(kb) * 1024;
  }
  return -1;
}

Headroom memory_headroom() {
  Headroom h;
  h.bytes = mem_available_bytes();
  h.what = h.bytes >= 0 ? fmt::format("MemAvailable is {:.1f} GiB", static_cast<double>(h.bytes) / 1073741824.0)
                        : "MemAvailable not readable";
  const CgroupMemoryLimit lim = cgroup_memory_limit();
  if (lim.bytes > 0) {
    const int64_t left = lim.bytes > lim.used ? static_cast<int64_t>(lim.bytes - lim.used) : 0;
    if (h.bytes < 0 || left < h.bytes) {
      h.bytes = left;
      h.what = fmt::format(
          "the memory limit leaves {:.1f} GiB ({:.1f} GiB, {}{})", static_cast<double>(left) / 1073741824.0,
          static_cast<double>(lim.bytes) / 1073741824.0, lim.text,
          lim.used ? fmt::format(", {:.1f} GiB of it in use", static_cast<double>(lim.used) / 1073741824.0) : "");
    }
  }
  return h;
}

std::vector<uint32_t> random_cycle(uint32_t n, uint64_t seed) {
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  SplitMix r(seed);
  // Sattolo: j < i strictly, so the permutation is a single cycle.
  for (uint32_t i = n - 1; i > 0; --i) std::swap(order[i], order[r.below(i)]);
  return order;  // next[i] = order[i]: one cycle through all n
}

// ----------------------------------------------------------------- plateaus
std::vector<Level> find_levels(const std::vector<CurvePoint>& curve, const PlateauOptions& opt) {
  struct Run {
    size_t first, last;
    std::vector<double> ns;
    double median() const {
      std::vector<double> v = ns;
      std::sort(v.begin(), v.end());
      const size_t m = v.size() / 2;
      return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    }
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < curve.size(); ++i) {
    const double y = curve[i].ns;
    if (!(y > 0)) continue;
    if (!runs.empty() && y <= (1 + opt.within) * runs.back().median() && y >= runs.back().median() / (1 + opt.within)) {
      runs.back().last = i;
      runs.back().ns.push_back(y);
    } else {
      runs.push_back({i, i, {y}});
    }
  }
  auto close = [&opt](double a, double b) { return b < opt.level_ratio * a && a < opt.level_ratio * b; };
  // Runs too short to be a plateau are transitions between levels: dropped (the last run is kept
  // when it continues the one before it: the largest buffer belongs to the curve's last level).
  std::vector<Run> longer;
  for (size_t k = 0; k < runs.size(); ++k) {
    const bool last = k + 1 == runs.size();
    if (static_cast<int>(runs[k].ns.size()) >= opt.min_points ||
        (last && !longer.empty() && close(longer.back().median(), runs[k].median())))
      longer.push_back(runs[k]);
  }
  // Neighbouring runs whose medians are closer than level_ratio are one level (a slow rise,
  // e.g. TLB misses growing with the buffer).
  std::vector<Run> kept;
  double last_median = 0;
  for (const Run& r : longer) {
    const double m = r.median();
    if (!kept.empty() && close(last_median, m)) {
      kept.back().last = r.last;
      kept.back().ns.insert(kept.back().ns.end(), r.ns.begin(), r.ns.end());
    } else {
      kept.push_back(r);
    }
    last_median = m;
  }
  for (size_t k = 1; k < kept.size(); ++k)
    if (kept[k].median() > opt.dram_above_ns) {
      for (size_t j = k + 1; j < kept.size(); ++j) {
        kept[k].last = kept[j].last;
        kept[k].ns.insert(kept[k].ns.end(), kept[j].ns.begin(), kept[j].ns.end());
      }
      kept.resize(k + 1);
      break;
    }
  std::vector<Level> levels;
  const bool dram = kept.size() >= 2 && curve.back().bytes >= opt.dram_from_bytes;
  for (size_t k = 0; k < kept.size(); ++k) {
    Level l;
    const Run& r = kept[k];
    l.first_bytes = curve[r.first].bytes;
    l.last_bytes = curve[r.last].bytes;
    l.points = static_cast<int>(r.ns.size());
    if (dram && k + 1 == kept.size()) {
      l.name = "DRAM";
      l.size_bytes = 0;
      l.latency_ns = curve[r.last].ns;
    } else {
      l.name = fmt::format("L{}", k + 1);
      l.size_bytes = l.last_bytes;
      l.latency_ns = r.median();
    }
    levels.push_back(l);
  }
  return levels;
}

std::string memory_policy_nodes() {
  int mode = 0;
  std::vector<unsigned long> mask(16, 0);  // 1024 nodes
  const size_t bits = 8 * sizeof(unsigned long);
  if (syscall(SYS_get_mempolicy, &mode, mask.data(), mask.size() * bits, nullptr, 0) != 0) return "";
  std::string out;
  for (size_t n = 0; n < mask.size() * bits; ++n)
    if (mask[n / bits] >> (n % bits) & 1ul) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

}  // namespace rigcheck::mem
