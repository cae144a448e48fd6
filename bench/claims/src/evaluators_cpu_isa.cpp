// Verdict of CPU-5, the AVX-512 gain over AVX2 (docs/claims.md section 1): oneDNN's primitives under
// an ISA cap and without one (cpu_isa, the two processes taking turns), with the ResNet-50 steps
// under both caps as second evidence.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "interleaved.hpp"
#include "run_facts.hpp"

namespace rigcheck {
namespace {
using namespace run_facts;

// CPU-5 second evidence: ResNet-50 inference and training step (cpu_resnet_isa_avx2 vs
// cpu_resnet_isa_native, one process each), with what actually ran in each process: ATen's CPU
// capability and oneDNN's ISA. Says so when a cap had no effect.
std::string resnet_isa_evidence(const RunData& run) {
  std::string out;
  for (const char* mode : {"inference", "train_step"}) {
    auto capped = run.select(names::kResnetIsa, names::kItemsPerS, {{"isa_cap", "avx2"}, {"mode", mode}});
    auto native = run.select(names::kResnetIsa, names::kItemsPerS, {{"isa_cap", "native"}, {"mode", mode}});
    if (capped.empty() || native.empty()) continue;
    auto rows = [](const std::map<std::string, std::vector<const ResultRow*>>& m) {
      std::vector<const ResultRow*> all;
      for (auto& [cs, rs] : m) all.insert(all.end(), rs.begin(), rs.end());
      return all;
    };
    auto rc = rows(capped), rn = rows(native);
    Measured a = measure(rc), b = measure(rn);
    auto ran = [](const ResultRow* r) {
      return fmt::format("ATen {}, oneDNN {}", param_value(r->params, "aten_cpu_capability"),
                         param_value(r->params, "onednn_isa"));
    };
    std::string no_effect;
    if (param_value(rc.front()->params, "aten_cpu_capability") ==
        param_value(rn.front()->params, "aten_cpu_capability"))
      no_effect += " the ATen cap had no effect (same capability in both processes);";
    if (param_value(rc.front()->params, "onednn_isa") == param_value(rn.front()->params, "onednn_isa"))
      no_effect += " the oneDNN cap had no effect (same ISA in both processes);";
    if (!no_effect.empty()) no_effect.pop_back();
    out += fmt::format(
        "; ResNet-50 {} (batch {}, {} threads): {} images/s capped ({}) vs {} images/s native ({}), "
        "{:+.1f}% [{:+.1f} to {:+.1f}]{}",
        mode, param_value(rn.front()->params, "batch"), param_value(rn.front()->params, "threads"), fmt_num(a.value),
        ran(rc.front()), fmt_num(b.value), ran(rn.front()), 100 * (b.value / a.value - 1), 100 * (b.low / a.high - 1),
        100 * (b.high / a.low - 1), no_effect.empty() ? "" : ";" + no_effect);
  }
  if (out.empty())
    out = "; ResNet-50 under both ISA caps: no results (" + manifest_status(run, "cpu_resnet_isa_avx2") + "; " +
          manifest_status(run, "cpu_resnet_isa_native") + ")";
  return out;
}

// The AVX-512 gain of one primitive as the ratio native / capped. Where both sides' rows say the
// same `interleaved` key (the two processes took turns repetition by repetition, bench/harness/src/
// alternate.hpp, so repetition i of each is one pair of neighbouring repetitions): the median of the
// per-pair ratios, the interval their min and max, so that drift of the machine cancels within each
// pair. Otherwise (runs before that: one process per ISA, minutes apart): the ratio of the medians,
// the interval from the rates' min and max.
struct IsaRatio {
  double value = 0, low = 0, high = 0;
  int reps = 0;
  int pairs = 0;  // 0: not paired
};
IsaRatio isa_ratio(const std::vector<const ResultRow*>& capped, const std::vector<const ResultRow*>& native) {
  const std::vector<double> ratios = interleaved::ratios(capped, native);
  IsaRatio r;
  if (!ratios.empty()) {
    const Summary sm = summarize(ratios);
    r.value = sm.median, r.low = sm.min, r.high = sm.max;
    r.reps = r.pairs = static_cast<int>(sm.n);
    return r;
  }
  const Measured x = measure(capped), y = measure(native);
  r.value = y.value / x.value, r.low = y.low / x.high, r.high = y.high / x.low;
  r.reps = std::min(x.reps, y.reps);
  return r;
}

// "cpu_isa: ok" for a run of one registry entry taking turns, else the two entries of older runs.
std::string isa_manifest_status(const RunData& run) {
  for (const ManifestRow& m : run.manifest)
    if (m.benchmark == "cpu_isa") return manifest_status(run, "cpu_isa");
  return manifest_status(run, "cpu_isa_avx2") + "; " + manifest_status(run, "cpu_isa_native");
}

// What an aarch64 run measured in place of CPU-5, labelled as not the guide's claim: the same oneDNN
// primitives with SVE against the ISA capped at Advanced SIMD (registry entry cpu_isa_sve), the gain
// per pair of interleaved repetitions as for AVX-512 against AVX2.
std::string arm_instead(const RunData& run) {
  auto capped = group_by_param(
      run.select(names::kIsaPrimitives, names::kGflops, {{"isa_cap", "advanced_simd"}, {"dtype", "f32"}}), "primitive");
  auto native = group_by_param(
      run.select(names::kIsaPrimitives, names::kGflops, {{"isa_cap", "native"}, {"dtype", "f32"}}), "primitive");
  std::string out;
  for (auto& [prim, rows_n] : native) {
    auto it = capped.find(prim);
    if (it == capped.end()) continue;
    const Measured a = measure(it->second), b = measure(rows_n);
    const IsaRatio q = isa_ratio(it->second, rows_n);
    out += fmt::format(
        "{}{}: {} GFLOP/s capped at Advanced SIMD ({}) vs {} GFLOP/s with {} ({}), {:+.1f}%{}", out.empty() ? "" : "; ",
        prim, fmt_num(a.value), param_value(it->second.front()->params, "impl"), fmt_num(b.value),
        param_value(rows_n.front()->params, "isa"), param_value(rows_n.front()->params, "impl"), 100 * (q.value - 1),
        q.pairs > 0 ? fmt::format(" [{:+.1f} to {:+.1f}] over {} pairs", 100 * (q.low - 1), 100 * (q.high - 1), q.pairs)
                    : "");
  }
  if (out.empty())
    return fmt::format(
        "; measured instead on this aarch64 machine (not the guide's claim): nothing, no trusted isa_primitives "
        "results under both caps ({}{})",
        manifest_status(run, "cpu_isa_sve"),
        fact(run, "emulated").rfind("yes", 0) == 0 ? "; the run was emulated: its timed rows are mistrusted" : "");
  return "; measured instead on this aarch64 machine (not the guide's claim): SVE against Advanced SIMD (NEON) through "
         "oneDNN's ISA cap, f32: " +
         out;
}

// CPU-5's needs unmet on another ISA than x86: the claim is about x86, which says more than the
// missing AVX-512 flag (nothing of AVX-512 against AVX2 runs on aarch64), and an aarch64 run shows
// what it measured instead.
void cpu5_on_another_isa(const Claim&, const RunData& run, Verdict& v) {
  if (!x86_claim_elsewhere(run, v)) return;
  if (fact(run, "cpu_arch") == "aarch64") v.evidence += arm_instead(run);
}

// CPU-5: AVX-512 gives 20-30% over AVX2: geometric mean over oneDNN primitives of
// X(native, AVX-512 dispatched) / X(ISA capped at AVX2) - 1, each primitive's ratio per pair of
// interleaved repetitions where the sides took turns (isa_ratio).
const bool cpu5 = register_evaluator(
    "CPU-5",
    [](const Claim& c, const RunData& run) {
      Verdict v;
      auto capped = group_by_param(
          run.select(names::kIsaPrimitives, names::kGflops, {{"isa_cap", "avx2"}, {"dtype", "f32"}}), "primitive");
      auto native = group_by_param(
          run.select(names::kIsaPrimitives, names::kGflops, {{"isa_cap", "native"}, {"dtype", "f32"}}), "primitive");
      double lr = 0, lr_lo = 0, lr_hi = 0;
      int n = 0, reps = 1 << 30, pairs = 1 << 30;
      std::string isa_seen;
      for (auto& [prim, rows_n] : native) {
        auto it = capped.find(prim);
        if (it == capped.end()) continue;
        std::string isa = param_value(rows_n.front()->params, "isa");
        isa_seen = isa;
        if (isa.rfind("avx512", 0) != 0) continue;
        Measured a = measure(it->second), b = measure(rows_n);
        const IsaRatio q = isa_ratio(it->second, rows_n);
        lr += std::log(q.value);
        lr_lo += std::log(q.low);
        lr_hi += std::log(q.high);
        reps = std::min(reps, q.reps);
        pairs = std::min(pairs, q.pairs);
        ++n;
        v.evidence += fmt::format(
            "{}{}: {} GFLOP/s capped at AVX2 ({}) vs {} GFLOP/s with {} ({}), {:+.1f}%{}",
            v.evidence.empty() ? "" : "; ", prim, fmt_num(a.value), param_value(it->second.front()->params, "impl"),
            fmt_num(b.value), isa, param_value(rows_n.front()->params, "impl"), 100 * (q.value - 1),
            q.pairs > 0
                ? fmt::format(" (median per pair of interleaved repetitions; [{:+.1f} to {:+.1f}] over {} pairs)",
                              100 * (q.low - 1), 100 * (q.high - 1), q.pairs)
                : "");
      }
      if (n == 0) {
        v.verdict = Outcome::not_measurable;
        v.reason = isa_seen.empty()
                       ? "no isa_primitives results under both ISAs (" + isa_manifest_status(run) + ")"
                       : "oneDNN dispatched " + isa_seen + " without a cap: no AVX-512 code path to compare";
        v.evidence += v.evidence.empty() ? resnet_isa_evidence(run).substr(2) : resnet_isa_evidence(run);
        return v;
      }
      auto bf16 = run.select(names::kIsaPrimitives, names::kGflops, {{"isa_cap", "native"}, {"dtype", "bf16"}});
      for (auto& [cs, rows] : bf16)
        v.evidence += fmt::format("; bf16 {} ({}): {} GFLOP/s", cs, param_value(rows.front()->params, "isa"),
                                  fmt_num(measure(rows).value));
      v.measured.value = 100 * (std::exp(lr / n) - 1);
      v.measured.low = 100 * (std::exp(lr_lo / n) - 1);
      v.measured.high = 100 * (std::exp(lr_hi / n) - 1);
      v.measured.reps = reps;
      v.verdict = judge(c, v.measured.low, v.measured.high);
      v.basis = Basis::measured;
      v.reason = pairs > 0
                     ? fmt::format(
                           "geometric mean over {} f32 primitive(s) of the gain per pair of interleaved repetitions "
                           "(the capped and the native process took turns, one repetition each; median and min to "
                           "max over {} pairs), same threads",
                           n, pairs)
                     : fmt::format(
                           "geometric mean over {} f32 primitive(s), same threads, one process per ISA (not "
                           "interleaved: the gain from the medians, the interval spans their min and max)",
                           n);
      v.evidence += resnet_isa_evidence(run);  // second evidence, not in the figure (evidence is not empty here)
      return v;
    },
    cpu5_on_another_isa);

}  // namespace
}  // namespace rigcheck
