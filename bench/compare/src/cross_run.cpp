// Claims judged across runs, each registered by its id (register_cross_run_evaluator): MEM-2,
// MEM-3 (a DDR4 side and a DDR5 side), GPU-3, GPU-4 (a Turing side and an Ampere side); and each
// run's own verdicts side by side. The two sides are compared
// by the same run-level rules as any case (findings.cpp): the claim's interval is the interval of
// the run-level ratio, and without one (one run per side, no noise profile) the verdict is
// inconclusive, saying why. See compare.hpp.
#include <cmath>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

std::vector<VerdictAcrossRuns> verdicts_across_runs(const std::vector<Claim>& claims,
                                                    const std::vector<const RunData*>& runs) {
  std::vector<VerdictAcrossRuns> out;
  for (const Claim& c : claims) {
    VerdictAcrossRuns v;
    v.claim_id = c.id;
    std::set<Outcome> seen;
    for (const RunData* r : runs) {
      v.verdicts.push_back(evaluate_claim(c, *r).verdict);
      seen.insert(v.verdicts.back());
    }
    v.change = seen.size() == 1                                                 ? "same"
               : seen.count(Outcome::confirmed) && seen.count(Outcome::refuted) ? "FLIP"
                                                                                : "changed";
    out.push_back(std::move(v));
  }
  return out;
}

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k, const std::string& fb = "") {
  auto it = m.find(k);
  return it == m.end() ? fb : it->second;
}

std::string memory_type(const LoadedRun& r) {
  const std::string t = get(r.data.inventory, "memory_dimm_type");
  if (t.find("DDR5") != std::string::npos) return "DDR5";
  if (t.find("DDR4") != std::string::npos) return "DDR4";
  return "";
}

std::string gpu_generation(const LoadedRun& r) {
  std::string cc = get(r.data.inventory, "gpu0_compute_capability");
  double v;
  if (cc.empty() || cc.rfind("unknown", 0) == 0 || !parse_double(cc, v)) return "";
  if (v >= 7.5 && v < 8.0) return "Turing";
  if (v >= 8.0 && v < 8.9) return "Ampere";
  return "";
}

// The finding of `benchmark`/`metric` judged on both sides with the largest value of `size_key`,
// then the most threads.
const CaseFinding* pick(const std::vector<CaseFinding>& fs, const std::string& benchmark, const std::string& metric,
                        const std::string& size_key, const std::map<std::string, std::string>& where = {}) {
  const CaseFinding* best = nullptr;
  auto num = [](const CaseFinding* f, const std::string& k) { return std::atof(param_value(f->params, k).c_str()); };
  for (const CaseFinding& f : fs) {
    if (f.benchmark != benchmark || f.metric != metric || !f.base.ok() || !f.run.ok()) continue;
    bool ok = true;
    for (auto& [k, v] : where) ok = ok && param_value(f.params, k) == v;
    if (!ok) continue;
    if (!best || num(&f, size_key) > num(best, size_key) ||
        (num(&f, size_key) == num(best, size_key) && num(&f, "threads") > num(best, "threads")))
      best = &f;
  }
  return best;
}

std::string other_differences(const Side& a, const Side& b, const std::vector<ConfounderDef>& defs,
                              const std::string& except) {
  std::string s;
  for (const FieldDiff& d : differing_fields({a.runs.front(), b.runs.front()}, defs))
    if (d.listed && d.key.find(except) == std::string::npos) s += (s.empty() ? "" : "; ") + describe_diff(d);
  return s.empty() ? "" : " Other differences between the two machines, confounding the comparison: " + s + ".";
}

// The sides of a pair of classes: every run of each; false when a class has no run.
bool sides_of(const std::vector<const LoadedRun*>& runs, std::string (*classify)(const LoadedRun&),
              const std::string& lo, const std::string& hi, Side& a, Side& b) {
  for (const LoadedRun* r : runs) {
    const std::string c = classify(*r);
    if (c == lo) a.runs.push_back(r);
    if (c == hi) b.runs.push_back(r);
  }
  auto label = [](Side& s) {
    s.label = s.runs.size() == 1 ? s.runs[0]->label : fmt::format("{} ({} runs)", s.runs[0]->label, s.runs.size());
  };
  if (a.runs.empty() || b.runs.empty()) return false;
  label(a);
  label(b);
  return true;
}

std::string seen(const std::vector<const LoadedRun*>& runs, std::string (*classify)(const LoadedRun&),
                 const std::string& key) {
  std::string s;
  for (const LoadedRun* r : runs) {
    std::string c = classify(*r);
    s += fmt::format("{}{}: {}", s.empty() ? "" : ", ", r->label,
                     c.empty() ? get(r->data.inventory, key, "not recorded") : c);
  }
  return s;
}

// The claim's figure from the finding's run-level ratio: f(ratio) applied to the point and the
// interval's ends (in the order that keeps low <= high).
void measure_from(const CaseFinding& f, double (*fig)(double, double), double k, Verdict& v, const Claim& c) {
  v.measured.reps = std::min(f.base.reps, f.run.reps);  // runs, the unit of the comparison
  v.measured.value = fig(f.j.ratio, k);
  if (f.j.iv.method == Method::none) {
    v.measured.low = v.measured.high = v.measured.value;
    v.verdict = Outcome::inconclusive;
    v.reason =
        "one run per side and no noise profile: the run-to-run noise is unknown, so the figure has no interval "
        "(give two or more runs of each machine, or --noise). ";
    return;
  }
  const double x = fig(f.j.ratio_low, k), y = fig(f.j.ratio_high, k);
  v.measured.low = std::min(x, y);
  v.measured.high = std::max(x, y);
  v.verdict = judge(c, v.measured.low, v.measured.high);
}

double pct_gain(double r, double k) { return 100 * (r * k - 1); }
double pct_cut(double r, double) { return 100 * (1 - r); }
double plain(double r, double) { return r; }

Verdict empty_verdict(const Claim& c) {
  Verdict v;
  v.claim_id = c.id;
  v.unit = c.unit;
  return v;
}

Verdict not_measurable(Verdict v, std::string why) {
  v.verdict = Outcome::not_measurable;
  v.reason = std::move(why);
  return v;
}

// The two classes of machine a claim compares: how a run is classed, the older class and the newer,
// what the claim needs, and the inventory field a run's class comes from (named for a run of neither).
struct Pairing {
  std::string (*classify)(const LoadedRun&);
  const char* older;
  const char* newer;
  const char* needs;
  const char* field;
};
const Pairing kMemoryPairing{memory_type, "DDR4", "DDR5",
                             "needs one run on DDR4 and one on DDR5 memory (inventory memory_dimm_type)",
                             "memory_dimm_type"};
const Pairing kGpuPairing{gpu_generation, "Turing", "Ampere",
                          "needs one run on a Turing GPU (compute capability 7.5) and one on an Ampere GPU (8.0-8.7), "
                          "inventory gpu0_compute_capability",
                          "gpu0_compute_capability"};

// MEM-2 (GEMM throughput, +15%) and MEM-3 (random-access latency, -20%): DDR5 side against DDR4 side.
Verdict memory_claim(Verdict v, const Claim& c, const CrossRunInput& in, const Side& a, const Side& b,
                     const std::vector<CaseFinding>& fs, bool latency) {
  const CaseFinding* f = latency ? pick(fs, names::kMemoryLatency, names::kNsPerLoad, "bytes")
                                 : pick(fs, names::kGemmMatmul, names::kGflops, "m");
  if (!f)
    return not_measurable(
        v, fmt::format("no {} rows common to {} (DDR4) and {} (DDR5)",
                       latency ? "memory_latency ns_per_load" : "gemm_matmul_f32 gflops", a.label, b.label));
  measure_from(*f, latency ? pct_cut : pct_gain, 1, v, c);
  v.evidence = fmt::format("{} {}: {} {} (DDR4, {}) vs {} {} (DDR5, {}), run/base {}", f->benchmark, f->case_name,
                           fmt_num(f->base.value), f->unit, a.label, fmt_num(f->run.value), f->unit, b.label,
                           f->j.iv.method == Method::none
                               ? fmt::format("{:.3f}", f->j.ratio)
                               : fmt::format("{:.3f} [{:.3f} to {:.3f}] ({})", f->j.ratio, f->j.ratio_low,
                                             f->j.ratio_high, to_string(f->j.iv.method)));
  v.reason += "DDR5 side against DDR4 side." + other_differences(a, b, in.defs, "memory_dimm");
  return v;
}

// GPU-3 (FP16 tensor GEMM, 3x) and GPU-4 (tensor-core utilisation, +40%): Ampere side against Turing side.
Verdict gpu_claim(Verdict v, const Claim& c, const CrossRunInput& in, const Side& a, const Side& b,
                  const std::vector<CaseFinding>& fs, bool utilisation) {
  const CaseFinding* f = pick(fs, names::kGpuGemm, names::kGflops, "m", {{"dtype", "f16"}});
  if (!f) return not_measurable(v, fmt::format("no gemm_tc f16 gflops rows common to {} and {}", a.label, b.label));
  const std::string ga = get(a.runs[0]->data.inventory, "gpu0_name"), gb = get(b.runs[0]->data.inventory, "gpu0_name");
  if (!utilisation) {
    measure_from(*f, plain, 1, v, c);
  } else {
    // Tensor-core utilisation = measured TFLOP/s / datasheet peak; GPU-4 is its relative gain.
    double peak_a = kNaN, peak_b = kNaN;
    for (const DatasheetRow& d : read_datasheets(in.datasheets_path)) {
      if (d.property != "peak_tflops_f16") continue;
      double x;
      if (!parse_double(d.value, x)) continue;
      if (!ga.empty() && ga.find(d.product) != std::string::npos) peak_a = x;
      if (!gb.empty() && gb.find(d.product) != std::string::npos) peak_b = x;
    }
    if (std::isnan(peak_a) || std::isnan(peak_b))
      return not_measurable(
          v, fmt::format("no datasheet f16 tensor peak (property peak_tflops_f16 in datasheets.csv) for {} and {}", ga,
                         gb));
    measure_from(*f, pct_gain, peak_a / peak_b, v, c);
  }
  v.evidence = fmt::format("{} {}: {} TFLOP/s ({}, Turing, {}) vs {} TFLOP/s ({}, Ampere, {})", f->benchmark,
                           f->case_name, fmt_num(f->base.value), ga, a.label, fmt_num(f->run.value), gb, b.label);
  v.reason += "Ampere side against Turing side." + other_differences(a, b, in.defs, "gpu");
  return v;
}

std::map<std::string, CrossRunEvaluator>& cross_run_registry() {
  static std::map<std::string, CrossRunEvaluator> m;
  return m;
}

// A claim judged on two classes of machine: the runs of each class (a older, b newer) compared case by case,
// then judged by `judge` with `variant` (which of its claims); not_measurable, saying why, when a class has no run.
using PairedJudge = Verdict (*)(Verdict, const Claim&, const CrossRunInput&, const Side&, const Side&,
                                const std::vector<CaseFinding>&, bool);
CrossRunEvaluator paired(const Pairing& p, PairedJudge judge, bool variant) {
  return [&p, judge, variant](const Claim& c, const CrossRunInput& in) {
    Side a, b;
    if (!sides_of(in.runs, p.classify, p.older, p.newer, a, b))
      return not_measurable(empty_verdict(c),
                            std::string(p.needs) + "; these runs: " + seen(in.runs, p.classify, p.field));
    return judge(empty_verdict(c), c, in, a, b, compare_sides(a, b, in.profile, in.rules, StatOptions{}), variant);
  };
}

const bool mem2 = register_cross_run_evaluator("MEM-2", paired(kMemoryPairing, memory_claim, false));
const bool mem3 = register_cross_run_evaluator("MEM-3", paired(kMemoryPairing, memory_claim, true));
const bool gpu3 = register_cross_run_evaluator("GPU-3", paired(kGpuPairing, gpu_claim, false));
const bool gpu4 = register_cross_run_evaluator("GPU-4", paired(kGpuPairing, gpu_claim, true));
}  // namespace

bool register_cross_run_evaluator(const std::string& claim_id, CrossRunEvaluator e) {
  cross_run_registry()[claim_id] = std::move(e);
  return true;
}

bool has_cross_run_evaluator(const std::string& claim_id) { return cross_run_registry().count(claim_id) > 0; }

std::vector<std::pair<Claim, Verdict>> cross_run_claims(const std::vector<const LoadedRun*>& runs,
                                                        const std::vector<Claim>& claims,
                                                        const std::string& datasheets_path,
                                                        const NoiseProfile* profile) {
  std::vector<std::pair<Claim, Verdict>> out;
  std::vector<ConfounderDef> defs;
  try {
    defs = read_confounders(data_path("confounders.csv"));
  } catch (const std::exception&) {
  }
  const CaseRules rules = read_case_rules();
  const CrossRunInput in{runs, defs, rules, profile, datasheets_path};
  for (const Claim& c : claims) {
    auto it = cross_run_registry().find(c.id);
    if (it != cross_run_registry().end()) out.push_back({c, it->second(c, in)});
  }
  return out;
}

}  // namespace rigcheck
