// Verdicts of the cache claims CPU-3 (an L3 large enough for a model's FC layer speeds it up) and
// CPU-4 (the L3 size): the measured effective L3 from cpu_cache_fc's working-set sweep, cross-checked
// against memory_latency's L3 end (docs/claims.md section 1).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/claims/cache_model.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "run_facts.hpp"

namespace rigcheck {
namespace {
using namespace run_facts;

// ------------------------------------------------------------------ the L3 working-set sweep
std::string mib_text(double bytes) { return fmt_num(bytes / 1048576.0) + " MiB"; }

// Rate curve (GFLOP/s) of fc_working_set_f32 at one batch, x = working set in bytes. Where several
// thread counts were swept (--threads), the fewest: the pinned single thread the cache question is
// measured with (cpu/cache_fc.cpp); *threads says which.
std::vector<CurvePoint> fc_curve(const RunData& run, const std::string& batch, const char* metric = names::kGflops,
                                 int* threads = nullptr) {
  int fewest = 0;
  for (auto& [cs, rows] : run.select(names::kFcWorkingSet, metric, {{"batch", batch}})) {
    const int t = std::atoi(param_value(rows.front()->params, "threads").c_str());
    if (t > 0 && (fewest == 0 || t < fewest)) fewest = t;
  }
  if (threads) *threads = fewest;
  std::map<std::string, std::string> where = {{"batch", batch}};
  if (fewest > 0) where["threads"] = std::to_string(fewest);
  std::vector<CurvePoint> curve;
  for (auto& [ws, rows] : group_by_param(run.select(names::kFcWorkingSet, metric, where), "working_set_bytes")) {
    Measured m = measure(rows);
    if (!m.ok()) continue;
    curve.push_back({std::atof(ws.c_str()), m.value, m.low, m.high});
  }
  std::sort(curve.begin(), curve.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.bytes < b.bytes; });
  return curve;
}

// No cache level is larger than the chip's: a knee or a latency plateau end above this
// multiple of the chip's L3 (the inventory's total, else one instance times the instances) is not
// an L3 and is mistrusted with the reason. The margin leaves room for the L2s beside the L3 and for
// a nominal size that undercounts.
constexpr double kChipCacheMargin = 1.5;

// The chip's L3 in bytes from the inventory; 0 when unknown.
double chip_l3_bytes(const RunData& run) {
  double total = 0, one = 0, instances = 0;
  if (parse_double(fact(run, "cache_l3_total_bytes"), total) && total > 0) return total;
  if (!parse_double(fact(run, "cache_l3_bytes"), one) || !(one > 0)) return 0;
  return parse_double(fact(run, "cache_l3_instances"), instances) && instances >= 1 ? one * instances : one;
}

// Empty, or why a cache end of `bytes` (what found it) cannot be the L3 of this chip.
std::string larger_than_chip(const RunData& run, double bytes, const std::string& what) {
  const double chip = chip_l3_bytes(run);
  if (!(chip > 0) || bytes <= kChipCacheMargin * chip) return "";
  return fmt::format(
      "MISTRUSTED: {} at {} lies above {}x the chip's L3 ({}, inventory): no cache level is larger than "
      "the chip's, so it is not the L3 (a noisy sweep, or a step in DRAM bandwidth or the TLB)",
      what, mib_text(bytes), fmt_num(kChipCacheMargin), mib_text(chip));
}

// The measured effective L3: the knee of the batch-1 FC curve (it streams its weights once a call).
Knee effective_l3(const RunData& run) {
  auto curve = fc_curve(run, "1", names::kGbps);
  if (curve.empty()) {
    Knee k;
    k.why = "no fc_working_set_f32 batch-1 results (" + manifest_status(run, "cpu_cache_fc") + ")";
    return k;
  }
  Knee k = find_knee(curve);
  if (k.found) {
    const std::string bad =
        larger_than_chip(run, k.below, fmt::format("the FC knee ({} to {})", mib_text(k.below), mib_text(k.above)));
    if (!bad.empty()) {
      k.found = false;
      k.why = bad;
    }
  }
  return k;
}

// The latency curve's L3 plateau end (latency_levels: level L3's level_size_bytes, the last buffer
// on the plateau, and level DRAM's first_bytes, the next buffer measured): the L3 ends between the
// two. 2 MiB pages first (the fine curve of the quick profile), else 4 KiB pages; found = false
// when not measured.
struct LatencyL3 {
  bool found = false;
  double last = 0, next = 0;  // bytes; next = last when the DRAM level is absent
  std::string pages;
  std::string mistrusted;  // why a plateau end found is not taken (larger than the chip's L3); found = false then
};
LatencyL3 latency_l3(const RunData& run) {
  LatencyL3 l;
  for (const char* pg : {"thp", "4k"})
    for (auto& [c, rows] : run.select(names::kLatencyLevels, names::kLevelSizeBytes, {{"level", "L3"}, {"pages", pg}}))
      if (!l.found && !rows.empty() && rows.front()->value > 0) {
        l.found = true;
        l.last = l.next = rows.front()->value;
        l.pages = pg;
        for (auto& [d, drows] :
             run.select(names::kLatencyLevels, names::kLevelLatencyNs, {{"level", "DRAM"}, {"pages", pg}})) {
          const double first = std::atof(param_value(drows.front()->params, "first_bytes").c_str());
          if (first > l.last) l.next = first;
        }
      }
  if (l.found) {
    l.mistrusted = larger_than_chip(run, l.last, "the latency curve's L3 plateau end");
    if (!l.mistrusted.empty()) l.found = false;
  }
  return l;
}

std::string latency_l3_span(const LatencyL3& l) {
  return l.next > l.last ? fmt::format("between {} and {}", mib_text(l.last), mib_text(l.next))
                         : "near " + mib_text(l.last);
}

std::string latency_l3_text(const RunData& run) {
  const LatencyL3 l = latency_l3(run);
  if (!l.mistrusted.empty()) return "; the latency curve's L3 plateau end is not taken: " + l.mistrusted;
  return l.found ? fmt::format("; the latency curve's L3 plateau ends {} ({} pages)", latency_l3_span(l), l.pages) : "";
}

// The FC knee and the latency curve's L3 end disagree when the knee's crossing point lies more than
// 2x outside the interval where the latency plateau ends (the 2-core VM's run: a knee near 40 MiB against a
// plateau ending at 5.7-8 MiB). The crossing point, not the bracketing sizes, so that a knee moving
// by one grid step between runs does not flip the comparison.
bool l3_disagree(const Knee& eff, const LatencyL3& l) {
  return eff.found && l.found && (eff.at > 2 * l.next || eff.at < l.last / 2);
}
}  // namespace

namespace {

const bool cpu4 = register_evaluator("CPU-4", [](const Claim& c, const RunData& run) {
  Verdict v;
  // cache_l3_bytes: one instance, as the inventory chose it among its sources (an implausible hwloc or
  // cpuid figure left out: inventory cache_l3_candidates).
  double total = 0, one = 0;
  const bool have_total = parse_double(fact(run, "cache_l3_total_bytes"), total);
  const bool have_one = parse_double(fact(run, "cache_l3_bytes"), one);
  Knee eff = effective_l3(run);
  const LatencyL3 lat = latency_l3(run);
  std::string eff_text =
      eff.found
          ? fmt::format("measured effective L3 {} to {}, about {} (knee of the batch-1 FC working-set curve: {}){}",
                        mib_text(eff.below), mib_text(eff.above), mib_text(eff.at), eff.why, latency_l3_text(run))
          : "measured effective L3: not found (" + eff.why + ")" + latency_l3_text(run);
  if (eff.why.rfind("MISTRUSTED", 0) == 0 || !lat.mistrusted.empty())
    eff_text += "; the verdict below stands on the nominal size, which no mistrusted figure enters";
  if (l3_disagree(eff, lat))
    eff_text += fmt::format(
        "; the two DISAGREE by more than 2x (FC knee {} to {}, latency curve {}): streaming the "
        "weights and chasing pointers see different effective caches here, neither is taken alone",
        mib_text(eff.below), mib_text(eff.above), latency_l3_span(lat));
  else if (eff.found && lat.found)
    eff_text += " (within 2x of the FC knee: they agree)";
  if (!have_total && !have_one) {
    v.verdict = Outcome::not_measurable;
    v.reason = "the inventory has no plausible L3 size from any source (" + fact(run, "cache_l3_candidates") + "); " +
               eff_text;
    return v;
  }
  // Server class: the part's (the inventory's cpu_server_class, from its name), or a machine of two
  // or more sockets, which only servers are.
  double sockets = 0;
  const bool multi_socket = parse_double(fact(run, "sockets"), sockets) && sockets >= 2;
  const bool server = fact(run, "cpu_server_class") == "yes" || multi_socket;
  const double need = server ? c.high : c.low;
  // One instance: the L3 one core can use. A total over instances (two sockets' L3s added) is no
  // cache any core has; it is taken only where the inventory knows no instance's size.
  const double nominal = have_one ? one : total;
  v.measured.value = v.measured.low = v.measured.high = nominal / 1048576.0;
  v.measured.reps = 1;
  v.unit = "MiB";
  v.basis = Basis::inventory;
  v.evidence = fmt::format(
      "nominal L3 {} {} (source: {}; instances: {}{}), {} class CPU ({}{}); {}", mib_text(nominal),
      have_one ? "in one instance, the most one core can use" : "in total (no instance's size known)",
      fact(run, "cache_l3_source"), fact(run, "cache_l3_instances"),
      have_total && have_one && total > nominal ? ", " + mib_text(total) + " in all" : "",
      server ? "server" : "consumer", fact(run, "cpu_model"),
      multi_socket && fact(run, "cpu_server_class") != "yes" ? fmt::format(", {:.0f} sockets", sockets) : "", eff_text);
  v.verdict = v.measured.value >= need ? Outcome::confirmed : Outcome::refuted;
  v.reason = fmt::format("a recommendation about the part: it {} it ({} MiB {} {} MiB for a {} CPU)",
                         v.verdict == Outcome::confirmed ? "meets" : "falls short of", fmt_num(v.measured.value),
                         v.verdict == Outcome::confirmed ? ">=" : "<", fmt_num(need), server ? "server" : "consumer");
  if (eff.found && eff.above < nominal)
    v.reason += fmt::format(
        ". Warning: these cores effectively get only about {} to {} of it (shared with, or "
        "partitioned from, other tenants or cores)",
        mib_text(eff.below), mib_text(eff.above));
  return v;
});

// The emulated gain of every FC layer of data/fc_layers.csv at batch 1, 16 and 64, summed as logs for
// their geometric mean: at the effective L3's middle and both ends of its interval.
struct LayerGains {
  double lsum = 0, lsum_lo = 0, lsum_hi = 0;
  int n = 0, reps = 1 << 30, l2_points = 0, out_of_range = 0;
  std::string detail;  // per batch, per layer
};
LayerGains emulate_layers(const RunData& run, double c_lo, double c_mid, double c_hi, double l2_total) {
  const double c_small = 16.0 * 1048576, c_big = 32.0 * 1048576;
  LayerGains g;
  std::vector<FcLayer> layers = read_fc_layers(data_path("fc_layers.csv"));
  for (const char* batch : {"1", "16", "64"}) {
    auto curve = fc_curve(run, batch);
    if (curve.size() < 2) continue;
    std::string per;
    for (const FcLayer& l : layers) {
      const double w = 4 * l.in * l.out;
      EmulatedGain mid = emulate_cache_gain(curve, w, c_mid, c_small, c_big, 0, 0);
      if (!mid.in_range) {
        ++g.out_of_range;
        continue;
      }
      double lo = INFINITY, hi = -INFINITY;
      for (double ce : {c_lo, c_hi}) {
        lo = std::min(lo, emulate_cache_gain(curve, w, ce, c_small, c_big, +1, -1).gain);
        hi = std::max(hi, emulate_cache_gain(curve, w, ce, c_small, c_big, -1, +1).gain);
      }
      if (l2_total > 0 && mid.w_big < l2_total) ++g.l2_points;
      g.lsum += std::log1p(mid.gain);
      g.lsum_lo += std::log1p(lo);
      g.lsum_hi += std::log1p(hi);
      ++g.n;
      per += fmt::format("{}{} {} {:+.0f}%", per.empty() ? "" : ", ", l.model, l.layer, 100 * mid.gain);
    }
    for (auto& [ws, rows] :
         group_by_param(run.select(names::kFcWorkingSet, names::kGflops, {{"batch", batch}}), "working_set_bytes"))
      g.reps = std::min(g.reps, static_cast<int>(rows.size()));
    if (!per.empty()) g.detail += fmt::format("{}batch {}: {}", g.detail.empty() ? "" : "; ", batch, per);
  }
  return g;
}

// CPU-3: L3 from 16 MB to 32 MB makes FC layers 18% faster. Where Linux resctrl cache allocation
// exists the two L3 sizes could be set and measured; where it does not, the gain is EMULATED from
// the working-set curve (docs/methodology.md): a cache of C running working set W behaves as the
// measured effective cache C_eff running W x C_eff / C. Evaluated for the FC layers of the guide's
// models (data/fc_layers.csv) at batch 1, 16 and 64.
const bool cpu3 = register_evaluator("CPU-3", [](const Claim& c, const RunData& run) {
  Verdict v;
  Knee eff = effective_l3(run);
  const LatencyL3 lat = latency_l3(run);
  // The effective L3 the emulation scales by: the FC knee's interval; where the latency curve's L3
  // end is measured too, an interval spanning both; where no knee was found, the
  // latency curve's L3 end alone. Where they disagree by more than 2x, or no knee was found, the
  // verdict stays inconclusive, saying why.
  double c_lo = eff.below, c_hi = eff.above, c_mid = std::sqrt(eff.below * eff.above);
  std::string doubt;
  if (!eff.found && lat.found) {
    c_lo = lat.last, c_hi = lat.next, c_mid = std::sqrt(lat.last * lat.next);
    doubt = fmt::format(
        "the FC working-set curve shows no knee ({}), so the emulation scales by the latency curve's "
        "L3 end ({}) alone",
        eff.why, latency_l3_span(lat));
  } else if (!eff.found) {
    v.verdict = Outcome::not_measurable;
    v.reason =
        "Linux resctrl cache allocation is not used by this suite yet, and the emulation needs the measured "
        "effective L3, which was not found: " +
        eff.why + "; nor was an L3 level on the latency curve" +
        (lat.mistrusted.empty() ? std::string() : " (" + lat.mistrusted + ")");
    return v;
  } else if (lat.found) {
    // Both measured: the interval spans both, so that a latency curve moving across the 2x line
    // between runs widens or narrows the interval instead of flipping the verdict by itself.
    c_lo = std::min(eff.below, lat.last);
    c_hi = std::max(eff.above, lat.next);
  }
  if (l3_disagree(eff, lat)) {
    doubt = fmt::format(
        "the effective L3 is uncertain: the FC knee ({} to {}) and the latency curve's L3 end ({}) "
        "disagree by more than 2x; the interval spans both",
        mib_text(eff.below), mib_text(eff.above), latency_l3_span(lat));
  }
  int curve_threads = 0;  // the L2 reach is that of the cores the curve ran on
  fc_curve(run, "1", names::kGflops, &curve_threads);
  const double l2_total = std::atof(fact(run, "cache_l2_bytes").c_str()) *
                          (curve_threads > 0 ? curve_threads : std::max(1, usable_cores(run)));
  const LayerGains g = emulate_layers(run, c_lo, c_mid, c_hi, l2_total);
  const double lsum = g.lsum, lsum_lo = g.lsum_lo, lsum_hi = g.lsum_hi;
  const int n = g.n, reps = g.reps, l2_points = g.l2_points, out_of_range = g.out_of_range;
  const std::string& detail = g.detail;
  if (n == 0) {
    v.verdict = Outcome::not_measurable;
    v.reason = "the FC working-set curve does not cover the scaled working sets of any layer of data/fc_layers.csv";
    return v;
  }
  v.measured.value = 100 * std::expm1(lsum / n);
  v.measured.low = 100 * std::expm1(lsum_lo / n);
  v.measured.high = 100 * std::expm1(lsum_hi / n);
  v.measured.reps = reps;
  v.verdict = doubt.empty() ? judge(c, v.measured.low, v.measured.high) : Outcome::inconclusive;
  v.basis = Basis::emulated;
  v.evidence = fmt::format(
      "EMULATED, not measured (resctrl L3 allocation: {}). Effective L3 {} to {} "
      "({}){}; a 16 MiB and a 32 MiB L3 emulated by reading the measured "
      "curve at W x C_eff / 16 MiB and W x C_eff / 32 MiB. Per layer (median): {}",
      fact(run, "resctrl_l3"), mib_text(c_lo), mib_text(c_hi),
      !eff.found ? std::string("the latency curve's L3 end: no FC knee")
      : !lat.found
          ? std::string("knee of the batch-1 FC curve")
          : fmt::format("spanning the batch-1 FC knee, {} to {}, and the latency curve's L3 end{}", mib_text(eff.below),
                        mib_text(eff.above), l3_disagree(eff, lat) ? ", which disagree by more than 2x" : ""),
      latency_l3_text(run), detail);
  v.reason = fmt::format(
      "geometric mean over {} layer x batch points; the interval spans the effective L3's interval "
      "and the repetitions' min and max. Confounders: the effective L3 is known only to within its "
      "interval (included); L1/L2 and TLB reach do not scale with the emulated L3 ({} point(s) read the "
      "curve below the cores' {} of L2, where the emulation overstates the gain); {} point(s) fell "
      "outside the measured curve and were left out",
      n, l2_points, mib_text(l2_total), out_of_range);
  if (!doubt.empty()) v.reason = "INCONCLUSIVE whatever the figure: " + doubt + ". " + v.reason;
  return v;
});

}  // namespace
}  // namespace rigcheck
