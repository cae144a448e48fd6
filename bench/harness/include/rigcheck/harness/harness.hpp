// The harness every benchmark binary links. A benchmark file fills BenchmarkDef and registers
// it; the harness owns main(), the CLI, set-up, the correctness check, timing (Google
// Benchmark), statistics and the CSV (docs/architecture.md, conventions 1-3, 6-8).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/registry_entry.hpp"
#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

// Work model of ONE iteration; every derived rate comes from it (docs/methodology.md).
struct Work {
  double flops = 0;  // floating-point operations (an FMA counts 2)
  double bytes = 0;  // bytes moved to or from memory
  double items = 0;  // items processed (images, tokens...): adds an `items_per_s` row, unit "<items_unit>/s"
  std::string items_unit;
};

// Outcome of comparing a kernel's output with a reference on random inputs.
struct CheckResult {
  int64_t checked = 0;  // elements (or values) compared
  int64_t wrong = 0;    // beyond tolerance: any wrong element fails the case
  double worst = 0;     // largest |error| / tolerance seen (<= 1 passes)
  std::string method;   // how: reference, tolerance, what was sampled

  // One value compared: its |error| / tolerance (<= 1 passes; NaN is wrong and counts as infinite).
  void add(double ratio) {
    ++checked;
    if (!(ratio <= 1)) ++wrong;
    worst = std::max(worst, std::isnan(ratio) ? INFINITY : ratio);
  }
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Runs the kernel on its random inputs and compares with a reference. Called once, before
  // any timing, on the very object that is then timed.
  virtual CheckResult check() = 0;
  // One timed iteration.
  virtual void run() = 0;
  // Called before each repetition is timed, after the harness set the OpenMP pool to the case's
  // threads: a kernel whose library keeps thread settings of its own (LibTorch's at::set_num_threads)
  // makes them current here, since interleaved cases (Case::interleave) share the process.
  virtual void before_repetition() {}
  // Facts found at set-up (the implementation dispatched, the ISA in effect...), added to params.
  virtual Params facts() const { return {}; }
  // Cases with Case::manual_time: one timed iteration, returning its duration in seconds as the
  // kernel measured it (CUDA events on the GPU). The harness uses it instead of the wall clock.
  virtual double run_timed() {
    run();
    return 0;
  }
  // Quantities observed over the whole case (power, temperature, clocks sampled while it ran),
  // written once after its last repetition as rows with repetition -1.
  struct Observed {
    std::string metric, unit;
    double value = 0;
    std::string note;
  };
  virtual std::vector<Observed> observed() { return {}; }
};

// Thrown by Case::make when this machine cannot run the case (missing ISA, unsupported type).
// `observed`: what was learnt before the case had to stop (e.g. how much device memory a training
// step had taken when it ran out), written after the skip row with status skipped and repetition
// -1, each with its metric, value, unit and note.
struct Skip : std::runtime_error {
  using std::runtime_error::runtime_error;
  Skip(const std::string& why, std::vector<Kernel::Observed> rows)
      : std::runtime_error(why), observed(std::move(rows)) {}
  std::vector<Kernel::Observed> observed;
};

struct Case {
  std::string name;  // unique within the benchmark, e.g. "m2048n2048k2048/t2"
  Params params;     // parameters as key=value
  Work work;         // per iteration
  int threads = 1;   // worker threads the case uses (OpenMP pool size is set to it)
  // A case of one NUMA node (the memory area's per-node figures): its threads on the cores of host
  // node `numa_node` (os_index) and its memory bound to `memory_node` (-1: that node), in place of
  // the sweep's placement (--placement). -1: the sweep's.
  int numa_node = -1;
  int memory_node = -1;
  // Timed by the kernel itself (Kernel::run_timed, e.g. CUDA events) instead of the wall clock;
  // the CPU-share mistrust rule does not apply (the host only waits for the device).
  bool manual_time = false;
  // Cases of one benchmark with the same non-empty key are compared with each other (E(n) = X(n) /
  // (n X(1)), capped vs native...): the harness makes and checks all their kernels first, then runs
  // their repetitions alternately in this process (repetition 0 of each in case order, then
  // repetition 1 of each, ...), so that drift of the machine lands in both sides of a ratio alike
  // and repetition i of each case forms one pair. Their rows carry `interleaved=<key>`.
  std::string interleave;
  std::function<std::unique_ptr<Kernel>()> make;
};

// Makes `c` a case this machine cannot run: making it throws Skip(why), so its row says skipped with the reason.
inline void skip_case(Case& c, std::string why) {
  c.make = [why = std::move(why)]() -> std::unique_ptr<Kernel> { throw Skip(why); };
}

struct BenchmarkDef {
  std::string name;         // the CSV's `benchmark` column, e.g. gemm_matmul_f32
  std::string description;  // one line, for --list
  // The cases to run for these options (profile, --threads, --sizes...).
  std::function<std::vector<Case>(const CommonOptions&)> cases;
};

// Registers a benchmark; use at namespace scope: static const bool r = register_benchmark({...});
bool register_benchmark(BenchmarkDef def);

// Optional, beside a benchmark: rows derived from its measured rows once all cases of the binary
// have run (e.g. a latency curve's plateaus). `derive` gets every row the harness wrote for the
// benchmark named (ok or not); the rows it returns are appended to the same CSV (run_id filled
// in when empty). Use at namespace scope like register_benchmark.
using DeriveRows = std::function<std::vector<ResultRow>(const std::vector<ResultRow>&)>;
bool register_derived_rows(const std::string& benchmark, DeriveRows derive);

// Default thread list (--threads overrides): every count 1..usable cores up to 4 cores (8 in the
// full profile); beyond that powers of two plus the core count (1,2,4,8,...,max); and the machine's
// domains (one L3's cores, one NUMA node's, one socket's) and the SMT point (every usable hardware
// thread, where more than the cores). Usable cores are the physical cores this process may run on
// (affinity mask and cgroup CPU quota, topology.hpp): a case with more threads than its hardware
// threads is skipped with the reason, never run oversubscribed.
std::vector<int64_t> default_threads(const CommonOptions& o);

// The harness's main(). Exit status: 0 all cases ran (ok or mistrusted), 1 a case failed,
// 2 bad command line or output, 77 every case was skipped (reason on stderr).
int harness_main(int argc, char** argv);

}  // namespace rigcheck
