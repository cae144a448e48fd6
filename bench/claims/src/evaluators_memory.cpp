// Verdicts of the memory claims (docs/claims.md section 3). One function per claim id.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "rigcheck/harness/stats.hpp"
#include "interleaved.hpp"

namespace rigcheck {
namespace {

std::string fact(const RunData& run, const char* k) { return fact_or(run.facts, k, "not in the inventory"); }

// Median [min, max] of every ok repetition of one case selected by params.
Measured one(const RunData& run, const std::string& bench, const std::string& metric,
             const std::map<std::string, std::string>& where) {
  std::vector<const ResultRow*> all;
  for (auto& [cs, rows] : run.select(bench, metric, where)) all.insert(all.end(), rows.begin(), rows.end());
  return all.empty() ? Measured{} : measure(all);
}

// Ratio a / b - 1 in percent with the interval the noise allows.
Measured gain(const Measured& a, const Measured& b) {
  Measured g;
  g.value = 100 * (a.value / b.value - 1);
  g.low = 100 * (a.low / b.high - 1);
  g.high = 100 * (a.high / b.low - 1);
  g.reps = std::min(a.reps, b.reps);
  return g;
}

// The gain a / b - 1 in percent per pair of interleaved repetitions (Case::interleave: repetition i of
// each side ran next to the other in one process), median and min to max over the pairs, when both
// sides' ok rows carry the same `interleaved` key and share repetition indices; else nothing (n 0).
Measured paired_gain(const RunData& run, const std::string& bench, const std::string& metric, const char* a_pages,
                     const char* b_pages) {
  auto rows_of = [&](const char* pages) {
    std::vector<const ResultRow*> out;
    for (auto& [cs, rows] : run.select(bench, metric, {{"pages", pages}}))
      out.insert(out.end(), rows.begin(), rows.end());
    return out;
  };
  std::vector<double> g = interleaved::ratios(rows_of(b_pages), rows_of(a_pages));
  for (double& x : g) x = 100 * (x - 1);
  Measured m;
  if (g.empty()) return m;
  Summary s = summarize(g);
  m.value = s.median, m.low = s.min, m.high = s.max, m.reps = static_cast<int>(s.n);
  return m;
}

std::string dimms(const RunData& run) {
  return fmt::format("this run's DIMMs: type {}, speed {}, configured speed {}, count {}",
                     fact(run, "memory_dimm_type"), fact(run, "memory_dimm_speed"),
                     fact(run, "memory_dimm_configured_speed"), fact(run, "memory_dimm_count"));
}

// A triad figure this machine cannot give (physically implausible results are not trusted
// silently): above its DIMMs' peak (configured MT/s x 8 bytes x DIMMs, an upper bound whatever the
// channels), or measured on arrays that fit in the chip's L3 (STREAM's rule: each array at least
// 4x the last-level cache), so a cache figure labelled DRAM. Empty, or the reason it is mistrusted.
std::string triad_mistrust(const RunData& run, const std::string& params, const Measured& m) {
  double mts = 0, dimms = 0, l3 = 0, l3_one = 0, instances = 0;
  std::string why;
  if (parse_double(fact(run, "memory_dimm_configured_speed"), mts) &&
      parse_double(fact(run, "memory_dimm_count"), dimms) && mts > 0 && dimms > 0 &&
      m.value > mts * 1e6 * 8 * dimms / 1e9)
    why = fmt::format("above the DIMMs' peak ({} MT/s x 8 B x {} DIMMs = {} GB/s)", fmt_num(mts), fmt_num(dimms),
                      fmt_num(mts * 8 * dimms / 1e3));
  if (!(parse_double(fact(run, "cache_l3_total_bytes"), l3) && l3 > 0) &&
      parse_double(fact(run, "cache_l3_bytes"), l3_one) && l3_one > 0)
    l3 = l3_one * (parse_double(fact(run, "cache_l3_instances"), instances) && instances >= 1 ? instances : 1);
  const double array = std::atof(param_value(params, "array_bytes").c_str());
  if (array > 0 && l3 > 0 && array < 4 * l3)
    why += fmt::format(
        "{}each array ({} MiB) is smaller than 4x the L3 ({} MiB): partly cache-resident, not DRAM's "
        "bandwidth",
        why.empty() ? "" : "; ", fmt_num(array / 1048576), fmt_num(l3 / 1048576));
  return why.empty() ? "" : "MISTRUSTED: " + why;
}

// Triad at the most threads measured, best store kind (the figure a second run compares).
std::string triad_summary(const RunData& run) {
  std::string best;
  double best_v = 0;
  for (auto& [cs, rows] : run.select(names::kMemoryBandwidth, names::kGbps, {{"kernel", "triad"}})) {
    Measured m = measure(rows);
    const int t = std::atoi(param_value(rows.front()->params, "threads").c_str());
    const double key = t * 1e6 + m.value;
    if (key > best_v) {
      best_v = key;
      best = fmt::format("STREAM triad {} ({} stores, {} threads)", format_measured(m, "GB/s"),
                         param_value(rows.front()->params, "stores"), t);
      const std::string bad = triad_mistrust(run, rows.front()->params, m);
      if (!bad.empty()) best += " " + bad;
    }
  }
  return best.empty() ? "no stream_bandwidth triad rows (" + manifest_status(run, "memory_bandwidth") + ")" : best;
}

// Latency at the largest buffer of the 2 MiB-page curve (4 KiB pages when that is absent).
std::string far_latency(const RunData& run) {
  for (const char* pages : {"thp", "4k"}) {
    double largest = 0;
    std::vector<const ResultRow*> rows;
    for (auto& [cs, rs] : run.select(names::kMemoryLatency, names::kNsPerLoad, {{"pages", pages}})) {
      const double b = std::atof(param_value(rs.front()->params, "bytes").c_str());
      if (b > largest) largest = b, rows = rs;
    }
    if (!rows.empty())
      return fmt::format("random pointer chase over {} MiB ({} pages): {}", fmt_num(largest / 1048576), pages,
                         format_measured(measure(rows), "ns per load"));
  }
  return "no memory_latency rows (" + manifest_status(run, "memory_latency") + ")";
}

// The inventory's nominal size of a cache level (sysfs, hwloc, cpuinfo or the datasheet, with the
// source it names), or what it says of its absence.
std::string nominal_size(const RunData& run, const std::string& level) {
  const std::string key = level == "L1" ? "l1d" : level == "L2" ? "l2" : level == "L3" ? "l3" : "";
  if (key.empty()) return "no such level in the inventory";
  auto it = run.inventory.find("cache_" + key + "_bytes");
  if (it == run.inventory.end()) return "not in the inventory";
  char* end = nullptr;
  const double b = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || !(b > 0)) return it->second;
  auto src = run.inventory.find("cache_" + key + "_source");
  return fmt::format("{} KiB, {}", fmt_num(b / 1024), src == run.inventory.end() ? "source not recorded" : src->second);
}

// The plateaus found on the latency curve beside the inventory's nominal cache sizes.
std::string levels(const RunData& run) {
  std::string out;
  // By size: L1, L2, L3 (L4...), then DRAM (the cases come sorted by name, "DRAM" first).
  std::vector<std::pair<std::string, const ResultRow*>> found;
  for (auto& [cs, rows] : run.select(names::kLatencyLevels, names::kLevelLatencyNs, {{"pages", "thp"}}))
    found.emplace_back(param_value(rows.front()->params, "level"), rows.front());
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return (a.first == "DRAM" ? "~" : a.first) < (b.first == "DRAM" ? "~" : b.first);
  });
  for (const auto& [lv, row] : found) {
    Measured size = one(run, names::kLatencyLevels, names::kLevelSizeBytes, {{"pages", "thp"}, {"level", lv}});
    out += fmt::format(
        "{}{} {} ns{}", out.empty() ? "" : ", ", lv, fmt_num(row->value),
        size.ok() ? fmt::format(" up to {} KiB (nominal {})", fmt_num(size.value / 1024), nominal_size(run, lv)) : "");
  }
  return out.empty() ? "" : "; levels found on the curve (2 MiB pages): " + out;
}

// MEM-2 and MEM-3 compare DDR5-5200 with DDR4-3200: two machines. Here the run records what a
// second run must differ in and the figures `rigcheck compare` will set side by side.
// What a claim that needs a second machine adds to its not_measurable verdict (whose reason names
// what the run lacks, if anything): `what_differs` the second run must differ in, this run's DIMMs
// and `evidence`.
void second_machine(const RunData& run, const std::string& what_differs, const std::string& evidence, Verdict& v) {
  v.reason += fmt::format("{}a second run on a machine whose memory differs in DIMM type and speed ({}), {}; {}",
                          v.reason.empty() ? "" : "; ", what_differs, "the rest alike, compared with rigcheck compare",
                          dimms(run));
  v.evidence = evidence;
}

void mem2_text(const Claim&, const RunData& run, Verdict& v) {
  second_machine(run, "DDR5-5200 vs DDR4-3200", triad_summary(run) + "; GEMM: see cpu_gemm", v);
}

void mem3_text(const Claim&, const RunData& run, Verdict& v) {
  second_machine(run, "DDR5 vs DDR4", far_latency(run) + levels(run), v);
}

// One run cannot judge a claim about two machines, its needs met or not: not measurable, with the
// same text as where the framework found the needs unmet.
Verdict one_run_of_two(const Claim& c, const RunData& run, void (*text)(const Claim&, const RunData&, Verdict&)) {
  Verdict v;
  v.verdict = Outcome::not_measurable;
  text(c, run, v);
  return v;
}

const bool mem2 = register_evaluator(
    "MEM-2", [](const Claim& c, const RunData& run) { return one_run_of_two(c, run, mem2_text); }, mem2_text);
const bool mem3 = register_evaluator(
    "MEM-3", [](const Claim& c, const RunData& run) { return one_run_of_two(c, run, mem3_text); }, mem3_text);

// What drives MEM-4's figure: the first-touch cost per page under each advice (thp_alloc's
// first_touch_us_per_page rows; from its time_per_iter and bytes in runs made before them): the
// cycle is page faults and zeroing, so the gain is mostly this machine's cost of a 4 KiB fault
// (high under a hypervisor) against one 2 MiB fault per 512 of them.
Measured first_touch(const RunData& run, const char* pages) {
  Measured m = one(run, names::kThpAlloc, names::kFirstTouchUsPerPage, {{"pages", pages}});
  if (m.ok()) return m;
  std::vector<double> us;
  const double page = std::string(pages) == "thp" ? 2.0 * 1048576 : 4096.0;
  for (auto& [cs, rows] : run.select(names::kThpAlloc, names::kTimePerIter, {{"pages", pages}}))
    for (const ResultRow* r : rows) {
      const double bytes = std::atof(param_value(r->params, "bytes").c_str());
      if (bytes >= page && std::isfinite(r->value)) us.push_back(1e6 * r->value / (bytes / page));
    }
  if (us.empty()) return m;
  Summary s = summarize(us);
  m.value = s.median, m.low = s.min, m.high = s.max, m.reps = static_cast<int>(us.size());
  return m;
}

std::string first_touch_text(const RunData& run) {
  Measured small = first_touch(run, "4k"), huge = first_touch(run, "thp");
  if (!small.ok() || !huge.ok()) return "; first-touch cost per page: not measured";
  const double per_byte = (small.value / 4096) / (huge.value / (2.0 * 1048576));
  auto it = run.facts.find("virtualization");
  const std::string virt =
      it == run.facts.end() || it->second.empty() || it->second == "none" || it->second.rfind("unknown", 0) == 0
          ? std::string()
          : " (virtualization: " + it->second + ", where each 4 KiB fault also goes through the hypervisor)";
  return fmt::format(
      "; what drives it: first touch (allocation cycle per page, mmap and munmap included) costs {} "
      "per 4 KiB page and {} per 2 MiB page ({} per 4 KiB of it), so a 4 KiB-paged byte costs {}x a "
      "huge-paged one: the figure is this machine's page-fault cost{}, not only what THP does",
      format_measured(small, "us"), format_measured(huge, "us"), fmt_num(huge.value / 512) + " us", fmt_num(per_byte),
      virt);
}

// MEM-4: "THP makes memory allocation 30% more efficient". Judged by the allocation cycle's rate
// (mmap + madvise + first touch of every page + munmap of a >= 1 GiB buffer), MADV_HUGEPAGE vs
// MADV_NOHUGEPAGE in one process: allocation efficiency = bytes made usable per second.
// GUPS (random access into the allocated memory) is shown beside it, not judged.
const bool mem4 = register_evaluator("MEM-4", [](const Claim& c, const RunData& run) {
  Verdict v;
  Measured huge = one(run, names::kThpAlloc, names::kGbps, {{"pages", "thp"}});
  Measured small = one(run, names::kThpAlloc, names::kGbps, {{"pages", "4k"}});
  if (!huge.ok() || !small.ok()) {
    v.verdict = Outcome::not_measurable;
    int mistrusted = 0;
    for (const ResultRow& r : run.results)
      mistrusted += r.benchmark == names::kThpAlloc && r.metric == names::kGbps && r.status == Status::mistrusted;
    v.reason = fmt::format(
        "no ok thp_alloc rows for both advices ({}; {} repetition(s) mistrusted: another process took the CPU)",
        manifest_status(run, "memory_thp"), mistrusted);
    return v;
  }
  const Measured paired = paired_gain(run, names::kThpAlloc, names::kGbps, "thp", "4k");
  v.measured = paired.reps > 0 ? paired : gain(huge, small);
  v.unit = "%";
  v.verdict = judge(c, v.measured.low, v.measured.high);
  v.basis = Basis::measured;
  auto facts_of = [&](const char* bench, const char* pages) {
    auto sel = run.select(bench, names::kTimePerIter, {{"pages", pages}});
    if (sel.empty()) return std::string("?");
    const std::string& p = sel.begin()->second.front()->params;
    return fmt::format("{} MiB, AnonHugePages {} MiB", fmt_num(std::atof(param_value(p, "bytes").c_str()) / 1048576),
                       fmt_num(std::atof(param_value(p, "anon_huge_bytes").c_str()) / 1048576));
  };
  v.evidence = fmt::format("thp_alloc (allocate + first touch + free): MADV_HUGEPAGE {} ({}), MADV_NOHUGEPAGE {} ({})",
                           format_measured(huge, "GB/s"), facts_of(names::kThpAlloc, "thp"),
                           format_measured(small, "GB/s"), facts_of(names::kThpAlloc, "4k"));
  v.evidence +=
      paired.reps > 0
          ? fmt::format(
                "; gain per pair of interleaved repetitions (the two advices alternating in one process; median "
                "and min to max over {} pairs)",
                paired.reps)
          : "; gain from the medians of repetitions not interleaved (the interval spans their min and max)";
  Measured gh = one(run, names::kThpGups, "gups", {{"pages", "thp"}}),
           gs = one(run, names::kThpGups, "gups", {{"pages", "4k"}});
  if (gh.ok() && gs.ok())
    v.evidence +=
        fmt::format("; GUPS random updates: MADV_HUGEPAGE {} ({}), MADV_NOHUGEPAGE {} ({}), {:+.1f}% (not judged)",
                    format_measured(gh, "GUP/s"), facts_of(names::kThpGups, "thp"), format_measured(gs, "GUP/s"),
                    facts_of(names::kThpGups, "4k"), 100 * (gh.value / gs.value - 1));
  v.evidence += first_touch_text(run);
  v.reason = fmt::format(
      "allocation efficiency read as the rate at which a fresh buffer becomes usable (allocate, first touch, free), "
      "huge "
      "pages vs 4 KiB pages in one process; THP mode {} / defrag {} (no system setting changed: the guide's \"always\" "
      "is emulated per buffer with madvise)",
      fact(run, "thp_enabled"), fact(run, "thp_defrag"));
  return v;
});

}  // namespace
}  // namespace rigcheck

namespace rigcheck {
namespace {

// MEM-1: host RAM = parameters x 4 B x batch + 8 GB. Per point measured (peak RSS of a child
// process running two CPU training steps), the formula's process term (parameters x 4 B x
// batch) is set beside the peak RSS: it agrees when inside +-25% of it. The claim's row carries
// the guide's own example (BERT-large, batch 32) when measured, else the largest point measured.
constexpr double kFormulaTolerance = 0.25;

const bool mem1 = register_evaluator("MEM-1", [](const Claim&, const RunData& run) {
  Verdict v;
  v.unit = "GB";
  struct Pt {
    std::string name;
    Measured rss;  // GB
    double formula = 0, formula_total = 0, estimate = 0;
    std::string parts;
  };
  std::vector<Pt> pts;
  for (auto& [cs, rows] : run.select(names::kHostMemoryTraining, names::kPeakRssBytes)) {
    const std::string& p = rows.front()->params;
    // The reference MLP (model=mlp, memory_host's step rate for rigcheck capacity) is no model of
    // the guide's: it has no formula to check.
    if (param_value(p, "guide_formula_process_bytes").empty()) continue;
    auto num = [&](const char* k) { return std::atof(param_value(p, k).c_str()); };
    Pt pt;
    pt.name = cs;
    Measured m = measure(rows);
    pt.rss = {m.value / 1e9, m.low / 1e9, m.high / 1e9, m.reps};
    pt.formula = num("guide_formula_process_bytes") / 1e9;
    pt.formula_total = num("guide_formula_bytes") / 1e9;
    pt.estimate = num("estimate_bytes") / 1e9;
    pt.parts =
        fmt::format("weights {} + gradients {} + momentum {} + activations {}",
                    fmt_num(num("estimate_weights_bytes") / 1e9), fmt_num(num("estimate_gradients_bytes") / 1e9),
                    fmt_num(num("estimate_optimizer_bytes") / 1e9), fmt_num(num("estimate_activations_bytes") / 1e9));
    pts.push_back(pt);
  }
  std::string skipped;
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kHostMemoryTraining && r.status == Status::skipped)
      skipped += fmt::format("; {} skipped: {}", r.case_name, r.note);
  if (pts.empty()) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no host_memory_training peak RSS rows (" + manifest_status(run, "memory_host") + ")" + skipped;
    return v;
  }
  int agree = 0, disagree = 0;
  const Pt* headline = nullptr;
  for (const Pt& pt : pts) {
    const double err = pt.formula / pt.rss.value - 1;
    const double lo = pt.formula / pt.rss.high - 1, hi = pt.formula / pt.rss.low - 1;
    if (std::fabs(lo) <= kFormulaTolerance && std::fabs(hi) <= kFormulaTolerance) ++agree;
    if ((lo > kFormulaTolerance && hi > kFormulaTolerance) || (lo < -kFormulaTolerance && hi < -kFormulaTolerance))
      ++disagree;
    v.evidence += fmt::format(
        "{}{}: peak RSS {}; guide formula {} GB ({} GB x batch term + 8 GB), formula error {:+.0f}% (its x batch term "
        "vs the peak RSS; with the 8 GB reserve on both sides {:+.0f}%); analytic estimate {} GB ({}), error {:+.0f}%",
        v.evidence.empty() ? "" : "; ", pt.name, format_measured(pt.rss, "GB"), fmt_num(pt.formula_total),
        fmt_num(pt.formula), 100 * err, 100 * (pt.formula_total / (pt.rss.value + 8) - 1), fmt_num(pt.estimate),
        pt.parts, 100 * (pt.estimate / pt.rss.value - 1));
    const bool guide_point = pt.name.rfind("bert_large/b32/", 0) == 0;
    if (guide_point || !headline ||
        (headline->name.rfind("bert_large/b32/", 0) != 0 && pt.estimate > headline->estimate))
      headline = &pt;
  }
  v.measured = headline->rss;
  v.verdict = disagree                                ? Outcome::refuted
              : agree == static_cast<int>(pts.size()) ? Outcome::confirmed
                                                      : Outcome::inconclusive;
  v.basis = Basis::measured;
  v.reason = fmt::format(
      "measured: {} (the guide's own example is BERT-large batch 32{}); the formula's x batch term agrees with the "
      "peak RSS (within +-{:.0f}%) at {} of {} points and misses beyond the noise at {}{}",
      headline->name,
      headline->name.rfind("bert_large/b32/", 0) == 0 ? ", measured here" : ", not measured in this run",
      100 * kFormulaTolerance, agree, pts.size(), disagree, skipped);
  // A job under a memory limit measured only the points that fit in it (memory_host skips the others
  // against the limit, not the machine's memory): the verdict says which bound the points.
  double limit = 0;
  if (parse_double(fact(run, "memory_limit_bytes"), limit) && limit > 0) {
    std::string from = fact(run, "memory_limit");  // "BYTES (where it comes from)"
    if (auto p = from.find(" ("); p != std::string::npos) from = from.substr(p + 2, from.size() - p - 3);
    v.reason += fmt::format(
        "; this run could use at most {:.1f} GiB ({}): the points that would not fit in it were "
        "skipped, the others are measured as on the whole machine",
        limit / 1073741824.0, from);
  }
  return v;
});

}  // namespace
}  // namespace rigcheck
