// Verdicts of the GPU claims (docs/claims.md section 2): GPU-1..GPU-5 (GPU-6, GPU-7: evaluators_gpu_comm.cpp;
// power and heat, PWR-1, PWR-2, THM-1: evaluators_power.cpp). Every judged verdict says what it rests on
// (Verdict::basis): datasheet figures (data/datasheets.csv: GPU-2, GPU-3, GPU-5) are labelled datasheet and never shown
// as measurements; PWR-2 (four GPUs from one) and GPU-1 on an estimate alone are predicted.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/claims/gpu_datasheet.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "gpu_facts.hpp"

namespace rigcheck {

namespace {

using namespace gpu_facts;

// Median TFLOP/s of gemm_tc per dtype at the largest size measured.
struct GemmFigure {
  Measured tflops;
  std::string size;
  std::string fast_accum;  // the row's fast_accum fact (fp8: off, with why), empty where not recorded
};
std::map<std::string, GemmFigure> gemm_by_dtype(const RunData& run) {
  std::map<std::string, GemmFigure> out;
  auto by_dtype = group_by_param(run.select(names::kGpuGemm, names::kGflops), "dtype");
  for (auto& [dtype, rows] : by_dtype) {
    std::map<double, std::vector<const ResultRow*>> by_size;
    for (const ResultRow* r : rows) by_size[std::atof(param_value(r->params, "m").c_str())].push_back(r);
    if (by_size.empty()) continue;
    auto& [size, largest] = *by_size.rbegin();
    Measured m = measure(largest);
    m.value /= 1000;
    m.low /= 1000;
    m.high /= 1000;
    out[dtype] = {m, fmt_num(size), param_value(largest.front()->params, "fast_accum")};
  }
  return out;
}

// The datasheet comparison of GPU-3: dense FP16 tensor TFLOPS (FP32 accumulate), Ampere / Turing,
// for pairs of the same market tier, and one cross-tier pair for context.
struct Ratio {
  std::string text;
  double value = kNaN;
};
std::vector<Ratio> ampere_turing_ratios(bool like_for_like) {
  static const std::pair<const char*, const char*> tier[] = {
      {"NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 2080 Ti"},
      {"NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 2080 Ti"},
      {"NVIDIA A10", "NVIDIA Tesla T4"},
  };
  static const std::pair<const char*, const char*> cross[] = {{"NVIDIA A100 SXM4 80GB", "NVIDIA Tesla T4"}};
  std::vector<Ratio> out;
  auto add = [&](const char* a, const char* b) {
    const GpuDatasheet* x = find_gpu_product(sheets(), a);
    const GpuDatasheet* y = find_gpu_product(sheets(), b);
    if (!x || !y) return;
    double r = x->num("f16_tflops") / y->num("f16_tflops");
    if (std::isnan(r)) return;
    out.push_back(
        {fmt::format("{} {} / {} {} = {:.2f}x", a, fmt_num(x->num("f16_tflops")), b, fmt_num(y->num("f16_tflops")), r),
         r});
  };
  if (like_for_like)
    for (auto& [a, b] : tier) add(a, b);
  else
    for (auto& [a, b] : cross) add(a, b);
  return out;
}

std::string join(const std::vector<Ratio>& rs) {
  std::string s;
  for (const Ratio& r : rs) s += (s.empty() ? "" : "; ") + r.text;
  return s;
}

// ------------------------------------------------------------------ GPU-1
// Training memory at batch 16 vs the guide's 2 / 8 / 12 / 24 GB. Per model, the strongest
// evidence decides: the fp32 step's peak reserved (measured); else a real out-of-memory failure at
// batch 16 (oom_lower_bound_bytes, either precision: the guide names none), a measured lower bound
// that refutes the guide's figure once it lies above it plus 25%; else the zoo's estimate of a
// model skipped without trying (estimate_bytes of a skipped case), a prediction.
const std::pair<const char*, double> kGuideTrainingGb[] = {
    {"light_cnn", 2}, {"resnet50", 8}, {"bert_base", 12}, {"gpt2_xl", 24}};
constexpr double kGpu1Tolerance = 0.25;

// The largest value of a metric over the skipped rows of one model's model_memory cases.
double skipped_max(const RunData& run, const std::string& model, const std::string& metric,
                   std::string* precision = nullptr) {
  double best = kNaN;
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kModelMemory && r.status == Status::skipped && r.metric == metric &&
        param_value(r.params, "model") == model && std::isfinite(r.value) && !(r.value <= best)) {
      best = r.value;
      if (precision) *precision = param_value(r.params, "precision");
    }
  return best;
}

// The batch one model's model_memory rows ran at (any status: a skipped case names it too).
std::string batch_of(const RunData& run, const std::string& model) {
  std::vector<const ResultRow*> rows;
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kModelMemory && param_value(r.params, "model") == model) rows.push_back(&r);
  return param_of(rows, "batch");
}

const bool gpu1 = register_evaluator("GPU-1", [](const Claim&, const RunData& run) {
  Verdict v;
  bool any_rows = false;
  for (const ResultRow& r : run.results) any_rows = any_rows || r.benchmark == names::kModelMemory;
  if (!any_rows) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no model_memory results in this run (" + manifest_status(run, "gpu_model_memory") + ")";
    return v;
  }
  int confirmed = 0, refuted_measured = 0, refuted_predicted = 0, open = 0, judged = 0;
  std::string missing;
  std::set<std::string> batches;  // the batches the rows ran at (the guide's figures are for batch 16)
  for (auto& [model, guide_gb] : kGuideTrainingGb) {
    const double hi = (1 + kGpu1Tolerance) * guide_gb, lo = (1 - kGpu1Tolerance) * guide_gb;
    auto rows =
        group_by_param(run.select(names::kModelMemory, names::kPeakReservedBytes, {{"model", model}}), "precision");
    std::string parts;
    double fp32_gb = kNaN;
    for (auto& [prec, rs] : rows) {
      Measured m = measure(rs);
      double gb = m.value / 1e9;
      parts += fmt::format("{}{} {} GB", parts.empty() ? "" : ", ", prec, fmt_num(gb));
      auto alloc = run.select(names::kModelMemory, names::kPeakAllocatedBytes, {{"model", model}, {"precision", prec}});
      auto nvml = run.select(names::kModelMemory, names::kDeviceUsedBytes, {{"model", model}, {"precision", prec}});
      std::vector<const ResultRow*> a, n;
      for (auto& [k, r] : alloc) a.insert(a.end(), r.begin(), r.end());
      for (auto& [k, r] : nvml) n.insert(n.end(), r.begin(), r.end());
      if (!a.empty()) parts += fmt::format(" (allocated {} GB", fmt_num(measure(a).value / 1e9));
      if (!n.empty()) parts += fmt::format(", device in use {} GB", fmt_num(measure(n).value / 1e9));
      if (!a.empty()) parts += ")";
      if (prec == "fp32") fp32_gb = gb;
    }
    std::string oom_prec, est_prec;
    const double oom_gb = skipped_max(run, model, "oom_lower_bound_bytes", &oom_prec) / 1e9;
    const double est_gb = skipped_max(run, model, "estimate_bytes", &est_prec) / 1e9;
    const double dev_gb = skipped_max(run, model, "device_memory_bytes") / 1e9;
    const std::string batch = batch_of(run, model);
    if (!batch.empty()) batches.insert(batch);
    std::string line =
        fmt::format("{}{}: guide {} GB", model, batch.empty() ? "" : " (batch " + batch + ")", fmt_num(guide_gb));
    if (!parts.empty()) line += ", peak reserved " + parts;
    if (std::isfinite(oom_gb))
      line += fmt::format(", out of memory at batch {} ({}) after {} GB allocated{}: needs more (measured lower bound)",
                          batch, oom_prec, fmt_num(oom_gb),
                          std::isfinite(dev_gb) ? fmt::format(" of the device's {} GB", fmt_num(dev_gb)) : "");
    else if (std::isfinite(est_gb))
      line += fmt::format(", not tried ({}): the zoo's estimate {} GB is over 1.5x the device's {} GB (predicted)",
                          est_prec, fmt_num(est_gb), std::isfinite(dev_gb) ? fmt_num(dev_gb) : "?");
    v.evidence += (v.evidence.empty() ? "" : "; ") + line;
    if (std::isfinite(fp32_gb)) {
      ++judged;
      (fp32_gb >= lo && fp32_gb <= hi ? confirmed : refuted_measured) += 1;
    } else if (std::isfinite(oom_gb)) {
      ++judged;
      (oom_gb > hi ? refuted_measured : open) += 1;
    } else if (std::isfinite(est_gb) && est_gb > hi) {
      ++judged;
      ++refuted_predicted;
    } else {
      missing += fmt::format("{}{} ({})", missing.empty() ? "" : ", ", model,
                             parts.empty() ? "not measured: did not run" : "no fp32 figure");
    }
  }
  if (judged == 0) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no model of the guide was measured: " + missing;
    return v;
  }
  const bool refuted = refuted_measured + refuted_predicted > 0;
  v.verdict = refuted ? Outcome::refuted
                      : (confirmed == judged && missing.empty() ? Outcome::confirmed : Outcome::inconclusive);
  // Measured unless the verdict rests on the estimate alone.
  v.basis = refuted && refuted_measured == 0 ? Basis::predicted : Basis::measured;
  v.reason = fmt::format(
      "batch {}, one full training step (forward, backward, optimizer step); LibTorch's CUDA caching allocator "
      "peaks; the guide's figure counts as right when the fp32 peak reserved lies within {:.0f}% of it, and as wrong "
      "when "
      "the peak, or a lower bound from running out of memory, lies beyond: {} of {} model(s) within, {} beyond by "
      "measurement, {} beyond by the estimate alone (predicted), {} undecided{}",
      batches.empty() ? std::string("not recorded") : fmt::format("{}", fmt::join(batches, " and ")),
      100 * kGpu1Tolerance, confirmed, judged, refuted_measured, refuted_predicted, open,
      missing.empty() ? "" : "; not judged: " + missing);
  return v;
});

// ------------------------------------------------------------------ GPU-2
// "T100" for light CNNs and the RTX 3080 for a 12 GB need: guide errors, from the datasheet rows.
const bool gpu2 = register_evaluator("GPU-2", [](const Claim&, const RunData& run) {
  Verdict v;
  bool t100 = false;
  std::string near;
  for (const GpuDatasheet& s : sheets()) {
    if (s.product.find("T100") != std::string::npos) t100 = true;
    if (s.product.find("T4") != std::string::npos) near = s.cite("memory_gb") + "; " + s.cite("tdp_w");
  }
  const GpuDatasheet* rtx3080 = find_gpu_product(sheets(), "NVIDIA GeForce RTX 3080");
  const double mem3080 = rtx3080 ? rtx3080->num("memory_gb") : kNaN;
  v.evidence = fmt::format("datasheet table (data/datasheets.csv): {} products, none named T100{}; {}", sheets().size(),
                           near.empty() ? "" : " (nearest by name: " + near + ")",
                           rtx3080 ? rtx3080->cite("memory_gb") : "no RTX 3080 row");
  std::string what;
  this_gpu_sheet(run, what);
  if (!gpu_name(run).empty()) v.evidence += "; " + what;
  if (!t100 && !std::isnan(mem3080) && mem3080 < 12) {
    v.verdict = Outcome::refuted;
    v.basis = Basis::datasheet;
    v.reason = fmt::format(
        "from the datasheets, not measured: no NVIDIA T100 exists, and the RTX 3080's {} GB "
        "cannot hold the 12 GB the guide says BERT-base needs",
        fmt::format("{:g}", mem3080));
  } else {
    v.verdict = Outcome::not_measurable;
    v.reason = "the datasheet table lacks the rows to judge this (an RTX 3080 memory row)";
  }
  return v;
});

// ------------------------------------------------------------------ GPU-3
// The datasheets' Ampere / Turing FP16 ratios: the evidence of GPU-3 on any machine, a GPU or none.
std::string gpu3_datasheets() {
  return fmt::format(
      "datasheets, dense FP16 tensor TFLOPS with FP32 accumulate, Ampere / Turing of the same tier: {}; across "
      "tiers, for context: {}",
      join(ampere_turing_ratios(true)), join(ampere_turing_ratios(false)));
}

void gpu3_unmet(const Claim&, const RunData&, Verdict& v) { v.evidence = gpu3_datasheets(); }

const bool gpu3 = register_evaluator(
    "GPU-3",
    [](const Claim& c, const RunData& run) {
      Verdict v;
      std::vector<Ratio> tier = ampere_turing_ratios(true);
      const std::string ds = gpu3_datasheets();
      std::string what;
      const GpuDatasheet* s = this_gpu_sheet(run, what);
      auto g = gemm_by_dtype(run);
      v.evidence = ds + "; " + what;
      if (g.count("f16")) {
        v.evidence += fmt::format(": f16 GEMM n={} {} TFLOP/s measured", g["f16"].size, fmt_num(g["f16"].tflops.value));
        if (s && !std::isnan(s->num("f16_tflops")))
          v.evidence += fmt::format(" = {:.1f}% of its datasheet {}",
                                    100 * g["f16"].tflops.value / s->num("f16_tflops"), fmt_num(s->num("f16_tflops")));
      }
      if (tier.empty()) {
        v.verdict = Outcome::not_measurable;
        v.reason = "needs runs on both generations (rigcheck compare) or datasheet rows of both";
        return v;
      }
      double lo = tier.front().value, hi = lo;
      for (const Ratio& r : tier) {
        lo = std::min(lo, r.value);
        hi = std::max(hi, r.value);
      }
      v.verdict = judge(c, lo, hi);
      v.basis = Basis::datasheet;
      v.reason = fmt::format(
          "judged from the datasheets (not measured): same-tier Ampere/Turing dense FP16 tensor ratios lie in "
          "[{:.2f}, {:.2f}]x against the guide's 3x; a measured comparison needs runs on both generations",
          lo, hi);
      return v;
    },
    gpu3_unmet);

// ------------------------------------------------------------------ GPU-4
// The datasheets' fp8 figures assume cuBLASLt's fast accumulation: the evidence says which setting
// the measured figure had, so a low % of datasheet is read as the setting and not as the card.
std::string fp8_accumulation(const std::string& fact) {
  if (fact.empty()) return " (fast accumulation not recorded by this run; the datasheet figure assumes it on)";
  const std::string setting = fact.substr(0, fact.find(':'));
  return fmt::format(" (fast accumulation {}{})", setting,
                     setting == "off" ? ": the datasheet figure assumes it on, so this % reads low" : "");
}

const bool gpu4 = register_evaluator("GPU-4", [](const Claim&, const RunData& run) {
  Verdict v;
  std::string what;
  const GpuDatasheet* s = this_gpu_sheet(run, what);
  auto g = gemm_by_dtype(run);
  std::string parts;
  static const std::pair<const char*, const char*> prop[] = {{"f32", "fp32_tflops"},
                                                             {"tf32", "tf32_tflops"},
                                                             {"f16", "f16_tflops"},
                                                             {"bf16", "bf16_tflops"},
                                                             {"fp8_e4m3", "fp8_tflops"}};
  for (auto& [dtype, p] : prop) {
    if (!g.count(dtype)) continue;
    const double peak = s ? s->num(p) : kNaN;
    parts += fmt::format(
        "{}{} n={} {} TFLOP/s{}", parts.empty() ? "" : "; ", dtype, g[dtype].size, fmt_num(g[dtype].tflops.value),
        std::isnan(peak)
            ? ""
            : fmt::format(" = {:.1f}% of datasheet {}", 100 * g[dtype].tflops.value / peak, fmt_num(peak)));
    if (std::string(dtype) == "fp8_e4m3") parts += fp8_accumulation(g[dtype].fast_accum);
  }
  v.evidence =
      what + (parts.empty() ? ": no gemm_tc results (" + manifest_status(run, "gpu_gemm") + ")" : ": " + parts);
  v.verdict = Outcome::not_measurable;
  v.reason =
      "utilisation (achieved / datasheet peak) is measured here for this GPU only; +40% is a comparison "
      "of two generations and needs runs on both (rigcheck compare)";
  return v;
});

// ------------------------------------------------------------------ GPU-5
// The A100's dense and sparse datasheet figures: the evidence of GPU-5 on any machine, a GPU or none.
std::string gpu5_datasheet() {
  const GpuDatasheet* a100 = find_gpu_product(sheets(), "NVIDIA A100 SXM4 80GB");
  return a100 ? fmt::format("datasheet: {}; {}", a100->cite("f16_tflops"), a100->cite("f16_tflops_sparse"))
              : "no A100 datasheet row";
}

void gpu5_unmet(const Claim&, const RunData&, Verdict& v) { v.evidence = gpu5_datasheet(); }

const bool gpu5 = register_evaluator(
    "GPU-5",
    [](const Claim&, const RunData& run) {
      Verdict v;
      const std::string ds = gpu5_datasheet();
      const std::string cc = fact(run, "gpu0_compute_capability");
      double ccv = kNaN;
      parse_double(cc, ccv);
      v.evidence =
          fmt::format("{}; this GPU: {} compute capability {}", ds, gpu_name(run), cc.empty() ? "unknown" : cc);
      if (std::isnan(ccv)) {
        v.verdict = Outcome::not_measurable;
        v.reason = "the inventory has no compute capability for GPU 0";
      } else if (ccv >= 8.0) {
        v.verdict = Outcome::confirmed;
        v.basis = Basis::datasheet;
        v.reason =
            "judged from the compute capability (>= 8.0: Ampere or newer, 2:4 sparse tensor-core MMA) and the "
            "datasheet's sparse figures; no sparse GEMM is measured by this suite (cuSPARSELt not used)";
      } else {
        v.verdict = Outcome::not_measurable;
        v.reason =
            "this GPU predates Ampere (compute capability < 8.0): the claim cannot be tried on it; the datasheet "
            "says Ampere doubles dense throughput with 2:4 sparsity";
      }
      return v;
    },
    gpu5_unmet);

}  // namespace
}  // namespace rigcheck
