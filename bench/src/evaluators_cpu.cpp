// Verdicts of the CPU claims (CLAIMS.md section 1). One function per claim id.
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/csv.hpp"
#include "rigcheck/report.hpp"
#include "rigcheck/report_util.hpp"
#include "rigcheck/stats.hpp"

namespace rigcheck {
namespace {

// Parallel efficiency E(n) = X(n) / (n X(1)) of one benchmark, per thread count, in percent.
struct Scaling {
  std::map<int, Measured> rate;        // GFLOP/s per thread count
  std::map<int, Measured> efficiency;  // percent
  std::string what;                    // "gemm_matmul_f32 m=n=k=2048 (impl ...)"
};

Scaling scaling_of(const RunData& run, const std::string& bench, const std::string& size_key) {
  Scaling s;
  auto by_size = group_by_param(run.select(bench, "gflops"), size_key);
  // The largest problem measured on one thread.
  std::string size;
  for (auto& [sz, rows] : by_size) {
    bool has_one = false;
    for (const ResultRow* r : rows) has_one |= param_value(r->params, "threads") == "1";
    if (has_one && (size.empty() || std::atof(sz.c_str()) > std::atof(size.c_str()))) size = sz;
  }
  if (size.empty()) return s;
  std::map<int, std::vector<const ResultRow*>> by_t;
  std::string impl;
  for (const ResultRow* r : by_size[size]) {
    by_t[std::atoi(param_value(r->params, "threads").c_str())].push_back(r);
    impl = param_value(r->params, "impl");
  }
  for (auto& [t, rows] : by_t) s.rate[t] = measure(rows);
  const Measured& x1 = s.rate[1];
  for (auto& [t, x] : s.rate) {
    Measured e;
    e.value = 100 * x.value / (t * x1.value);
    e.low = 100 * x.low / (t * x1.high);
    e.high = 100 * x.high / (t * x1.low);
    e.reps = std::min(x.reps, x1.reps);
    s.efficiency[t] = e;
  }
  s.what = fmt::format("{} {}={} ({})", bench, size_key, size, impl);
  return s;
}

std::string describe(const Scaling& s) {
  std::string out = s.what + ":";
  for (auto& [t, x] : s.rate)
    out += fmt::format(" {}t {} GFLOP/s E={}%;", t, fmt_num(x.value), fmt_num(s.efficiency.at(t).value));
  out.pop_back();
  return out;
}

int physical_cores(const RunData& run) {
  auto it = run.facts.find("physical_cores");
  return it == run.facts.end() ? 0 : std::atoi(it->second.c_str());
}

// CPU-1: 8 cores reach 85% parallel efficiency.
const bool cpu1 = register_evaluator("CPU-1", [](const Claim& c, const RunData& run) {
  Verdict v;
  Scaling gemm = scaling_of(run, "gemm_matmul_f32", "m");
  if (gemm.rate.empty()) {
    v.verdict = "not_measurable";
    v.reason = "no gemm_matmul_f32 results at 1 thread in this run (" + manifest_status(run, "cpu_gemm") + ")";
    return v;
  }
  Scaling fc = scaling_of(run, "fc_inner_product_f32", "in");
  v.evidence = describe(gemm) + (fc.rate.empty() ? "" : "; " + describe(fc)) +
               ". The guide speaks of a ResNet-50 training step; that benchmark is not built yet, so this is GEMM";
  const int tmax = gemm.rate.rbegin()->first;
  if (tmax >= 8 && gemm.efficiency.count(8)) {
    v.measured = gemm.efficiency.at(8);
    v.verdict = judge(c, v.measured.low, v.measured.high);
    v.reason = "E(8) measured";
    return v;
  }
  v.measured = gemm.efficiency.at(tmax);
  if (tmax < 2) {
    v.verdict = "not_measurable";
    v.reason = fmt::format("needs at least 2 threads measured to fit a scaling model; this machine has {} physical core(s)",
                           physical_cores(run));
    return v;
  }
  std::vector<std::pair<double, double>> pts, lo_pts, hi_pts;
  for (auto& [t, e] : gemm.efficiency) {
    pts.push_back({t, e.value / 100 * t});
    lo_pts.push_back({t, e.low / 100 * t});
    hi_pts.push_back({t, e.high / 100 * t});
  }
  double p = amdahl_fit(pts);
  v.predicted = 100 * amdahl_speedup(p, 8) / 8;
  double plo = 100 * amdahl_speedup(amdahl_fit(lo_pts), 8) / 8, phi = 100 * amdahl_speedup(amdahl_fit(hi_pts), 8) / 8;
  v.verdict = "predicted";
  v.reason = fmt::format(
      "needs at least 8 physical cores, this machine has {}: measured E({}) = {:.1f}%; E(8) = {:.1f}% [{:.1f} to "
      "{:.1f}] is PREDICTED by an Amdahl fit (parallel fraction p = {:.4f}) of E(1..{}), not measured",
      physical_cores(run), tmax, v.measured.value, v.predicted, plo, phi, p, tmax);
  return v;
});

// CPU-4: L3 recommendation, consumer >= 16 MB, server >= 25 MB (MB read as MiB, as vendors do).
const bool cpu4 = register_evaluator("CPU-4", [](const Claim& c, const RunData& run) {
  Verdict v;
  double total = 0, one = 0;
  auto it = run.facts.find("cache_l3_total_bytes");
  auto it1 = run.facts.find("cache_l3_bytes");
  if (it == run.facts.end() || !parse_double(it->second, total) || it1 == run.facts.end() ||
      !parse_double(it1->second, one)) {
    v.verdict = "not_measurable";
    v.reason = "the inventory has no L3 size (cache_l3_total_bytes)";
    return v;
  }
  const bool server = run.facts.count("cpu_server_class") && run.facts.at("cpu_server_class") == "yes";
  const double need = server ? c.high : c.low;
  v.measured.value = v.measured.low = v.measured.high = total / 1048576.0;
  v.measured.reps = 1;
  v.unit = "MiB";
  v.evidence = fmt::format("inventory: L3 {} MiB in total ({} instance(s) of {} MiB), {} class CPU ({})",
                           fmt_num(total / 1048576.0), run.facts.count("cache_l3_instances") ? run.facts.at("cache_l3_instances") : "?",
                           fmt_num(one / 1048576.0), server ? "server" : "consumer",
                           run.facts.count("cpu_model") ? run.facts.at("cpu_model") : "?");
  v.verdict = v.measured.value >= need ? "confirmed" : "refuted";
  v.reason = fmt::format("a recommendation: this machine {} it ({} MiB {} {} MiB for a {} CPU)",
                         v.verdict == "confirmed" ? "meets" : "falls short of", fmt_num(v.measured.value),
                         v.verdict == "confirmed" ? ">=" : "<", fmt_num(need), server ? "server" : "consumer");
  return v;
});

// CPU-5: AVX-512 gives 20-30% over AVX2: geometric mean over oneDNN primitives of
// X(native, AVX-512 dispatched) / X(ISA capped at AVX2) - 1.
const bool cpu5 = register_evaluator("CPU-5", [](const Claim& c, const RunData& run) {
  Verdict v;
  if (unmet_needs(c, run, v)) return v;
  auto capped = group_by_param(run.select("isa_primitives", "gflops", {{"isa_cap", "avx2"}, {"dtype", "f32"}}), "primitive");
  auto native = group_by_param(run.select("isa_primitives", "gflops", {{"isa_cap", "native"}, {"dtype", "f32"}}), "primitive");
  double lr = 0, lr_lo = 0, lr_hi = 0;
  int n = 0, reps = 1 << 30;
  std::string isa_seen;
  for (auto& [prim, rows_n] : native) {
    auto it = capped.find(prim);
    if (it == capped.end()) continue;
    std::string isa = param_value(rows_n.front()->params, "isa");
    isa_seen = isa;
    if (isa.rfind("avx512", 0) != 0) continue;
    Measured a = measure(it->second), b = measure(rows_n);
    lr += std::log(b.value / a.value);
    lr_lo += std::log(b.low / a.high);
    lr_hi += std::log(b.high / a.low);
    reps = std::min({reps, a.reps, b.reps});
    ++n;
    v.evidence += fmt::format("{}{}: {} GFLOP/s capped at AVX2 ({}) vs {} GFLOP/s with {} ({}), {:+.1f}%",
                              v.evidence.empty() ? "" : "; ", prim, fmt_num(a.value),
                              param_value(it->second.front()->params, "impl"), fmt_num(b.value), isa,
                              param_value(rows_n.front()->params, "impl"), 100 * (b.value / a.value - 1));
  }
  if (n == 0) {
    v.verdict = "not_measurable";
    v.reason = isa_seen.empty()
                   ? "no isa_primitives results under both ISAs (" + manifest_status(run, "cpu_isa_avx2") + "; " +
                         manifest_status(run, "cpu_isa_native") + ")"
                   : "oneDNN dispatched " + isa_seen + " without a cap: no AVX-512 code path to compare";
    return v;
  }
  auto bf16 = run.select("isa_primitives", "gflops", {{"isa_cap", "native"}, {"dtype", "bf16"}});
  for (auto& [cs, rows] : bf16)
    v.evidence += fmt::format("; bf16 {} ({}): {} GFLOP/s", cs, param_value(rows.front()->params, "isa"),
                              fmt_num(measure(rows).value));
  v.measured.value = 100 * (std::exp(lr / n) - 1);
  v.measured.low = 100 * (std::exp(lr_lo / n) - 1);
  v.measured.high = 100 * (std::exp(lr_hi / n) - 1);
  v.measured.reps = reps;
  v.verdict = judge(c, v.measured.low, v.measured.high);
  v.reason = fmt::format("geometric mean over {} f32 primitive(s), same threads, one process per ISA", n);
  return v;
});

// CPU-6: "AMD EPYC 7003 supports AVX-512" is false (guide error); measured directly when this
// machine is such a CPU, else by the vendor's datasheet.
const bool cpu6 = register_evaluator("CPU-6", [](const Claim&, const RunData& run) {
  Verdict v;
  auto f = [&](const char* k) { return run.facts.count(k) ? run.facts.at(k) : std::string("unknown"); };
  const bool is_7003 = f("cpu_vendor") == "AuthenticAMD" && f("cpu_microarch") == "zen3" &&
                       f("cpu_model").find("EPYC") != std::string::npos;
  v.evidence = fmt::format("this machine: {} (family {} model {}, {}), avx512f {}", f("cpu_model"), f("cpu_family"),
                           f("cpu_model_number"), f("cpu_microarch"), f("isa_avx512f"));
  if (is_7003 && f("isa_avx512f") == "no") {
    v.verdict = "refuted";
    v.reason = "measured: this machine is an AMD EPYC of the Zen 3 generation (the 7003 series) and its CPUID "
               "reports no AVX-512";
    return v;
  }
  for (const DatasheetRow& d : read_datasheets(default_data_dir() + "/datasheets.csv"))
    if (d.product.find("EPYC 7003") != std::string::npos && d.property == "avx512") {
      v.verdict = d.value == "no" ? "refuted" : "confirmed";
      v.reason = fmt::format("datasheet (bench/data/datasheets.csv): {}: avx512 = {} ({})", d.product, d.value, d.source);
      return v;
    }
  v.verdict = "not_measurable";
  v.reason = "neither an EPYC 7003 machine nor a datasheet row to judge by";
  return v;
});

}  // namespace
}  // namespace rigcheck
