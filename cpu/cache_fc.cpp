// cpu_cache_fc: the L3 working-set sweep (claims CPU-3, CPU-4). A fully connected layer (oneDNN
// inner product, f32, in = 2048 features) whose weights grow from 1 MiB to well past the
// last-level cache (8x the nominal L3, or 1 GiB when it is unknown), at batch 1 (16 in the full
// profile) and 64. Batch 1 streams the weights once per call (a GEMV): its GB/s falls where the
// weights stop fitting in the cache, and the report finds that knee, the measured effective L3.
// With both cores of the 2-core VM the repetitions spanned 50 to 420 GFLOP/s and the knee moved
// between runs; the question is the cache, so the sweep runs ONE thread pinned to one core (the
// harness's placement: the first core in hwloc's logical order; --threads sweeps others), with
// more and shorter repetitions (quick 11 x 0.05 s, full 21 x 0.1 s) whose median noise cannot move;
// Google Benchmark's iteration-count runs and the check before them are the warm-up. Measured
// in docs/performance.md ("The L3 working-set sweep").
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "kernels.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/inventory/inventory.hpp"

namespace rigcheck::cpu {
namespace {

constexpr int64_t kIn = 2048;  // input features: weights of W bytes have W / (4 kIn) outputs
constexpr int64_t kMiB = 1 << 20;

const bool reps_defaults = register_repetition_defaults({3, 11, 21}, {0.01, 0.05, 0.1});

std::vector<int64_t> sweep_sizes(const CommonOptions& o, std::string& basis) {
  if (!o.sizes.empty()) {
    basis = "--sizes";
    return o.sizes;
  }
  Inventory inv = collect_cache_inventory();
  std::string l3 = inventory_get(inv, "cache_l3_bytes");
  char* end = nullptr;
  double l3b = std::strtod(l3.c_str(), &end);
  int64_t top = 1024 * kMiB;
  if (end != l3.c_str() && l3b > 0) {
    top = std::min<int64_t>(1024 * kMiB, std::max<int64_t>(64 * kMiB, static_cast<int64_t>(8 * l3b)));
    basis = fmt::format("8x the nominal L3 of {} MiB ({})", l3b / kMiB, inventory_get(inv, "cache_l3_source"));
  } else {
    basis = "1 GiB: the L3 size is unknown";
  }
  if (o.profile == Profile::tiny) return {1 * kMiB, 4 * kMiB, 16 * kMiB};
  // Steps of about sqrt(2) up to 64 MiB (fine enough to place the knee), then doubling.
  std::vector<int64_t> s = {1, 2, 3, 4, 6, 8, 10, 12, 16, 24, 32, 48, 64};
  for (auto& x : s) x *= kMiB;
  for (int64_t x = 128 * kMiB; x <= top; x *= 2) s.push_back(x);
  if (o.profile == Profile::full && s.back() < top) s.push_back(top);
  return s;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_cpu_cache_fc =
    declare_entry({"cpu_cache_fc", "cpu", "", "", "", 90, 300, 1800,
                   R"(L3 working-set sweep: fully connected layer, weights 1 MiB to 8x the L3, batch 1/16/64, one pinned
thread (CPU-3, CPU-4))",
                   true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(L3 working-set sweep: a fully connected layer (oneDNN inner product) on one pinned thread with weights
from 1 MiB to 8x the L3, batch 1 and 64 (and 16 in the full profile), many short repetitions per size;
the knee of the curve (running median, midpoint crossing) is the measured effective L3, shown beside the
latency curve's L3 end)",
     "CPU-3 (emulated where resctrl is absent), CPU-4"});

// The sweep's cases: each batch, thread count and weight size of the profile.
std::vector<Case> sweep_cases(const CommonOptions& o) {
  std::vector<Case> cs;
  std::string basis;
  const std::vector<int64_t> sizes = sweep_sizes(o, basis);
  std::vector<int64_t> tlist = o.threads.empty() ? std::vector<int64_t>{1} : o.threads;
  // Batch 16 in the full profile only: the quick profile's cpu area has 5 minutes on 2 cores.
  std::vector<int64_t> batches = {1, 64};
  if (o.profile == Profile::full) batches = {1, 16, 64};
  for (int64_t batch : batches)
    for (int64_t t : tlist)
      for (int64_t bytes : sizes) {
        const int threads = static_cast<int>(t);
        const int64_t oc = std::max<int64_t>(1, bytes / (4 * kIn));
        const double wbytes = 4.0 * kIn * oc;
        Case c;
        c.name = fmt::format("b{}/w{}KiB/t{}", batch, static_cast<int64_t>(wbytes) / 1024, threads);
        c.params = {{"batch", std::to_string(batch)},
                    {"in", std::to_string(kIn)},
                    {"out", std::to_string(oc)},
                    {"weights_bytes", fmt::format("{:.0f}", wbytes)},
                    {"working_set_bytes", fmt::format("{:.0f}", wbytes + 4.0 * (batch * kIn + batch * oc + oc))},
                    {"dtype", "f32"},
                    {"threads", std::to_string(threads)},
                    {"sizes_basis", basis}};
        c.work.flops = 2.0 * batch * kIn * oc;
        c.work.bytes = wbytes + 4.0 * (batch * kIn + batch * oc + oc);  // weights, input, output, bias once
        c.threads = threads;
        c.make = [=] { return make_onednn_fc_sweep(batch, kIn, oc); };
        cs.push_back(std::move(c));
      }
  return cs;
}

const bool sweep = register_benchmark(
    {names::kFcWorkingSet,
     "fully connected layer f32, weights 1 MiB to past the L3, batch 1/16/64, one pinned thread (--threads: others)",
     sweep_cases});

}  // namespace
}  // namespace rigcheck::cpu
