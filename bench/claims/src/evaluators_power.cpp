// Verdicts of the power and heat claims (docs/claims.md section 6): PWR-1, PWR-2, THM-1, from
// gpu_gemm's sustained GEMM (NVML power, temperature, clocks, throttle reasons) and the datasheet's
// TDP. PWR-2 measures one card; four cards are a stated model.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "gpu_facts.hpp"

namespace rigcheck {
namespace {

using namespace gpu_facts;

struct PowerSeen {
  Measured gpu_w, cpu_w, temp_c, sm_mhz, thermal;
  std::string note, power_method;  // the temperature row's note (reasons seen), the power row's (its NVML source)
  double tdp = kNaN;
  std::string tdp_cite, what;
};
PowerSeen power_seen(const RunData& run) {
  PowerSeen p;
  p.gpu_w = observed_max(run, names::kGpuGemmSustained, names::kPowerMaxW, &p.power_method);
  if (!p.gpu_w.ok()) p.gpu_w = observed_max(run, names::kGpuGemm, names::kPowerMaxW, &p.power_method);
  p.cpu_w = observed_max(run, names::kGpuGemmSustained, names::kCpuPackagePowerMaxW);
  p.temp_c = observed_max(run, names::kGpuGemmSustained, names::kGpuTempMaxC, &p.note);
  p.sm_mhz = observed_max(run, names::kGpuGemmSustained, names::kSmClockMedianMhz);
  p.thermal = observed_max(run, names::kGpuGemmSustained, names::kThermalThrottleFraction);
  const GpuDatasheet* s = this_gpu_sheet(run, p.what);
  if (s) {
    p.tdp = s->num("tdp_w");
    p.tdp_cite = s->cite("tdp_w");
  }
  return p;
}

// PWR-1 and PWR-2 start alike: true (v says why) where the run has no GPU power samples (with
// gpu_gemm's status); else p holds the power seen.
bool no_gpu_power(const RunData& run, Verdict& v, PowerSeen& p) {
  p = power_seen(run);
  if (p.gpu_w.ok()) return false;
  v.verdict = Outcome::not_measurable;
  v.reason = "no GPU power samples in this run (" + manifest_status(run, names::kGpuGemm) + "; NVML needed)";
  return true;
}

const bool pwr1 = register_evaluator("PWR-1", [](const Claim&, const RunData& run) {
  Verdict v;
  PowerSeen p;
  if (no_gpu_power(run, v, p)) return v;
  v.measured = p.gpu_w;
  v.evidence = fmt::format(
      "{}; peak board power under sustained GEMM {} W (NVML: {}) beside the guide's 350 W GPU "
      "budget{}; CPU package {}",
      p.what, fmt_num(p.gpu_w.value), p.power_method.empty() ? "source not recorded" : p.power_method,
      p.tdp_cite.empty() ? "" : " and " + p.tdp_cite,
      p.cpu_w.ok() ? fmt_num(p.cpu_w.value) + " W (RAPL)" : "power not readable here (no RAPL)");
  const bool a100 = gpu_name(run).find("A100") != std::string::npos;
  if (!a100) {
    v.verdict = Outcome::not_measurable;
    v.reason = "the claim is about an A100 system; this GPU is " + gpu_name(run) +
               ": its peak draw is reported beside the budget";
    return v;
  }
  const double total = p.gpu_w.value + (p.cpu_w.ok() ? p.cpu_w.value : 0);
  v.verdict = total > 500 ? Outcome::refuted : p.cpu_w.ok() ? Outcome::confirmed : Outcome::inconclusive;
  v.basis = Basis::measured;
  v.reason = fmt::format(
      "measured GPU {} W{} against 500 W", fmt_num(p.gpu_w.value),
      p.cpu_w.ok() ? fmt::format(" + CPU {} W = {} W", fmt_num(p.cpu_w.value), fmt_num(total)) : " (CPU unknown)");
  return v;
});

// PWR-2 is about four cards under load, which one machine with fewer cards cannot show: what is
// measured is one card's sustained power under the suite's GEMM (the energy counter's mean, not
// the instantaneous peak: a supply is sized for what is drawn for minutes), and the four-card
// total is a model stated in the evidence, judged (as predicted) only where four cards are present.
const bool pwr2 = register_evaluator("PWR-2", [](const Claim& c, const RunData& run) {
  Verdict v;
  PowerSeen p;
  if (no_gpu_power(run, v, p)) return v;
  const Measured mean = observed_max(run, names::kGpuGemmSustained, names::kPowerMeanW);
  const Measured cpu_mean = observed_max(run, names::kGpuGemmSustained, names::kCpuPackagePowerMeanW);
  const Measured cpu = cpu_mean.ok() ? cpu_mean : p.cpu_w;
  const int cards = std::atoi(fact(run, "gpu_count").c_str());
  if (!mean.ok()) {
    v.verdict = Outcome::not_measurable;
    v.reason = fmt::format("no sustained power ({}) in this run, only the peak {} W", names::kPowerMeanW,
                           fmt_num(p.gpu_w.value));
    return v;
  }
  const double total = 4 * mean.value + (cpu.ok() ? cpu.value : 0);
  v.evidence = fmt::format(
      "{}; measured: one card's sustained power under the suite's GEMM, mean {} W (NVML energy counter), peak {} W; "
      "model, not measured: 4 x {} W{} = {} W against the guide's 1200 W supply (no supply headroom counted){}",
      p.what, fmt_num(mean.value), fmt_num(p.gpu_w.value), fmt_num(mean.value),
      cpu.ok() ? fmt::format(" + CPU package {} W", fmt_num(cpu.value)) : " (CPU power unreadable: not counted)",
      fmt_num(total),
      std::isnan(p.tdp) ? ""
                        : fmt::format("; by the datasheet 4 x {} W TDP = {} W", fmt_num(p.tdp), fmt_num(4 * p.tdp)));
  if (cards < 4) {
    v.verdict = Outcome::not_measurable;
    v.reason = fmt::format(
        "the claim is about a four-GPU system and this machine has {} GPU(s): one card's sustained "
        "power is measured, the four-card total is only a model (in the evidence)",
        cards);
    return v;
  }
  v.measured.value = v.measured.low = v.measured.high = total;
  v.measured.reps = 1;
  v.verdict = judge(c, total, total);
  if (v.verdict == Outcome::confirmed && !cpu.ok()) v.verdict = Outcome::inconclusive;
  v.basis = Basis::predicted;  // the suite loads one card at a time: four together were not measured
  v.reason = fmt::format("predicted: four of this GPU at one card's measured sustained mean{} against a 1200 W supply",
                         cpu.ok() ? " plus the CPU" : ", CPU not counted (a lower bound)");
  return v;
});

// THM-1 without a GPU: the room, half of the claim, is out of software's sight on any machine.
void thm1_unmet(const Claim&, const RunData&, Verdict& v) {
  v.reason += "; and the room temperature is not measurable by software in any case";
}

const bool thm1 = register_evaluator(
    "THM-1",
    [](const Claim&, const RunData& run) {
      Verdict v;
      PowerSeen p = power_seen(run);
      v.verdict = Outcome::not_measurable;
      v.reason =
          "the room (inlet) temperature and the kind of cooling are not visible to software; what the GPU did "
          "under sustained load is in the evidence";
      if (!p.temp_c.ok()) {
        v.evidence = "no GPU temperature samples (" + manifest_status(run, "gpu_gemm") + ")";
        return v;
      }
      v.measured = p.temp_c;
      v.unit = "C";
      v.evidence = fmt::format(
          "{}; sustained GEMM: GPU temperature up to {} C, SM clock median {} MHz, thermal slowdown "
          "in {:.0f}% of samples; {}",
          p.what, fmt_num(p.temp_c.value), p.sm_mhz.ok() ? fmt_num(p.sm_mhz.value) : "?",
          p.thermal.ok() ? 100 * p.thermal.value : 0.0, p.note);
      return v;
    },
    thm1_unmet);

}  // namespace
}  // namespace rigcheck
