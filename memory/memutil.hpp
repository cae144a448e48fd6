// What the memory benchmarks share: page-aligned anonymous buffers with a chosen huge-page
// advice and the proof of what the kernel gave (AnonHugePages from /proc/self/smaps), the THP
// settings, a fast random stream, and the plateau detection of a latency curve.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck::mem {

// madvise advice applied to a buffer before its first touch.
enum class Pages { none, huge, nohuge };  // none: no advice (the system's default)
const char* to_string(Pages p);           // "default", "thp", "4k" (as used in params)

constexpr size_t kHugePage = size_t(2) << 20;

// An anonymous private mapping aligned to 2 MiB (so that huge pages can back all of it), with
// the advice applied; not touched. Throws std::runtime_error when mmap or madvise fails.
class Buffer {
 public:
  Buffer() = default;
  Buffer(size_t bytes, Pages advice);
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return p_; }
  size_t bytes() const { return bytes_; }
  Pages advice() const { return advice_; }
  // Bytes of this buffer backed by transparent huge pages now (AnonHugePages of the mappings
  // that overlap it, from /proc/self/smaps). -1 when smaps is not readable.
  int64_t huge_bytes() const;
  // Writes one byte per 4 KiB page with `threads` threads (first touch), so every page is
  // resident.
  void touch(int threads);

 private:
  void release();
  void* p_ = nullptr;
  size_t bytes_ = 0;
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  Pages advice_ = Pages::none;
};

// Sum of AnonHugePages (bytes) over the mappings of /proc/self/smaps that overlap [p, p + n);
// -1 when smaps is not readable.
int64_t anon_huge_bytes(const void* p, size_t n);

// The bracketed choice of /sys/kernel/mm/transparent_hugepage/<file> ("madvise"), or
// "unknown (...)" when not readable. Read only: no system setting is ever changed.
std::string thp_setting(const std::string& file);

// The largest L3 the sysfs cache description gives (bytes of one instance x instances), 0 when
// sysfs says nothing (as on some VMs).
uint64_t sysfs_l3_total_bytes();

// Free memory the kernel says can be had without swapping (MemAvailable), bytes; -1 unknown.
int64_t mem_available_bytes();

// What this process may still take: MemAvailable, or less where a memory limit is nearer (a cgroup's
// memory.max or memory.limit_in_bytes less what the cgroup uses now; Slurm's SLURM_MEM_PER_NODE);
// `what` names the bound, for a skip's reason. bytes -1: unknown.
struct Headroom {
  int64_t bytes = -1;
  std::string what;
};
Headroom memory_headroom();

// The NUMA nodes this thread's memory policy binds new pages to (get_mempolicy: MPOL_BIND or
// MPOL_PREFERRED's nodes), as "0" or "0,1"; "" under the default policy (first touch, the local node).
// The harness sets it per case (placement): buffers kept across cases are kept per policy.
std::string memory_policy_nodes();

// splitmix64: a fast, good 64-bit random stream.
struct SplitMix {
  uint64_t s;
  explicit SplitMix(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }
};

// Sattolo's algorithm: a random permutation of 0..n-1 that is ONE cycle (next[i] is the
// successor of i). n >= 2.
std::vector<uint32_t> random_cycle(uint32_t n, uint64_t seed);

// ----------------------------------------------------------------- plateau detection
// A point of a latency curve: buffer size and latency per load (median over repetitions).
struct CurvePoint {
  double bytes;
  double ns;
};
// One memory level found on the curve.
struct Level {
  std::string name;       // L1, L2, L3, (L4...), DRAM
  double size_bytes = 0;  // caches: the largest buffer still on the plateau; DRAM: 0
  double latency_ns = 0;  // caches: median latency of the plateau's points; DRAM: at the largest buffer
  double first_bytes = 0, last_bytes = 0;  // the plateau's extent on the curve
  int points = 0;
};
struct PlateauOptions {
  double within = 0.5;                      // a point joins a plateau when <= (1 + within) x the plateau's median
  double level_ratio = 2.0;                 // neighbouring plateaus closer than this ratio are one level
  int min_points = 2;                       // fewer points: a transition, not a level
  double dram_from_bytes = 64.0 * 1048576;  // the last level is DRAM when the curve reaches this size
  // A plateau slower than this is memory, not a cache: it and every larger run are one DRAM level.
  // Caches load in ~1-50 ns (AMD L3 ~10-20, Intel mesh L3 ~20-40, eDRAM L4 ~40-50), DRAM in
  // >= 70 ns; in a VM the DRAM side rises in steps (host page walks) that must not become an "L4".
  double dram_above_ns = 60.0;
};
// Finds the plateaus of a latency curve (points in ascending size; see docs/methodology.md).
std::vector<Level> find_levels(const std::vector<CurvePoint>& curve, const PlateauOptions& opt = {});

}  // namespace rigcheck::mem
