// Verdicts of the storage claims (docs/claims.md section 4): IO-1, IO-2, IO-3.
// Data: io_fio (benchmark "fio"), io_dataloader ("dataloader_io_wait", "dataloader_vs_fio").
#include <algorithm>
#include <cmath>
#include <set>

#include <optional>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {

namespace {

// A guide figure as a one-off claim that judge() understands.
Outcome judge_figure(const GuideClass& g, double figure, const Measured& m) {
  Claim c;
  c.id = "IO-2/" + g.cls;
  if (g.kind == "at_least") {
    c.kind = ClaimKind::at_least;
    c.low = figure;
  } else {
    c.kind = ClaimKind::range;
    c.low = figure * (1 - g.tol_pct / 100);
    c.high = figure * (1 + g.tol_pct / 100);
  }
  return judge(c, m.low, m.high);
}

Outcome combine(const std::vector<Outcome>& vs) {
  if (std::find(vs.begin(), vs.end(), Outcome::refuted) != vs.end()) return Outcome::refuted;
  if (std::all_of(vs.begin(), vs.end(), [](Outcome v) { return v == Outcome::confirmed; })) return Outcome::confirmed;
  return Outcome::inconclusive;
}

std::string first_param(const std::vector<const ResultRow*>& rows, const std::string& key) {
  return rows.empty() ? "" : param_value(rows.front()->params, key);
}

// IO-2: per device class measured here, fio sequential read (1 MiB, QD32) and 4 KiB random read
// at QD32 x jobs, against the guide's row for that class.
const bool io2 = register_evaluator("IO-2", [](const Claim&, const RunData& run) {
  Verdict v;
  std::vector<GuideClass> guide = read_guide_classes(data_path("guide_storage_classes.csv"));
  auto seq = group_by_param(run.select(names::kFio, names::kGbps, {{"rw", "read"}, {"bs", "1048576"}}), "device_class");
  auto rnd = group_by_param(
      run.select(names::kFio, names::kIops, {{"rw", "randread"}, {"bs", "4096"}, {"iodepth", "32"}}), "device_class");
  auto qd1 = group_by_param(
      run.select(names::kFio, names::kIops, {{"rw", "randread"}, {"bs", "4096"}, {"iodepth", "1"}}), "device_class");
  if (seq.empty() && rnd.empty()) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no fio results in this run (" + manifest_status(run, "io_fio_disk") + "; " +
               manifest_status(run, "io_fio_tmpfs") + ")";
    return v;
  }
  std::vector<Outcome> verdicts;
  std::set<std::string> classes;
  for (auto& [c, _] : seq) classes.insert(c);
  for (auto& [c, _] : rnd) classes.insert(c);
  std::string judged;
  for (const std::string& cls : classes) {
    const auto& srows = seq[cls];
    const auto& rrows = rnd[cls];
    const std::string gname = first_param(srows.empty() ? rrows : srows, "guide_class");
    const std::string dev = first_param(srows.empty() ? rrows : srows, "device");
    Measured s = measure(srows), r = measure(rrows), q = measure(qd1[cls]);
    std::string line = fmt::format(
        "{} ({}, {}): seq read 1 MiB QD32 {} GB/s, 4 KiB rand read QD32x{} {} IOPS, QD1 {} IOPS "
        "[{} {}]",
        cls, dev, first_param(srows.empty() ? rrows : srows, "fstype"), s.ok() ? format_measured(s, "") : "-",
        first_param(rrows, "numjobs"), r.ok() ? format_measured(r, "") : "-", q.ok() ? fmt_num(q.value) : "-",
        first_param(srows.empty() ? rrows : srows, "ioengine"),
        first_param(srows.empty() ? rrows : srows, "fio_version"));
    const GuideClass* g = nullptr;
    for (const GuideClass& x : guide)
      if (x.cls == gname) g = &x;
    if (!g) {
      line += "; the guide's table has no row for this class (SATA SSD, NVMe SSD, Optane, RAM disk only)";
    } else {
      std::optional<Outcome> vs, vi;
      if (s.ok()) vs = judge_figure(*g, g->gbps, s);
      if (r.ok()) vi = judge_figure(*g, g->iops, r);
      line += fmt::format("; guide's {} row: {} {} GB/s -> {}, {} {} IOPS -> {}", g->cls,
                          g->kind == "at_least" ? ">=" : "~", fmt_num(g->gbps), vs ? to_string(*vs) : "not measured",
                          g->kind == "at_least" ? ">=" : "~", fmt_num(g->iops), vi ? to_string(*vi) : "not measured");
      if (vs) verdicts.push_back(*vs);
      if (vi) verdicts.push_back(*vi);
      if (judged.empty() && s.ok()) {
        v.measured = s;
        v.unit = "GB/s";
        judged = g->cls;
      }
    }
    v.evidence += (v.evidence.empty() ? "" : "; ") + line;
  }
  if (verdicts.empty()) {
    v.verdict = Outcome::not_measurable;
    v.reason =
        "the devices measured here have no row in the guide's table: needs a SATA SSD, NVMe SSD, Optane or a "
        "RAM disk (tmpfs) under the scratch directory";
    return v;
  }
  v.verdict = combine(verdicts);
  v.basis = Basis::measured;
  v.reason = fmt::format(
      "judged on the classes that have a guide row (approx rows +/- {}%, RAM disk at least); "
      "Measured shows the {} row's sequential read",
      guide.empty() ? 0 : guide.front().tol_pct, judged);
  return v;
});

struct WaitPoint {
  double ratio = 0;
  int workers = 0, prefetch = 0;
  Measured wait;
  std::string batch, compute;
};

std::vector<WaitPoint> wait_points(const RunData& run) {
  std::vector<WaitPoint> out;
  for (auto& [cs, rows] : run.select(names::kDataloaderIoWait, names::kIoWaitPerStep)) {
    WaitPoint p;
    p.ratio = std::atof(first_param(rows, "ratio").c_str());
    p.workers = std::atoi(first_param(rows, "workers").c_str());
    p.prefetch = std::atoi(first_param(rows, "prefetch").c_str());
    p.batch = first_param(rows, "batch");
    p.compute = first_param(rows, "compute");
    p.wait = measure(rows);
    out.push_back(p);
  }
  std::sort(out.begin(), out.end(), [](const WaitPoint& a, const WaitPoint& b) {
    return std::tie(a.ratio, a.workers, a.prefetch) < std::tie(b.ratio, b.workers, b.prefetch);
  });
  return out;
}

const WaitPoint* find_point(const std::vector<WaitPoint>& ps, double ratio, int w, int p) {
  for (const WaitPoint& x : ps)
    if (std::fabs(x.ratio - ratio) < 1e-9 && x.workers == w && (w == 0 || x.prefetch == p)) return &x;
  return nullptr;
}

// IO-3: 1 - wait(4 workers x prefetch 2) / wait(0 workers), at compute:I/O ratio 1.
const bool io3 = register_evaluator("IO-3", [](const Claim& c, const RunData& run) {
  Verdict v;
  std::vector<WaitPoint> ps = wait_points(run);
  const WaitPoint *w0 = find_point(ps, 1, 0, 0), *w4 = find_point(ps, 1, 4, 2);
  if (!w0 || !w4) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no dataloader_io_wait results at ratio 1 for 0 and 4x2 workers (" +
               manifest_status(run, "io_dataloader") + ")";
    return v;
  }
  auto red = [](const Measured& a, const Measured& b) {  // 1 - b/a in %
    Measured m;
    m.value = 100 * (1 - b.value / a.value);
    m.low = 100 * (1 - b.high / a.low);
    m.high = 100 * (1 - b.low / a.high);
    m.reps = std::min(a.reps, b.reps);
    return m;
  };
  v.measured = red(w0->wait, w4->wait);
  v.verdict = judge(c, v.measured.low, v.measured.high);
  v.basis = Basis::measured;
  v.evidence = fmt::format(
      "batch {}, compute by {}; I/O wait per step, 0 workers vs 4 workers x prefetch 2, by "
      "compute:I/O ratio:",
      w0->batch, w0->compute);
  for (const WaitPoint& p : ps) {
    if (p.workers != 0) continue;
    const WaitPoint* q = find_point(ps, p.ratio, 4, 2);
    if (!q) continue;
    v.evidence += fmt::format(" r{:g}: {} ms -> {} ms ({:.0f}% less);", p.ratio, fmt_num(1e3 * p.wait.value),
                              fmt_num(1e3 * q->wait.value), 100 * (1 - q->wait.value / p.wait.value));
  }
  v.evidence += " workers at ratio 1:";
  for (const WaitPoint& p : ps)
    if (std::fabs(p.ratio - 1) < 1e-9)
      v.evidence += fmt::format(" {}x{} {} ms;", p.workers, p.prefetch, fmt_num(1e3 * p.wait.value));
  v.evidence.pop_back();
  v.reason = fmt::format(
      "reduction = 1 - wait(4x2) / wait(0) at compute time = one batch's single-thread load time "
      "(ratio 1); page cache bypassed{}",
      w0->batch == "64" ? "" : "; NOTE batch " + w0->batch + ", not the guide's 64 (a tiny run)");
  return v;
});

// IO-1: the IOPS a pipeline issues = step rate x batch x reads per sample; the guide's
// "batch x 200" has no time in it (guide error). Measured: reads per sample, device level.
const bool io1 = register_evaluator("IO-1", [](const Claim&, const RunData& run) {
  Verdict v;
  auto dev = run.select(names::kDataloaderIoWait, names::kDeviceReadsPerSample);
  auto sys = run.select(names::kDataloaderIoWait, names::kReadsPerSample);
  auto iops = run.select(names::kDataloaderIoWait, names::kIopsIssued);
  auto rate = run.select(names::kDataloaderIoWait, names::kStepRateRun);
  auto dev_iops = run.select(names::kDataloaderIoWait, names::kDeviceIops);
  if (sys.empty() || iops.empty()) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no dataloader_io_wait results (" + manifest_status(run, "io_dataloader") + ")";
    return v;
  }
  std::vector<const ResultRow*> all_dev, all_sys;
  for (auto& [cs, rows] : dev) all_dev.insert(all_dev.end(), rows.begin(), rows.end());
  for (auto& [cs, rows] : sys) all_sys.insert(all_sys.end(), rows.begin(), rows.end());
  Measured per_sample = measure(all_dev.empty() ? all_sys : all_dev);
  const std::string batch = first_param(iops.begin()->second, "batch");
  const double b = std::atof(batch.c_str());
  const Measured sysm = measure(all_sys);
  v.measured = per_sample;
  v.unit = all_dev.empty() ? "preads/sample" : "device reads/sample";
  // The formula the measurement supports: IOPS = step rate x batch x reads per sample, checked
  // against the reads the device itself completed (an independent count).
  double worst = 0;
  std::string curve;
  for (auto& [cs, rows] : iops) {
    auto it = rate.find(cs);
    if (it == rate.end()) continue;
    Measured i = measure(rows), s = measure(it->second);
    auto d = dev_iops.find(cs);
    const double dv = d == dev_iops.end() ? NAN : measure(d->second).value;
    if (!std::isnan(dv)) worst = std::max(worst, std::fabs(dv / (s.value * b) - 1));
    curve += fmt::format(" {}: {} steps/s -> {} preads/s{};", cs, fmt_num(s.value), fmt_num(i.value),
                         std::isnan(dv) ? "" : ", device " + fmt_num(dv) + " reads/s");
  }
  v.evidence = fmt::format(
      "batch {}, one sample = one file of {} bytes read whole: {} pread(s) and {} device read(s) "
      "per sample. IOPS issued by step rate (whole runs):{} the device's IOPS = step rate x batch "
      "x reads per sample within {:.0f}% in every case (device counts include other processes)",
      batch, first_param(iops.begin()->second, "sample_bytes"), fmt_num(sysm.value),
      all_dev.empty() ? "-" : fmt_num(per_sample.value), curve, 100 * worst);
  // The guide's 200 reads per sample against the measured count.
  Claim c;
  c.id = "IO-1";
  c.kind = ClaimKind::approx;
  c.low = 200;
  c.tolerance = 0.5 * 200;
  v.verdict = judge(c, per_sample.low, per_sample.high);
  v.basis = Basis::measured;
  v.reason = fmt::format(
      "the guide's 200 IOPS per sample, read as reads per sample, against {} measured; its 12,800 "
      "would be issued at batch {} only at {} steps/s with this many reads per sample. IOPS needs a "
      "step rate: 12,800 has no time in it",
      fmt_num(per_sample.value), batch, fmt_num(12800 / (b * per_sample.value)));
  return v;
});

}  // namespace
}  // namespace rigcheck
