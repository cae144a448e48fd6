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
  bool check = false;  // a capacity check point (RIGCHECK_CAPACITY_CHECK)
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
    case Profile::quick:
      return {{"light_cnn", 2, 0}, {"light_cnn", 8, 0}, {"resnet50", 2, 0}, {"resnet50", 4, 0},
              {"bert_base", 1, 64}, {"bert_base", 2, 64}, {"gpt2", 1, 64}, {"gpt2", 2, 64}};
    case Profile::full: break;
  }
  std::vector<Point> v;
  for (int b : {16, 32, 64}) v.push_back({"light_cnn", b, 0});
  for (int b : {8, 16, 32}) v.push_back({"resnet50", b, 0});
  for (int b : {8, 16, 32}) v.push_back({"bert_base", b, 128});
  for (int b : {8, 16, 32}) v.push_back({"bert_large", b, 128});
  for (int b : {2, 4, 8}) v.push_back({"gpt2", b, 128});
  v.push_back({"gpt2_xl", 1, 128});
  return v;
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
         const zoo::ModelConfig cfg = zoo::config_by_name(pt.model);
         const zoo::ParamCounts pc = zoo::count_parameters(cfg);
         zoo::MemoryOptions mo;
         mo.optimizer = zoo::Optimizer::sgd_momentum;
         mo.seq_len = pt.seq;
         const zoo::MemoryEstimate est = zoo::estimate_training_memory(cfg, pt.batch, mo);
         const double formula_term = static_cast<double>(pc.model) * 4.0 * pt.batch;
         Case c;
         c.name = pt.seq ? fmt::format("{}/b{}/s{}", pt.model, pt.batch, pt.seq) : fmt::format("{}/b{}", pt.model, pt.batch);
         if (pt.check) c.name += "/check";
         c.params = {{"model", pt.model},
                     {"batch", std::to_string(pt.batch)},
                     {"seq", std::to_string(pt.seq)},
                     {"dtype", "f32"},
                     {"optimizer", "sgd_momentum"},
                     {"steps", "2"},
                     {"threads", std::to_string(threads)},
                     {"params_model", std::to_string(pc.model)},
                     {"params_total", std::to_string(pc.total())},
                     {"guide_formula_bytes", fmt::format("{:.0f}", formula_term + 8e9)},
                     {"guide_formula_process_bytes", fmt::format("{:.0f}", formula_term)},
                     {"estimate_bytes", fmt::format("{:.0f}", est.total())},
                     {"estimate_weights_bytes", fmt::format("{:.0f}", est.weights)},
                     {"estimate_gradients_bytes", fmt::format("{:.0f}", est.gradients)},
                     {"estimate_optimizer_bytes", fmt::format("{:.0f}", est.optimizer_state)},
                     {"estimate_activations_bytes", fmt::format("{:.0f}", est.activations)}};
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
