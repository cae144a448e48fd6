// One zoo model's answer (capacity.hpp): its memory line through memory_host's measured points
// (or the analytic estimate), the largest batch, the step time there, and the answer in words.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/report/report_util.hpp"
#include "capacity_internal.hpp"

namespace rigcheck::capacity_detail {

namespace {

// The depth probes' extrapolated point in words (mc.probe.batch > 0).
std::string probe_words(const ModelCapacity& mc) {
  std::string depths;
  for (auto& [l, v] : mc.probe.peak_by_layers)
    depths += fmt::format("{}{} layer(s) {}", depths.empty() ? "" : ", ", l, gib(v));
  return fmt::format(
      "b{}'s peak extrapolated to all {} layers, {}, from the model cut to fewer there ({}: {:.2f} GiB per "
      "layer); the zoo's analytic activations per sample are {:.1f} MiB (live tensors: glibc's heap keeps "
      "freed ones of under 32 MiB resident)",
      mc.probe.batch, mc.probe.model_layers, gib(mc.probe.whole), depths, mc.probe.per_layer / kGiB,
      mc.analytic_slope / 1048576);
}

// The line in words: its figures and where its slope comes from (the line a near-limit check
// tested, then the refined one), without the closing parenthesis.
std::string line_words(const ModelCapacity& mc, const MemoryPoint* lo_or_null, const MemoryPoint& hi,
                       double tested_slope, const std::string& seq_words) {
  const double mib = 1048576;
  std::string why;
  if (!lo_or_null) {  // one regular batch (the quick profile): no slope was measured
    why = mc.probe.batch > 0
              ? fmt::format("the line through b{}, the one measured batch, and {}", hi.batch, probe_words(mc))
              : fmt::format("through the one measured batch, b{}, at the zoo's analytic activations per sample",
                            hi.batch);
    if (mc.refined_by_check)
      why = fmt::format(
          "the line through b{} and the near-limit check b{}; the line the check tested: {:.1f} MiB per "
          "sample through b{}{}; no slope measured: one batch",
          hi.batch, mc.check_batch, tested_slope / mib, hi.batch,
          mc.probe.batch > 0 ? " and " + probe_words(mc) : ", the zoo's analytic activations per sample");
    return fmt::format("peak RSS = {} + {:.1f} MiB per sample{} ({}", gib(mc.fit.intercept), mc.fit.slope / mib,
                       seq_words, why);
  }
  const MemoryPoint& lo = *lo_or_null;
  if (mc.refined_by_check)
    why = fmt::format(
        "the line through b{} and the near-limit check b{}; the line the check tested: {:.1f} MiB per sample "
        "through b{}{}; the slope measured from b{}: {:.1f} MiB",
        hi.batch, mc.check_batch, tested_slope / mib, hi.batch,
        mc.probe.batch > 0  ? " and " + probe_words(mc)
        : mc.slope_analytic ? ", the zoo's analytic activations per sample"
                            : "",
        lo.batch, mc.measured_slope / mib);
  else if (mc.probe.batch > 0)
    why = fmt::format("the line through b{} and {}; the slope measured from b{}: {:.1f} MiB", hi.batch, probe_words(mc),
                      lo.batch, mc.measured_slope / mib);
  else if (mc.slope_analytic)
    why = fmt::format(
        "through the largest measured batch, b{}, at the zoo's analytic activations per sample: the slope "
        "measured from b{} is {} ({:.1f} MiB), {}",
        hi.batch, lo.batch, mc.measured_slope > tested_slope ? "larger" : "smaller", mc.measured_slope / mib,
        mc.measured_slope > tested_slope ? "still holding fixed costs that grow at small batches"
                                         : "under what large batches cost: the allocator still reuses "
                                           "freed memory at small batches");
  else
    why = fmt::format("the line through the two largest measured batches, b{} and b{}", lo.batch, hi.batch);
  return fmt::format("peak RSS = {} + {:.1f} MiB per sample{} ({}", gib(mc.fit.intercept), mc.fit.slope / mib,
                     seq_words, why);
}

// A model's measured points, by batch, ascending: the regular ones draw the line, the near-limit
// checks (.../check) are set against it.
struct ZooPoints {
  std::vector<MemoryPoint> regular, checks;
};

ZooPoints measured_points(const RunData& run, const zoo::ModelConfig& cfg, ModelCapacity& mc) {
  ZooPoints pts;
  // The measured points, grouped by sequence length: the group with the most batches. A case
  // named .../check is a near-limit check point (memory_host): kept out of the line, set against it.
  using ByBatch = std::map<std::pair<int, bool>, std::vector<double>>;  // (batch, check) -> values
  std::map<int, ByBatch> peaks, steps;                                  // seq -> ...
  int threads = 0;
  auto key = [](const ResultRow* r) {
    return std::make_pair(std::atoi(param_value(r->params, "batch").c_str()),
                          r->case_name.find("/check") != std::string::npos);
  };
  for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kPeakRssBytes, {{"model", cfg.name}}))
    for (const ResultRow* r : rows) {
      if (is_depth_probe(*r)) continue;  // depth_probe() reads them
      peaks[std::atoi(param_value(r->params, "seq", "0").c_str())][key(r)].push_back(r->value);
      threads = std::max(threads, std::atoi(param_value(r->params, "threads").c_str()));
    }
  for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kStepTime, {{"model", cfg.name}}))
    for (const ResultRow* r : rows)
      if (!is_depth_probe(*r)) steps[std::atoi(param_value(r->params, "seq", "0").c_str())][key(r)].push_back(r->value);
  mc.threads = threads;
  int seq = -1;
  for (auto& [s, by_b] : peaks)
    if (seq < 0 || by_b.size() >= peaks[seq].size()) seq = s;
  mc.seq = seq < 0 ? (cfg.arch == zoo::Arch::bert || cfg.arch == zoo::Arch::gpt2 ? cfg.seq_len : 0) : seq;
  mc.estimate_b1 = zoo_estimate(cfg, 1, mc.seq);
  if (seq >= 0)
    for (auto& [k, v] : peaks[seq]) {
      MemoryPoint p;
      p.batch = k.first;
      p.check = k.second;
      p.peak_bytes = median_of(v);
      p.reps = static_cast<int>(v.size());
      if (steps[seq].count(k)) p.step_s = median_of(steps[seq][k]);
      mc.points.push_back(p);
      (p.check ? pts.checks : pts.regular).push_back(p);
    }
  std::sort(mc.points.begin(), mc.points.end(),
            [](const MemoryPoint& a, const MemoryPoint& b) { return a.batch < b.batch; });
  return pts;
}

// The memory line and the largest batch; returns the slope of the line a near-limit check tested.
double draw_line(const RunData& run, const zoo::ModelConfig& cfg, ModelCapacity& mc, const ZooPoints& pts) {
  double tested = 0;
  const double analytic = zoo_estimate(cfg, 2, mc.seq) - zoo_estimate(cfg, 1, mc.seq);
  mc.analytic_slope = analytic;
  if (pts.regular.size() >= 2 || (pts.regular.size() == 1 && analytic > 0)) {
    // The line through the two LARGEST measured batches: below a few samples the peak sits under
    // the line the larger batches follow (light_cnn b2 was 0.1 GiB under the b8-b326 line, so a
    // b2-b8 line overstated the per-sample cost by 45%; docs/performance.md "capacity").
    // One measured batch (the quick profile): the line through it at the analytic slope,
    // which is what two batches give too (below); the measured slope is then unknown.
    const MemoryPoint& hi = pts.regular.back();
    const MemoryPoint* lo = pts.regular.size() >= 2 ? &pts.regular[pts.regular.size() - 2] : nullptr;
    mc.fit = lo ? fit_linear({{double(lo->batch), lo->peak_bytes}, {double(hi.batch), hi.peak_bytes}})
                : LinearFit{hi.peak_bytes - analytic * hi.batch, analytic, kNaN, 1};
    // Even there the slope between small batches is not the one large batches follow, in either
    // direction, while the activations autograd keeps per sample (zoo analytic, with the loss's
    // gradients at the start of the backward pass) are: ResNet-50 118 MB/sample from b4 to b8,
    // 86.5 from b8 to b112, analytic 85.9; light_cnn 34.2 from b32 to b326, analytic 33.7; GPT-2
    // (seq 64) 57.9 from b8 to b16 but 109 from b16 to b150, analytic 96.1; BERT-base (seq 64)
    // 62.4 from b8 to b16, analytic 44.5, within 8% at b200. Where the zoo has the model, its
    // analytic slope, the line kept through the largest measured point.
    mc.measured_slope = lo ? mc.fit.slope : kNaN;
    if (!lo) mc.slope_analytic = true;
    if (lo && analytic > 0 && std::fabs(analytic - mc.fit.slope) > 1e-9 * analytic) {
      mc.fit.slope = analytic;
      mc.fit.intercept = hi.peak_bytes - analytic * hi.batch;
      mc.slope_analytic = true;
    }
    // Depth probes measured near the limit: the allocator's real cost there, not the analytic one
    // (BERT-large b40, seq 128: +24% over it, within 0.0% extrapolated from one and two layers).
    mc.probe = depth_probe(run, cfg.name, mc.seq, cfg.layers, hi.batch);
    if (mc.probe.batch > 0) {
      mc.fit = fit_linear({{double(hi.batch), hi.peak_bytes}, {double(mc.probe.batch), mc.probe.whole}});
      mc.slope_analytic = false;
    }
    mc.has_fit = true;
    mc.basis = lo || mc.probe.batch > 0 ? "measured fit" : "one measured batch, analytic slope";
    limit_of(mc);
    if (!pts.checks.empty()) {  // the near-limit check: measured there, against the line
      const MemoryPoint& near = pts.checks.back();
      mc.check_batch = near.batch;
      mc.check_measured = near.peak_bytes;
      mc.check_predicted = mc.fit.at(near.batch);
      // The check is the measurement nearest the limit: the largest batch is then drawn from the
      // line through it and the largest pts.regular batch (the check's error above is against the
      // line before it, which is what it tests).
      tested = mc.fit.slope;
      if (near.batch > hi.batch) {
        mc.fit = fit_linear({{double(hi.batch), hi.peak_bytes}, {double(near.batch), near.peak_bytes}});
        mc.refined_by_check = true;
        limit_of(mc);
      }
    } else if (pts.regular.size() >= 3) {  // the largest point against the line of the two below it
      const MemoryPoint &a = pts.regular[pts.regular.size() - 3], &b = pts.regular[pts.regular.size() - 2];
      LinearFit f = fit_linear({{double(a.batch), a.peak_bytes}, {double(b.batch), b.peak_bytes}});
      mc.check_batch = hi.batch;
      mc.check_measured = hi.peak_bytes;
      mc.check_predicted = f.at(hi.batch);
    }
  } else {
    // No line from measurements: the zoo's analytic estimate, labelled.
    mc.basis = "analytic estimate (not measured)";
    mc.fit = fit_linear({{1.0, zoo_estimate(cfg, 1, mc.seq)}, {2.0, zoo_estimate(cfg, 2, mc.seq)}});
    limit_of(mc);
  }
  return tested;
}

// The step time: at the limit when measured there, else at the largest measured batch; what limits it.
void step_of(ModelCapacity& mc, const zoo::ModelConfig& cfg, const Machine& machine_any) {
  // Step time: at the limit when measured there, else at the largest measured batch.
  for (const MemoryPoint& p : mc.points)  // by batch, ascending: the largest timed one wins
    if (!std::isnan(p.step_s) && mc.step_batch != mc.limit_batch) mc.step_s = p.step_s, mc.step_batch = p.batch;
  if (mc.step_batch > 0) {
    mc.step_basis = mc.step_batch == mc.limit_batch
                        ? "measured at that batch"
                        : fmt::format("measured at batch {} (the largest measured), not at the limit", mc.step_batch);
    mc.samples_per_s = mc.step_batch / mc.step_s;
    Machine m = machine_any;
    const double flops = zoo::training_flops_per_step(cfg, mc.step_batch, mc.seq);
    fill_limits(mc, m, flops, 2 * zoo_estimate(cfg, mc.step_batch, mc.seq), mc.step_s, mc.step_batch);
  } else {
    mc.step_basis = "no step time measured (memory_host's step_time rows)";
    mc.bottleneck = "none can be named: no step of this model was timed";
  }
}

std::string answer_words(const ModelCapacity& mc, const ZooPoints& pts, double tested_slope, double usable) {
  const std::string seq_words = mc.seq > 0 ? fmt::format(" at sequence length {}", mc.seq) : "";
  // The answer in words.
  std::string t;
  if (mc.has_fit) {
    t = line_words(mc, pts.regular.size() >= 2 ? &pts.regular[pts.regular.size() - 2] : nullptr, pts.regular.back(),
                   mc.refined_by_check ? tested_slope : mc.fit.slope, seq_words) +
        (pts.regular.size() > 2
             ? fmt::format("; {} smaller batch(es) measured, left out: small batches sit below the line "
                           "the larger ones follow)",
                           pts.regular.size() - 2)
             : ")");
  } else {
    t = fmt::format(
        "{} measured batch{}{}: no line can be fitted; the zoo's analytic estimate instead (weights, "
        "gradients, momentum, activations; not measured): {} at batch 1, {} per sample",
        pts.regular.size(), pts.regular.size() == 1 ? "" : "es", seq_words, gib(mc.estimate_b1),
        fmt::format("{:.1f} MiB", mc.fit.slope / 1048576));
  }
  if (mc.limit_batch == 0)
    t += fmt::format(". **Cannot fit at batch 1**: {} predicted{} against {} usable (analytic estimate at batch 1: {})",
                     gib(mc.fit.at(1)), mc.has_fit ? "" : " (estimate)", gib(usable), gib(mc.estimate_b1));
  else if (mc.limit_batch < 0)
    t += ". The memory does not grow with the batch in these points: no limit can be drawn";
  else
    t += fmt::format(". Largest batch: **{}** ({}: {} of {} usable{})", mc.limit_batch,
                     mc.has_fit ? "predicted" : "estimated, not measured", gib(mc.predicted_at_limit), gib(usable),
                     mc.refined_by_check ? fmt::format("; from the line through b{} and the near-limit check b{}",
                                                       pts.regular.back().batch, mc.check_batch)
                                         : "");
  if (mc.has_fit && mc.check_batch > 0)
    t += fmt::format(". {}: batch {}, {} measured against {} predicted by {} ({:+.1f}%)",
                     pts.checks.empty() ? "The largest measured point" : "Near-limit check", mc.check_batch,
                     gib(mc.check_measured), gib(mc.check_predicted),
                     pts.checks.empty() ? "the line of the two batches below it" : "the line",
                     100 * (mc.check_measured - mc.check_predicted) / mc.check_predicted);
  else if (mc.has_fit && mc.probe.batch > 0)
    t += fmt::format(
        ". Nothing checks the line: b{} was measured cut to fewer layers, not whole (a near-limit check: "
        "memory_host --profile full, or RIGCHECK_CAPACITY_CHECK={}:{}{})",
        mc.probe.batch, mc.model, mc.probe.batch, mc.seq > 0 ? fmt::format(":{}", mc.seq) : "");
  else if (mc.has_fit && pts.regular.size() == 1)
    t += ". Nothing checks the line: one batch measured, the slope is the zoo's analytic one, and no near-limit check "
         "point (memory_host --profile full, or RIGCHECK_CAPACITY_CHECK)";
  else if (mc.has_fit)
    t += fmt::format(
        ". Nothing checks the line: exactly two batches measured ({}) and no near-limit check point "
        "(memory_host --profile full, or RIGCHECK_CAPACITY_CHECK)",
        mc.slope_analytic ? "it passes through the larger" : "it passes through both");
  return t;
}

}  // namespace

ModelCapacity zoo_model(const RunData& run, const zoo::ModelConfig& cfg, const Machine& machine_any, double usable,
                        const CapacityOptions&) {
  ModelCapacity mc;
  mc.model = cfg.name;
  mc.usable_bytes = usable;
  mc.params = static_cast<double>(zoo::count_parameters(cfg).total());
  const ZooPoints pts = measured_points(run, cfg, mc);
  const double tested_slope = draw_line(run, cfg, mc, pts);
  step_of(mc, cfg, machine_any);
  mc.text = answer_words(mc, pts, tested_slope, usable);
  return mc;
}

}  // namespace rigcheck::capacity_detail
