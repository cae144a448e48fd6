// example_triad: the example of docs/adding-a-benchmark.md, built and run by CI (tests/examples)
// so that the walk-through cannot rot. It is not part of the suite's registry (data/benchmarks.csv)
// and never judges a claim; examples/benchmarks.csv registers it for `rigcheck run --benchmarks`.
//
// What it shows, in the order the doc walks through it:
//   1. a Kernel: random inputs (never zeros), check() against a reference, run() timed;
//   2. a work model per iteration (flops, bytes), from which the harness derives gflops and gbps;
//   3. a BenchmarkDef whose cases depend on the profile and the shared options (--sizes, --threads);
//   4. a Skip with the reason where this machine cannot run a case;
//   5. derived rows, computed once every case has run (here: the best bandwidth over the sizes).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::example {
namespace {

constexpr char kTriad[] = "example_triad";           // the CSV's `benchmark` column
constexpr char kTriadBest[] = "example_triad_best";  // its derived row's benchmark

// STREAM's triad, a[i] = b[i] + s * c[i], over n doubles on `threads` OpenMP threads.
class Triad final : public Kernel {
 public:
  Triad(size_t n, int threads) : a_(n), b_(n), c_(n), threads_(threads) {
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> d(0.5, 2.0);  // random, never zero
    for (size_t i = 0; i < n; ++i) b_[i] = d(gen), c_[i] = d(gen);
    s_ = d(gen);
  }
  void run() override {
    const double s = s_;
    double *a = a_.data(), *b = b_.data(), *c = c_.data();
    const long n = static_cast<long>(a_.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  }
  // Called once, before any timing, on the object that is then timed: the kernel's own output
  // against a scalar reference in long double, every element, within 1 ulp of the result.
  CheckResult check() override {
    std::fill(a_.begin(), a_.end(), std::nan(""));
    run();
    CheckResult r;
    r.method = "every element vs b + s*c in long double, tolerance 1 ulp (an FMA may round once)";
    for (size_t i = 0; i < a_.size(); ++i) {
      const long double ref = static_cast<long double>(b_[i]) + static_cast<long double>(s_) * c_[i];
      const double tol =
          std::nextafter(std::fabs(static_cast<double>(ref)), INFINITY) - std::fabs(static_cast<double>(ref));
      r.add(std::fabs(static_cast<double>(a_[i] - ref)) / tol);  // |error| / tolerance; NaN counts as wrong
    }
    return r;
  }
  Params facts() const override { return {{"omp_max_threads", std::to_string(omp_get_max_threads())}}; }

 private:
  std::vector<double> a_, b_, c_;
  double s_ = 1;
  int threads_;
};

// Its row of the benchmark registry (examples/benchmarks.csv here, data/benchmarks.csv for the suite's
// binaries): name, area, args, env, needs, the timeout of each profile (tiny, quick, full), description,
// and whether it keeps --time-budget. `example_triad --describe` prints it; scripts/registry.sh writes the file.
const bool entry = declare_entry({"example_triad", "cpu", "", "", "", 60, 120, 600,
                                  "the example of docs/adding-a-benchmark.md: STREAM triad on doubles", true});
// The benchmark names it writes beyond the one it registers: its derived row's (below).
const bool writes = declare_writes({kTriadBest});
// Its row of docs/benchmarks.md's table (the example's goes in no table): a variant's label (empty for the
// binary's own row), what it measures, the claims it feeds; Markdown kept. --describe prints it too.
const bool doc = declare_doc({"", "STREAM triad on doubles, the example of docs/adding-a-benchmark.md", "none"});

const bool triad = register_benchmark(
    {kTriad, "the example of docs/adding-a-benchmark.md: STREAM triad on doubles", [](const CommonOptions& o) {
       // --sizes overrides the profile's default: elements per array.
       std::vector<int64_t> sizes = o.sizes;
       if (sizes.empty())
         sizes = o.profile == Profile::tiny ? std::vector<int64_t>{1 << 12, 1 << 16}
                                            : std::vector<int64_t>{1 << 12, 1 << 16, 1 << 22};
       std::vector<Case> cs;
       for (int64_t n : sizes)
         for (int64_t t : default_threads(o)) {
           Case c;
           c.name = fmt::format("n{}/t{}", n, t);
           c.params = {{"n", std::to_string(n)}, {"threads", std::to_string(t)}, {"dtype", "f64"}};
           c.threads = static_cast<int>(t);
           c.work.flops = 2.0 * static_cast<double>(n);
           c.work.bytes = 3.0 * sizeof(double) * static_cast<double>(n);  // read b, c; write a
           c.make = [n, t]() -> std::unique_ptr<Kernel> {
             if (n < 1) throw Skip(fmt::format("--sizes {}: a triad needs at least one element", n));
             return std::make_unique<Triad>(static_cast<size_t>(n), static_cast<int>(t));
           };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

// Derived rows: from the rows the harness wrote for kTriad (ok or not), once all its cases ran.
// Only ok rows count; the note says what the figure is made of.
const bool best = register_derived_rows(kTriad, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  const ResultRow* top = nullptr;
  for (const ResultRow& r : rows)
    if (r.metric == names::kGbps && r.status == Status::ok && (!top || r.value > top->value)) top = &r;
  if (!top) return out;
  ResultRow d;
  d.benchmark = kTriadBest;
  d.case_name = "best";
  d.params = top->params;
  d.metric = names::kGbps;
  d.value = top->value;
  d.unit = top->unit;
  d.note = fmt::format("the highest ok repetition over every size and thread count ({})", top->case_name);
  out.push_back(d);
  return out;
});

}  // namespace
}  // namespace rigcheck::example
