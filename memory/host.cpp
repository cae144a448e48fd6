// memory_host (MEM-1): peak resident memory (VmHWM) of CPU training steps of the zoo's models at
// several batch sizes, each point in its own process (memory_train_step, beside this binary),
// set beside the guide's formula (parameters x 4 B x batch + 8 GB) and the suite's analytic
// estimate (weights + gradients + optimizer state + activations, models/zoo.hpp). Before each
// point, free memory (MemAvailable) is checked against the estimate: a point that might push
// the machine into swap or the OOM killer is skipped with the reason.
//
// Rows: the harness's timing rows (the CPU is used by the child: the harness's CPU-share rule
// cannot see it, so they read as mistrusted and are not used), and one peak_rss_bytes row per
// child process (derived), status ok when the child's own check passed.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "memutil.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/process.hpp"

namespace rigcheck::mem {
namespace {

struct ChildRun {
  double vmhwm = NAN, baseline = NAN, seconds = NAN, step_seconds = NAN;
  bool ok = false;
  std::string why;
};
// Every child's figures, per case name, for the derived rows.
std::map<std::string, std::vector<ChildRun>>& child_runs() {
  static std::map<std::string, std::vector<ChildRun>> m;
  return m;
}

std::string self_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}


// ---- the near-limit check of the full profile, chosen from the model's own earlier points
struct PointInfo {
  std::string model;
  int seq = 0;
  int batch = 0;
  bool check = false;
};
std::map<std::string, PointInfo>& point_info() {  // case name -> its point
  static std::map<std::string, PointInfo> m;
  return m;
}
std::map<std::string, int>& chosen_batch() {  // near-limit case -> the batch chosen when it ran
  static std::map<std::string, int> m;
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
constexpr double kNearFraction = 0.6;      // of the predicted largest batch
constexpr double kLowestFraction = 0.3;    // the least a check may be lowered to for time
constexpr double kChildBudgetS = 120;      // seconds one child of a check may take (two run)
constexpr double kKeepFreeBytes = 4 * kGiB;  // left free beside the check's predicted peak

zoo::MemoryEstimate estimate_of(const std::string& model, int batch, int seq);

// The batch of `model`'s near-limit check: the line through its two largest measured batches
// (what rigcheck capacity fits), the largest batch under the usable memory (total less max(10%,
// 2 GiB), rigcheck capacity's default margin), kNearFraction of it, lowered (not under
// kLowestFraction) when the child would take over kChildBudgetS; Skip with the reason otherwise.
int near_limit_batch(const std::string& model, int seq, double& predicted) {
  std::map<int, std::vector<double>> peak, secs;
  for (auto& [name, info] : point_info()) {
    if (info.model != model || info.seq != seq || info.check) continue;
    for (const ChildRun& r : child_runs()[name])
      if (r.ok) peak[info.batch].push_back(r.vmhwm), secs[info.batch].push_back(r.seconds);
  }
  if (peak.size() < 2) throw Skip(fmt::format("fewer than two batches of {} measured before: no line to choose a near-limit batch from", model));
  auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const auto hi = std::prev(peak.end()), lo = std::prev(hi);
  // What rigcheck capacity fits: the smaller of the measured slope and the analytic activations per sample.
  const double analytic = estimate_of(model, 2, seq).total() - estimate_of(model, 1, seq).total();
  double slope = (med(hi->second) - med(lo->second)) / (hi->first - lo->first);
  if (analytic > 0 && analytic < slope) slope = analytic;
  const double icpt = med(hi->second) - slope * hi->first;
  const double total = static_cast<double>(mem_total_bytes());
  if (!(slope > 0) || total <= 0) throw Skip("the measured peak does not grow with the batch (or MemTotal unreadable): no limit to check");
  const double usable = total - std::max(0.1 * total, 2 * kGiB);
  const long limit = static_cast<long>(std::floor((usable - icpt) / slope));
  if (limit < 4) throw Skip(fmt::format("predicted largest batch {}: too small for a separate near-limit check", limit));
  int batch = static_cast<int>(kNearFraction * limit);
  const double s_per_sample = med(secs[hi->first]) / hi->first;
  if (batch * s_per_sample > kChildBudgetS) batch = static_cast<int>(kChildBudgetS / s_per_sample);
  if (batch < kLowestFraction * limit || batch <= hi->first)
    throw Skip(fmt::format("predicted largest batch {}; a check at {:.0f}% of it (b{}) would take about {:.0f} s per child "
                           "process (from b{}'s {:.0f} s), over the {:.0f} s a check may take: not checked",
                           limit, 100 * kNearFraction, static_cast<int>(kNearFraction * limit),
                           kNearFraction * limit * s_per_sample, hi->first, med(secs[hi->first]), kChildBudgetS));
  predicted = icpt + slope * batch;
  const int64_t avail = mem_available_bytes();
  if (avail < 0 || static_cast<double>(avail) < predicted + kKeepFreeBytes)
    throw Skip(fmt::format("near-limit check b{} is predicted to take {:.1f} GiB and {:.1f} GiB must stay free; MemAvailable "
                           "is {:.1f} GiB: skipped rather than risk swap or the OOM killer",
                           batch, predicted / kGiB, kKeepFreeBytes / kGiB, avail / kGiB));
  return batch;
}
class HostStep final : public Kernel {
 public:
  HostStep(std::string case_name, std::string model, int batch, int seq, int threads, double need_bytes)
      : case_(std::move(case_name)), model_(std::move(model)), batch_(batch), seq_(seq), threads_(threads) {
    exe_ = self_dir() + "/memory_train_step";
    if (::access(exe_.c_str(), X_OK) != 0) {
      std::ifstream nb(exe_ + ".not-built");
      std::string why;
      std::getline(nb, why);
      throw Skip("memory_train_step is not built" + (why.empty() ? std::string() : ": " + why));
    }
    if (batch_ == 0) {  // the full profile's near-limit check: chosen now, from the points run before it
      double predicted = 0;
      batch_ = near_limit_batch(model_, seq_, predicted);
      chosen_batch()[case_] = batch_;
      return;  // near_limit_batch checked MemAvailable against its own prediction
    }
    const int64_t avail = mem_available_bytes();
    if (avail < 0) throw Skip("MemAvailable not readable in /proc/meminfo: cannot tell whether the point fits");
    if (static_cast<double>(avail) < need_bytes)
      throw Skip(fmt::format("needs about {:.1f} GiB free (1.5 x the analytic estimate + 1.5 GiB; a capacity check point 1.1 x + 2 GiB), MemAvailable is "
                             "{:.1f} GiB: skipped rather than risk swap or the OOM killer",
                             need_bytes / 1073741824.0, static_cast<double>(avail) / 1073741824.0));
  }
  void run() override {
    ChildRun r = once();
    child_runs()[case_].push_back(r);
  }
  // The work runs in a child process, whose CPU time Google Benchmark's process clock does not
  // see: timed as the child's wall time (Case::manual_time), so the harness's CPU-share test,
  // which would read ~0% and mistrust every row, is not applied to it.
  double run_timed() override {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  CheckResult check() override {
    ChildRun r = once();
    child_runs()[case_].push_back(r);
    CheckResult c;
    c.checked = 1;
    c.wrong = r.ok ? 0 : 1;
    c.worst = r.ok ? 0 : INFINITY;
    c.method = r.ok ? fmt::format("the child's own check: loss and every parameter finite, parameters changed by the "
                                  "steps; peak RSS {:.0f} MiB",
                                  r.vmhwm / 1048576)
                    : "child failed: " + r.why;
    return c;
  }

 private:
  ChildRun once() {
    char tmpl[] = "/tmp/rigcheck-train-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd >= 0) ::close(fd);
    const std::string log = tmpl;
    std::vector<std::string> argv = {exe_, "--model", model_, "--batch", std::to_string(batch_), "--threads",
                                     std::to_string(threads_)};
    if (seq_ > 0) argv.insert(argv.end(), {"--seq", std::to_string(seq_)});
    ChildResult cr = run_child(argv, {}, 3600, log, false);
    ChildRun r;
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
      if (k == "check") check = v;
    }
    ::unlink(log.c_str());
    r.ok = cr.exit_code == 0 && check == "ok" && r.vmhwm > 0;
    if (!r.ok)
      r.why = fmt::format("exit {}{}; check={}; {}", cr.exit_code, cr.timed_out ? " (timed out)" : "", check,
                          cr.output_tail.substr(cr.output_tail.size() > 300 ? cr.output_tail.size() - 300 : 0));
    return r;
  }
  std::string case_, model_;
  int batch_, seq_, threads_;
  std::string exe_;
};

struct Point {
  std::string model;
  int batch;
  int seq;             // transformers
  bool check = false;  // a capacity check point (RIGCHECK_CAPACITY_CHECK, or batch 0: chosen when it runs)
};

// RIGCHECK_CAPACITY_CHECK="model:batch[:seq],...": extra points near the limit `rigcheck capacity`
// predicted, chosen by the caller with a safety margin (docs/performance.md). Each is still checked
// against MemAvailable first: skipped unless 1.1 x the analytic estimate + 2 GiB is free.
std::vector<Point> capacity_check_points() {
  std::vector<Point> v;
  const char* env = std::getenv("RIGCHECK_CAPACITY_CHECK");
  if (!env) return v;
  std::string s = env;
  for (size_t b = 0, e; b < s.size(); b = e + 1) {
    e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    const std::string item = s.substr(b, e - b);
    const size_t c1 = item.find(':'), c2 = item.find(':', c1 == std::string::npos ? c1 : c1 + 1);
    if (c1 == std::string::npos)
      throw std::invalid_argument("RIGCHECK_CAPACITY_CHECK: '" + item + "' is not model:batch[:seq]");
    Point p{item.substr(0, c1), std::atoi(item.substr(c1 + 1, c2 - c1 - 1).c_str()),
            c2 == std::string::npos ? 0 : std::atoi(item.substr(c2 + 1).c_str()), true};
    if (p.batch < 1) throw std::invalid_argument("RIGCHECK_CAPACITY_CHECK: '" + item + "' has no batch >= 1");
    v.push_back(p);
  }
  return v;
}

std::vector<Point> points(Profile p) {
  switch (p) {
    case Profile::tiny: return {{"light_cnn", 2, 0}};
    // Quick: two cheap batches of every zoo model that fits (rigcheck capacity fits a line to them);
    // BERT-large and GPT-2 XL only in full (GPT-2 XL never fits in 24 GiB: skipped by the free-memory
    // check). Was about 35 s for the first four points; light_cnn b32 alone took 15 s.
    // Batches spread apart (capacity fits the line through the two largest: at b1-b2 the peak sits
    // under the line larger batches follow: gpt2 at seq 64 grows 84 MB/sample from b2 to b8, 55 from
    // b8 to b16); light_cnn b32 is a 15 s child, bert_base and gpt2 b16 at seq 64 19-28 s
    // (docs/performance.md "capacity").
    case Profile::quick:
      return {{"light_cnn", 8, 0}, {"light_cnn", 32, 0}, {"resnet50", 4, 0}, {"resnet50", 8, 0},
              {"bert_base", 8, 64}, {"bert_base", 16, 64}, {"gpt2", 8, 64}, {"gpt2", 16, 64}};
    case Profile::full: break;
  }
  std::vector<Point> v;
  for (int b : {16, 32, 64}) v.push_back({"light_cnn", b, 0});
  for (int b : {8, 16, 32}) v.push_back({"resnet50", b, 0});
  for (int b : {8, 16, 32}) v.push_back({"bert_base", b, 128});
  for (int b : {8, 16, 32}) v.push_back({"bert_large", b, 128});
  for (int b : {2, 4, 8}) v.push_back({"gpt2", b, 128});
  v.push_back({"gpt2_xl", 1, 128});
  // A near-limit check per model, its batch chosen when it runs from the points above (batch 0).
  for (const char* m : {"light_cnn", "resnet50"}) v.push_back({m, 0, 0, true});
  for (const char* m : {"bert_base", "bert_large", "gpt2"}) v.push_back({m, 0, 128, true});
  return v;
}

zoo::MemoryEstimate estimate_of(const std::string& model, int batch, int seq) {
  zoo::MemoryOptions mo;
  mo.optimizer = zoo::Optimizer::sgd_momentum;
  mo.seq_len = seq;
  return zoo::estimate_training_memory(zoo::config_by_name(model), batch, mo);
}

// A point's params: batch "auto" (a near-limit check not yet run) leaves out the guide's formula
// and the estimate, which the derived rows fill in at the batch chosen (MEM-1 reads them).
Params point_params(const std::string& model, int batch, int seq, int threads) {
  const zoo::ParamCounts pc = zoo::count_parameters(zoo::config_by_name(model));
  Params p = {{"model", model},
              {"batch", batch ? std::to_string(batch) : "auto"},
              {"seq", std::to_string(seq)},
              {"dtype", "f32"},
              {"optimizer", "sgd_momentum"},
              {"steps", "2"},
              {"threads", std::to_string(threads)},
              {"params_model", std::to_string(pc.model)},
              {"params_total", std::to_string(pc.total())}};
  if (batch == 0) return p;
  const zoo::MemoryEstimate est = estimate_of(model, batch, seq);
  const double formula_term = static_cast<double>(pc.model) * 4.0 * batch;
  Params more = {{"guide_formula_bytes", fmt::format("{:.0f}", formula_term + 8e9)},
                 {"guide_formula_process_bytes", fmt::format("{:.0f}", formula_term)},
                 {"estimate_bytes", fmt::format("{:.0f}", est.total())},
                 {"estimate_weights_bytes", fmt::format("{:.0f}", est.weights)},
                 {"estimate_gradients_bytes", fmt::format("{:.0f}", est.gradients)},
                 {"estimate_optimizer_bytes", fmt::format("{:.0f}", est.optimizer_state)},
                 {"estimate_activations_bytes", fmt::format("{:.0f}", est.activations)}};
  p.insert(p.end(), more.begin(), more.end());
  return p;
}

const bool host = register_benchmark(
    {names::kHostMemoryTraining,
     "peak RSS of CPU training steps (SGD momentum, fp32) of zoo models, one process per point (MEM-1)",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int threads = static_cast<int>(default_threads(o).back());
       std::vector<Point> pts = points(o.profile);
       for (const Point& p : capacity_check_points()) pts.push_back(p);
       for (const Point& pt : pts) {
         const zoo::MemoryEstimate est = estimate_of(pt.model, pt.batch, pt.seq);
         Case c;
         const std::string b = pt.batch ? fmt::format("b{}", pt.batch) : std::string("near-limit");
         c.name = pt.seq ? fmt::format("{}/{}/s{}", pt.model, b, pt.seq) : fmt::format("{}/{}", pt.model, b);
         if (pt.check) c.name += "/check";
         point_info()[c.name] = {pt.model, pt.seq, pt.batch, pt.check};
         c.params = point_params(pt.model, pt.batch, pt.seq, threads);
         c.threads = 1;  // the harness process waits; the child runs the threads
         c.manual_time = true;  // HostStep::run_timed: the child's wall time
         const double need = pt.check ? 1.1 * est.total() + 2 * 1073741824.0 : 1.5 * est.total() + 1.5 * 1073741824.0;
         const std::string name = c.name, model = pt.model;
         const int batch = pt.batch, seq = pt.seq;
         c.make = [name, model, batch, seq, threads, need]() -> std::unique_ptr<Kernel> {
           return std::make_unique<HostStep>(name, model, batch, seq, threads, need);
         };
         cs.push_back(std::move(c));
       }
       return cs;
     }});

// peak_rss_bytes (and the child's baseline RSS before the model) for every child process.
const bool host_rows = register_derived_rows(names::kHostMemoryTraining, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  std::map<std::string, const ResultRow*> first;
  for (const ResultRow& r : rows)
    if (!first.count(r.case_name)) first[r.case_name] = &r;
  for (auto& [name, runs] : child_runs()) {
    auto it = first.find(name);
    if (it == first.end()) continue;
    for (size_t i = 0; i < runs.size(); ++i) {
      ResultRow d = *it->second;
      d.repetition = static_cast<int>(i);
      d.status = runs[i].ok ? Status::ok : Status::failed;
      d.note = runs[i].ok ? fmt::format("child process {} of {} (the first is the check); {:.1f} s", i + 1,
                                        runs.size(), runs[i].seconds)
                          : runs[i].why;
      if (chosen_batch().count(name)) {  // the near-limit check's batch, chosen when it ran
        const PointInfo& pi = point_info()[name];
        Params p = point_params(pi.model, chosen_batch()[name], pi.seq, std::atoi(param_value(d.params, "threads").c_str()));
        for (const auto& kv : parse_params(d.params))  // facts the harness added, kept
          if (std::none_of(p.begin(), p.end(), [&](const auto& q) { return q.first == kv.first; })) p.push_back(kv);
        d.params = format_params(p);
      }
      d.metric = names::kPeakRssBytes;
      d.value = runs[i].ok ? runs[i].vmhwm : NAN;
      d.unit = "B";
      out.push_back(d);
      if (runs[i].ok && runs[i].baseline > 0) {
        d.metric = names::kBaselineRssBytes;
        d.value = runs[i].baseline;
        d.note = "the child's RSS after loading LibTorch, before building the model";
        out.push_back(d);
      }
      if (runs[i].ok && runs[i].step_seconds > 0) {  // rigcheck capacity: the step time at this batch
        d.metric = names::kStepTime;
        d.value = runs[i].step_seconds;
        d.unit = "s";
        d.note = "the child's last training step alone (the optimizer state already made)";
        out.push_back(d);
      }
    }
  }
  return out;
});

}  // namespace
}  // namespace rigcheck::mem
