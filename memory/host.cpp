// memory_host (MEM-1): peak resident memory (VmHWM) of CPU training steps of the zoo's models at
// several batch sizes, each point in its own process (memory_train_step, beside this binary),
// set beside the guide's formula (parameters x 4 B x batch + 8 GB) and the suite's analytic
// estimate (weights + gradients + optimizer state + activations, models/zoo.hpp). Before each
// point, free memory (MemAvailable) is checked against the estimate: a point that might push
// the machine into swap or the OOM killer is skipped with the reason.
//
// Rows: the harness's timing rows (the child's wall time, Case::manual_time), and per child process
// a peak_rss_bytes row (with its baseline_rss_bytes and step_time), status ok when the child's own
// check passed, written as soon as that child ends (write_row_now): a memory_host cut short by
// the runner's timeout keeps the peaks of every child that finished (the runner salvages the
// .partial and marks the benchmark `timeout`, "cut short").
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "host_points.hpp"
#include "memutil.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/session.hpp"
#include "rigcheck/harness/write_row_now.hpp"

namespace rigcheck::mem {
namespace {
using host::env_points;
using host::estimate_of;
using host::kProbeLayers;
using host::Point;
using host::point_params;
using host::points;
using host::probe_params;

struct ChildRun {
  double vmhwm = NAN, baseline = NAN, seconds = NAN, step_seconds = NAN;
  double flops_per_sample = NAN;  // the reference MLP's training flops per sample, as the child printed them
  double wall = NAN;  // the child process's wall time, start to exit (seconds: its own, from the model's build)
  bool ok = false;
  std::string why;
};
// Every child's figures, per case name (the near-limit check chooses its batch from them).
std::map<std::string, std::vector<ChildRun>>& child_runs() {
  static std::map<std::string, std::vector<ChildRun>> m;
  return m;
}

// ---- the full profile's depth probes and near-limit check, chosen from the model's own earlier points
struct PointInfo {
  std::string model;
  int seq = 0;
  int batch = 0;  // set when chosen (a probe's or a check's batch 0: at run time)
  bool check = false;
  int layers = 0;  // a depth probe: the model cut to this many layers (0: the whole model)
};
std::map<std::string, PointInfo>& point_info() {  // case name -> its point
  static std::map<std::string, PointInfo> m;
  return m;
}

int64_t mem_total_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key, rest;
  long long kb = 0;
  while (f >> key >> kb) {
    std::getline(f, rest);
    if (key == "MemTotal:") return static_cast<int64_t>(kb) * 1024;
  }
  return -1;
}

constexpr double kGiB = 1073741824.0;
constexpr double kNearFraction = 0.6;    // of the predicted largest batch
constexpr double kLowestFraction = 0.2;  // the least a check may be lowered to for time
// Seconds the check's ONE child process may take (HostStep::run_timed), a depth probe's child the same.
// A check's child, predicted from the largest regular point in proportion to the training flops, ran
// 65-119 s against this 75 in the full runs of 2026-12-06, whose memory_host took 633-687 s of 30 minutes.
constexpr double kChildBudgetS = 75;
constexpr double kKeepFreeBytes = 4 * kGiB;  // left free beside the check's predicted peak

// One child process's rows, written now (write_row_now): the peak, the baseline RSS before the
// model, the last step's time (not for a depth probe: not the model's step). `index`: the child's
// number within its case (0: the check's).
void write_child_rows(const std::string& case_name, const Params& params, int batch, int index, const ChildRun& r,
                      bool probe, bool only_child) {
  ResultRow d;
  d.benchmark = names::kHostMemoryTraining;
  d.case_name = case_name;
  d.params = format_params(params);
  d.repetition = index;
  std::string emulated;  // under emulation the child's clock and RSS are qemu's (session.hpp)
  d.status = !r.ok ? Status::failed : trust_emulated(&emulated);
  const std::string pre = emulated.empty() ? "" : emulated + "; ";
  d.note =
      !r.ok   ? r.why
      : probe ? fmt::format(
                    "the model cut to {} of its layers, one child process ({:.1f} s): rigcheck capacity "
                    "extrapolates the whole model's peak in depth from these",
                    param_value(d.params, "layers"), r.wall)
      : only_child
          ? fmt::format(
                "the one child process of this point (the quick profile: its check is the "
                "measurement); {:.1f} s ({:.1f} s from the model's build)",
                r.wall, r.seconds)
          : fmt::format(
                "child process {} of this point (the first is the check); {:.1f} s ({:.1f} s from the model's build)",
                index + 1, r.wall, r.seconds);
  if (r.ok) d.note = pre + d.note;
  d.metric = names::kPeakRssBytes;
  d.value = r.ok ? r.vmhwm : NAN;
  d.unit = "B";
  write_row_now(d);
  if (r.ok && r.baseline > 0) {
    d.metric = names::kBaselineRssBytes;
    d.value = r.baseline;
    d.note = pre + "the child's RSS after loading LibTorch, before building the model";
    write_row_now(d);
  }
  if (r.ok && r.step_seconds > 0 && !probe) {  // rigcheck capacity: the step time at this batch
    d.metric = names::kStepTime;
    d.value = r.step_seconds;
    d.unit = "s";
    d.note = pre + "the child's last training step alone (the optimizer state already made)";
    write_row_now(d);
    if (r.flops_per_sample > 0) {  // the reference MLP: the rate LibTorch's training step reaches here
      d.metric = names::kGflops;
      d.value = r.flops_per_sample * batch / r.step_seconds / 1e9;
      d.unit = "GFLOP/s";
      d.note = pre + fmt::format(
                         "the last step's {:.4g} GFLOP ({:.0f} per sample x {}, the child's shape_flops_per_sample) / "
                         "its step_time: what rigcheck capacity estimates a dense user model's step at",
                         r.flops_per_sample * batch / 1e9, r.flops_per_sample, batch);
      write_row_now(d);
    }
  }
}

double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// What rigcheck capacity draws for `model` from the points measured so far (its rule, the same
// figures): the line through the largest regular batch at the zoo's analytic activations per
// sample, or, once depth probes were measured at a larger batch, through that batch's peak
// extrapolated in depth to all the model's layers (through the two deepest probes: capacity's
// least squares over the depths is the same line for kProbeLayers' two). Skip with the reason
// when there is none.
struct Line {
  double icpt = 0, slope = 0;
  int lo = 0, hi = 0;         // the two largest regular batches
  double t_lo = 0, t_hi = 0;  // their child processes' seconds (median)
  int probe_batch = 0;        // > 0: the line passes through the probes' extrapolated peak there
  long limit = 0;             // the largest batch under the usable memory (total less max(10%, 2 GiB))
  double at(double b) const { return icpt + slope * b; }
};
Line line_of(const std::string& model, int seq) {
  std::map<int, std::vector<double>> peak, secs;
  std::map<int, std::map<int, std::vector<double>>> probes;  // batch -> layers -> peaks
  for (auto& [name, info] : point_info()) {
    if (info.model != model || info.seq != seq || info.check) continue;
    for (const ChildRun& r : child_runs()[name])
      if (r.ok && info.layers > 0)
        probes[info.batch][info.layers].push_back(r.vmhwm);
      else if (r.ok)
        peak[info.batch].push_back(r.vmhwm), secs[info.batch].push_back(r.wall);
  }
  if (peak.size() < 2)
    throw Skip(
        fmt::format("fewer than two batches of {} measured before: no line to choose a near-limit batch from", model));
  Line l;
  const auto hi = std::prev(peak.end()), lo = std::prev(hi);
  l.hi = hi->first, l.lo = lo->first, l.t_hi = med(secs[l.hi]), l.t_lo = med(secs[l.lo]);
  l.slope = estimate_of(model, 2, seq).total() - estimate_of(model, 1, seq).total();
  if (!(l.slope > 0)) l.slope = (med(hi->second) - med(lo->second)) / (l.hi - l.lo);
  for (auto& [b, by_layers] : probes) {  // the largest probed batch with two depths: its extrapolated peak
    if (b <= l.hi || by_layers.size() < 2) continue;
    const auto d2 = std::prev(by_layers.end()), d1 = std::prev(d2);
    const double per_layer = (med(d2->second) - med(d1->second)) / (d2->first - d1->first);
    const double whole = med(d2->second) + per_layer * (zoo::config_by_name(model).layers - d2->first);
    l.probe_batch = b;
    l.slope = (whole - med(hi->second)) / (b - l.hi);
  }
  l.icpt = med(hi->second) - l.slope * l.hi;
  const double total = static_cast<double>(mem_total_bytes());
  if (!(l.slope > 0) || total <= 0)
    throw Skip("the measured peak does not grow with the batch (or MemTotal unreadable): no limit to check");
  const double usable = total - std::max(0.1 * total, 2 * kGiB);
  l.limit = static_cast<long>(std::floor((usable - l.icpt) / l.slope));
  if (l.limit < 4)
    throw Skip(fmt::format("predicted largest batch {}: too small for a separate near-limit point", l.limit));
  return l;
}

// A child's seconds at `batch` with `layers` of the model (0: all), in proportion to the zoo's
// training flops from the largest regular point's: the fixed seconds make it pessimistic at small
// batches, and steps grow faster than the batch beyond (BERT-base seq 64: b16 19 s, b200 267 s; the
// line through the b8 and b16 children's seconds said 163 s, this 240 s); GPT-2's LM head, which a
// probe keeps whole, is most of a one-layer probe's flops.
double child_seconds(const std::string& model, int seq, const Line& l, int batch, int layers) {
  const zoo::ModelConfig whole = zoo::config_by_name(model);
  zoo::ModelConfig cut = whole;
  if (layers > 0) cut.layers = layers;
  return l.t_hi * zoo::training_flops_per_step(cut, batch, seq) / zoo::training_flops_per_step(whole, l.hi, seq);
}

// The largest batch, from kNearFraction x `from` down, whose child (with `layers` of the model)
// takes at most kChildBudgetS; Skip with the reason when that is under kLowestFraction of the limit
// or not above the largest regular batch.
int within_budget(const std::string& model, int seq, const Line& l, int from, int layers, const char* what) {
  int batch = from;
  while (batch > l.hi && child_seconds(model, seq, l, batch, layers) > kChildBudgetS) batch = batch * 9 / 10;
  if (batch < kLowestFraction * l.limit || batch <= l.hi)
    throw Skip(fmt::format(
        "predicted largest batch {}; {} at b{} would take about {:.0f} s (b{} took {:.0f} s, b{} {:.0f} "
        "s; in proportion to the training flops), over the {:.0f} s its child process may take, and {:.0f}% "
        "of the limit (b{}) is the least measured: not measured",
        l.limit, what, from, child_seconds(model, seq, l, from, layers), l.lo, l.t_lo, l.hi, l.t_hi, kChildBudgetS,
        100 * kLowestFraction, static_cast<int>(std::ceil(kLowestFraction * l.limit))));
  return batch;
}

// The batch of `model`'s depth probes (the same for every depth, chosen once): kNearFraction of the
// line's limit, lowered for time (the deepest probe's child within kChildBudgetS).
int probe_batch(const std::string& model, int seq) {
  static std::map<std::pair<std::string, int>, int> chosen;
  auto it = chosen.find({model, seq});
  if (it != chosen.end()) return it->second;
  const Line l = line_of(model, seq);
  const int batch =
      within_budget(model, seq, l, static_cast<int>(kNearFraction * l.limit), kProbeLayers.back(), "a depth probe");
  return chosen[{model, seq}] = batch;
}

// The batch of `model`'s near-limit check: the probes' batch when they were measured (the check
// then measures the very point their extrapolation predicted), else kNearFraction of the line's
// limit; lowered for time. `predicted`: the line there, checked against MemAvailable.
int near_limit_batch(const std::string& model, int seq, double& predicted) {
  const Line l = line_of(model, seq);
  // With probes, a check lowered for time would test the line far from where it was drawn (BERT-large
  // at seq 128: b9 beside the probes' b39, and b9 measured under b8): the probes stand for it.
  if (l.probe_batch > 0 && child_seconds(model, seq, l, l.probe_batch, 0) > kChildBudgetS)
    throw Skip(fmt::format(
        "the depth probes measured b{} cut to {} and {} layers; the whole model there would take about "
        "{:.0f} s (b{} took {:.0f} s; in proportion to the training flops), over the {:.0f} s a check's "
        "child process may take: not checked whole (RIGCHECK_CAPACITY_CHECK={}:{}:{} does it)",
        l.probe_batch, kProbeLayers.front(), kProbeLayers.back(), child_seconds(model, seq, l, l.probe_batch, 0), l.hi,
        l.t_hi, kChildBudgetS, model, l.probe_batch, seq));
  const int batch = within_budget(
      model, seq, l, l.probe_batch > 0 ? l.probe_batch : static_cast<int>(kNearFraction * l.limit), 0, "a check");
  predicted = l.at(batch);
  const Headroom room = memory_headroom();
  if (room.bytes < 0 || static_cast<double>(room.bytes) < predicted + kKeepFreeBytes)
    throw Skip(
        fmt::format("near-limit check b{} is predicted to take {:.1f} GiB and {:.1f} GiB must stay free; {}: "
                    "skipped rather than risk swap or the OOM killer",
                    batch, predicted / kGiB, kKeepFreeBytes / kGiB, room.what));
  return batch;
}

class HostStep final : public Kernel {
 public:
  HostStep(std::string case_name, const Point& pt, Params params, int threads, double need_bytes)
      : case_(std::move(case_name)),
        pt_(pt),
        params_(std::move(params)),
        threads_(threads),
        one_child_(pt.check || pt.layers > 0 || pt.one_child) {
    exe_ = executable_dir() + "/memory_train_step";
    if (::access(exe_.c_str(), X_OK) != 0) {
      std::ifstream nb(exe_ + ".not-built");
      std::string why;
      std::getline(nb, why);
      throw Skip("memory_train_step is not built" + (why.empty() ? std::string() : ": " + why));
    }
    if (pt_.batch == 0 && pt_.layers > 0) {  // the full profile's depth probe: its batch chosen now
      pt_.batch = probe_batch(pt_.model, pt_.seq);
      point_info()[case_].batch = pt_.batch;
      params_ = probe_params(pt_, threads_);
      need_bytes = 1.5 * estimate_of(pt_.model, pt_.batch, pt_.seq, pt_.layers).total() + 1.5 * kGiB;
    }
    if (pt_.batch == 0) {  // the full profile's near-limit check: chosen now, from the points run before it
      double predicted = 0;
      pt_.batch = near_limit_batch(pt_.model, pt_.seq, predicted);
      point_info()[case_].batch = pt_.batch;
      params_ = point_params(pt_.model, pt_.batch, pt_.seq, threads_);  // its peak/step rows carry this batch
      params_.push_back({"child_processes", "1"});
      return;  // near_limit_batch checked MemAvailable against its own prediction
    }
    const Headroom room = memory_headroom();
    if (room.bytes < 0) throw Skip("MemAvailable not readable in /proc/meminfo: cannot tell whether the point fits");
    if (static_cast<double>(room.bytes) < need_bytes)
      throw Skip(
          fmt::format("needs about {:.1f} GiB free (1.5 x the analytic estimate + 1.5 GiB; a capacity check point "
                      "1.1 x + 2 GiB), {}: skipped rather than risk swap or the OOM killer",
                      need_bytes / 1073741824.0, room.what));
  }
  void run() override { record(once()); }
  // The work runs in a child process, whose CPU time Google Benchmark's process clock does not
  // see: timed as the child's wall time (Case::manual_time), so the harness's CPU-share test,
  // which would read ~0% and mistrust every row, is not applied to it.
  // A check point (near the limit: minutes per child) runs ONE child process, its check's: the
  // peak RSS is deterministic to about 1 MB between children (docs/performance.md "capacity"), so
  // its timed repetitions report that child's wall time instead of starting another
  // (params child_processes=1).
  double run_timed() override {
    if (one_child_ && !child_runs()[case_].empty()) return child_runs()[case_].front().wall;
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  CheckResult check() override {
    const ChildRun r = record(once());
    CheckResult c;
    c.checked = 1;
    c.wrong = r.ok ? 0 : 1;
    c.worst = r.ok ? 0 : INFINITY;
    c.method = r.ok ? fmt::format(
                          "the child's own check: loss and every parameter finite, parameters changed by the "
                          "steps; peak RSS {:.0f} MiB",
                          r.vmhwm / 1048576)
                    : "child failed: " + r.why;
    return c;
  }

 private:
  // Kept for the near-limit check's choice, and its rows written at once.
  const ChildRun& record(const ChildRun& r) {
    std::vector<ChildRun>& runs = child_runs()[case_];
    runs.push_back(r);
    write_child_rows(case_, params_, pt_.batch, static_cast<int>(runs.size()) - 1, r, pt_.layers > 0, pt_.one_child);
    return runs.back();
  }
  ChildRun once() {
    char tmpl[] = "/tmp/rigcheck-train-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    const std::string log = tmpl;
    std::vector<std::string> argv = {
        exe_, "--model", pt_.model, "--batch", std::to_string(pt_.batch), "--threads", std::to_string(threads_)};
    if (pt_.seq > 0) argv.insert(argv.end(), {"--seq", std::to_string(pt_.seq)});
    if (pt_.width > 0)
      argv.insert(argv.end(), {"--width", std::to_string(pt_.width), "--depth", std::to_string(pt_.depth)});
    if (pt_.layers > 0) argv.insert(argv.end(), {"--layers", std::to_string(pt_.layers)});
    const auto t0 = std::chrono::steady_clock::now();
    argv = through_exec_prefix(std::move(argv)).argv;  // under an emulator, through it (emulation.hpp)
    ChildResult cr = run_child(argv, {}, 3600, log, false);
    ChildRun r;
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ifstream f(log);
    std::string line, check;
    while (std::getline(f, line)) {
      const auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
      if (k == "vmhwm_bytes") r.vmhwm = std::atof(v.c_str());
      if (k == "baseline_rss_bytes") r.baseline = std::atof(v.c_str());
      if (k == "seconds") r.seconds = std::atof(v.c_str());
      if (k == "step_seconds") r.step_seconds = std::atof(v.c_str());
      if (k == "shape_flops_per_sample") r.flops_per_sample = std::atof(v.c_str());
      if (k == "check") check = v;
    }
    ::unlink(log.c_str());
    r.ok = cr.exit_code == 0 && check == "ok" && r.vmhwm > 0;
    if (!r.ok)
      r.why = fmt::format("exit {}{}; check={}; {}", cr.exit_code, cr.timed_out ? " (timed out)" : "", check,
                          cr.output_tail.substr(cr.output_tail.size() > 300 ? cr.output_tail.size() - 300 : 0));
    return r;
  }
  std::string case_;
  Point pt_;
  Params params_;
  int threads_;
  bool one_child_;
  std::string exe_;
};

// The reference MLP's case: not a zoo model (no guide formula, no analytic estimate: MEM-1 leaves it
// out); its parameters, activations and flops are the child's own shape_* lines.
Case mlp_case(const Point& pt, int threads) {
  Case c;
  c.name = fmt::format("mlp/w{}/d{}/b{}", pt.width, pt.depth, pt.batch);
  c.params = host::mlp_params(pt, threads);
  c.threads = threads;  // the child's, on the CPUs the placement gave this process
  c.manual_time = true;
  const double need = 2 * 1073741824.0;  // 0.2 GB of parameters, momentum and activations, and LibTorch
  const std::string name = c.name;
  const Params params = c.params;
  c.make = [name, pt, params, threads, need]() -> std::unique_ptr<Kernel> {
    return std::make_unique<HostStep>(name, pt, params, threads, need);
  };
  return c;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_memory_host = declare_entry(
    {"memory_host", "memory", "--reps 1", "", "", 300, 600, 7200,
     R"(peak RSS (VmHWM) and step time of CPU training steps of zoo models, one process per point, beside the
guide's formula and the analytic estimate (MEM-1; rigcheck capacity fits its line to them). quick: one
batch per model, one child process each (light_cnn b16, resnet50 b8, bert_base and gpt2 b16 at seq 64:
capacity's line through it at the zoo's analytic slope), the reference MLP (w1536 d4 b1536: the dense
step rate); full: light_cnn b8 b32, resnet50 b4 b16, bert_base b4 b16, bert_large and gpt2 b2 b8 at seq
128, gpt2_xl b1 (skipped where it cannot fit), the reference MLP, then a near-limit check per model (one
child, at most 75 s) chosen from its own points; RIGCHECK_CAPACITY_CHECK=model:batch[:seq],... adds
points near the predicted limit)"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(peak RSS (VmHWM) and step time of 2 CPU training steps of zoo models at two or more batches each (light
CNN, ResNet-50, BERT-base, GPT-2; BERT-large and GPT-2 XL in the full profile), one child process
(`memory_train_step`) per point, free memory checked first; beside the guide's formula and the analytic
estimate)",
     "MEM-1, `rigcheck capacity`"});

// One case per point of the profile (and of RIGCHECK_CAPACITY_PROBE / _CHECK): a child process each.
std::vector<Case> host_cases(const CommonOptions& o) {
  std::vector<Case> cs;
  const int threads = static_cast<int>(default_threads(o).back());
  std::vector<Point> pts = points(o.profile);
  for (const char* var : {"RIGCHECK_CAPACITY_PROBE", "RIGCHECK_CAPACITY_CHECK"})
    for (const Point& p : env_points(var)) pts.push_back(p);
  for (Point& pt : pts) {
    pt.one_child = o.profile != Profile::tiny;  // full too, to fit its 30 minutes
    if (pt.width > 0) {
      cs.push_back(mlp_case(pt, threads));
      continue;
    }
    const zoo::MemoryEstimate est = estimate_of(pt.model, pt.batch, pt.seq, pt.layers);
    Case c;
    const std::string b = pt.batch ? fmt::format("b{}", pt.batch) : std::string("near-limit");
    c.name = pt.seq ? fmt::format("{}/{}/s{}", pt.model, b, pt.seq) : fmt::format("{}/{}", pt.model, b);
    if (pt.layers > 0) c.name += fmt::format("/layers{}", pt.layers);
    if (pt.check) c.name += "/check";
    point_info()[c.name] = {pt.model, pt.seq, pt.batch, pt.check, pt.layers};
    c.params = pt.layers > 0 ? probe_params(pt, threads) : point_params(pt.model, pt.batch, pt.seq, threads);
    if (pt.check) c.params.push_back({"child_processes", "1"});
    // The harness process waits; the child runs the threads on the CPUs the case's placement gave
    // this process (a child inherits them).
    c.threads = threads;
    c.manual_time = true;  // HostStep::run_timed: the child's wall time
    const double need = pt.check ? 1.1 * est.total() + 2 * 1073741824.0 : 1.5 * est.total() + 1.5 * 1073741824.0;
    const std::string name = c.name;
    const Params params = c.params;
    c.make = [name, pt, params, threads, need]() -> std::unique_ptr<Kernel> {
      return std::make_unique<HostStep>(name, pt, params, threads, need);
    };
    cs.push_back(std::move(c));
  }
  return cs;
}

const bool host = register_benchmark(
    {names::kHostMemoryTraining,
     "peak RSS of CPU training steps (SGD momentum, fp32) of zoo models, one process per point (MEM-1)", host_cases});

}  // namespace
}  // namespace rigcheck::mem
