// What this machine can train: capacity.hpp says the method.
#include "rigcheck/report/capacity.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/report/report_util.hpp"
#include "capacity_internal.hpp"

namespace rigcheck {

namespace capacity_detail {

double peak_at(const Machine& m, int threads) {
  auto it = m.peak.find(threads);
  return it == m.peak.end() ? kNaN : it->second;
}

Machine machine_of(const RunData& run, int threads) {
  Machine m;
  for (auto& [t, rows] : group_by_param(run.select(names::kFmaPeak, names::kGflops), "threads")) {
    std::map<std::string, std::vector<const ResultRow*>> by_isa;
    for (const ResultRow* r : rows) by_isa[param_value(r->params, "isa")].push_back(r);
    for (auto& [isa, rs] : by_isa)
      m.peak[std::atoi(t.c_str())] = std::max(m.peak[std::atoi(t.c_str())], measure(rs).value);
  }
  for (const char* kernel : {"triad", "copy"}) {
    double best = 0;
    int best_t = 0;
    for (auto& [c, rows] : run.select(names::kMemoryBandwidth, names::kGbps, {{"kernel", kernel}})) {
      const int t = std::atoi(param_value(rows.front()->params, "threads").c_str());
      const double v = measure(rows).value;
      // At the step's thread count when measured there, else the best of any.
      const bool better = (t == threads) != (best_t == threads) ? t == threads : v > best;
      if (best == 0 || better) best = v, best_t = t;
    }
    if (best > 0) {
      m.bw = best;
      m.bw_text = fmt::format("{} GB/s (memory_bandwidth {}, {} thread{})", fmt_num(best), kernel, best_t,
                              best_t == 1 ? "" : "s");
      break;
    }
  }
  {
    double best = 0;
    std::string what;
    for (auto& [c, rows] : run.select(names::kDataloaderIoWait, "samples_per_s")) {
      const double v = measure(rows).value;
      if (v > best) {
        best = v;
        what = fmt::format("io_dataloader {}: {} B samples from {}", c,
                           param_value(rows.front()->params, "sample_bytes", "?"),
                           param_value(rows.front()->params, "device_class", "its disk"));
      }
    }
    if (best > 0) m.input = best, m.input_text = fmt::format("{} samples/s ({})", fmt_num(best), what);
  }
  {
    std::map<double, std::vector<double>> by_size;
    for (auto& [c, rows] : run.select(names::kMpiAllreduce, names::kTimePerIter))
      for (const ResultRow* r : rows) {
        double s;
        if (!parse_double(param_value(r->params, "size_bytes"), s)) continue;
        by_size[s].push_back(r->value);
        m.ranks = std::max(m.ranks, std::atoi(param_value(r->params, "ranks").c_str()));
      }
    for (auto& [s, v] : by_size) m.allreduce[s] = median_of(v);
  }
  {
    std::vector<double> v;
    for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kBaselineRssBytes))
      for (const ResultRow* r : rows) v.push_back(r->value);
    m.baseline_rss = median_of(v);
  }
  {
    std::map<std::pair<std::string, std::string>, std::vector<const ResultRow*>> by_case;
    for (const ResultRow& r : run.results)
      if ((r.benchmark == names::kGemmMatmul || r.benchmark == names::kGemmSgemmOnednn ||
           r.benchmark == names::kGemmSgemmOpenblas) &&
          r.metric == names::kGflops && r.status == Status::ok && r.repetition >= 0 &&
          param_value(r.params, "dtype", "f32") == "f32" &&
          std::atoi(param_value(r.params, "threads").c_str()) == threads)
        by_case[{r.benchmark, r.case_name}].push_back(&r);
    for (auto& [k, rows] : by_case) {
      const double v = measure(rows).value;
      if (!(v <= m.gemm)) m.gemm = v, m.gemm_text = k.first + " " + k.second;
    }
  }
  for (auto& [c, rows] : run.select(names::kResnetTrainStep, "minor_page_faults_per_step",
                                    {{"threads", std::to_string(threads)}, {"batch", "16"}, {"image", "224"}})) {
    const Measured f = measure(rows);
    m.resnet_faults = f.value;
    m.resnet_faults_text = fmt::format("cpu_resnet's ResNet-50 step {}, {}, {} threads: {} faults per step", c,
                                       shape_of(rows), param_of(rows, "threads"), fmt_num(f.value));
    m.resnet_faults_batch = param_of(rows, "batch");
  }
  m.first_touch = first_touch_cost(run);
  return m;
}

// Seconds of one all-reduce of `bytes`: interpolated between the measured sizes around it,
// extrapolated at the largest size's bandwidth beyond it. NaN without rows.
double allreduce_s(const Machine& m, double bytes, std::string& how) {
  if (m.allreduce.empty()) return kNaN;
  auto hi = m.allreduce.lower_bound(bytes);
  if (hi == m.allreduce.end()) {
    auto last = std::prev(m.allreduce.end());
    how = fmt::format("extrapolated from the largest measured size ({:.0f} B) at its bandwidth", last->first);
    return last->second * bytes / last->first;
  }
  if (hi->first == bytes || hi == m.allreduce.begin()) {
    how = fmt::format("measured at {:.0f} B", hi->first);
    return hi->second;
  }
  auto lo = std::prev(hi);
  how = fmt::format("interpolated between the measured {:.0f} B and {:.0f} B", lo->first, hi->first);
  return lo->second + (hi->second - lo->second) * (bytes - lo->first) / (hi->first - lo->first);
}

// The figures of one step of `batch` samples that took step_s; flops and bytes of that step.
void fill_limits(ModelCapacity& mc, const Machine& m, double flops, double bytes, double step_s, int batch) {
  mc.limits.clear();
  LimitFigure c{"compute", kNaN, ""};
  const double peak = peak_at(m, mc.threads);
  const double gflops = flops / step_s / 1e9;
  if (std::isnan(peak))
    c.text = fmt::format("{} GFLOP/s achieved; no cpu_peak row at {} threads to set it against", fmt_num(gflops),
                         mc.threads);
  else {
    c.share = gflops / peak;
    c.text = fmt::format("{} GFLOP/s ({:.3g} GFLOP per step / {} s) of the measured f32 peak {} GFLOP/s at {} threads",
                         fmt_num(gflops), flops / 1e9, fmt_num(step_s), fmt_num(peak), mc.threads);
  }
  mc.limits.push_back(c);
  LimitFigure b{"memory bandwidth", kNaN, ""};
  const double gbps = bytes / step_s / 1e9;
  if (std::isnan(m.bw))
    b.text = fmt::format("{} GB/s needed; memory_bandwidth not measured", fmt_num(gbps));
  else {
    b.share = gbps / m.bw;
    b.text = fmt::format("{} GB/s ({} per step, 2 x the training memory: a lower bound) of {}", fmt_num(gbps),
                         gib(bytes), m.bw_text);
  }
  mc.limits.push_back(b);
  LimitFigure in{"input pipeline", kNaN, ""};
  const double consumed = batch / step_s;
  if (std::isnan(m.input))
    in.text = fmt::format("the step consumes {} samples/s; io_dataloader not measured", fmt_num(consumed));
  else {
    in.share = consumed / m.input;
    in.text = fmt::format("the step consumes {} samples/s; the pipeline delivered {}", fmt_num(consumed), m.input_text);
  }
  mc.limits.push_back(in);
  LimitFigure ar{"all-reduce", kNaN, ""};
  std::string how;
  const double grad = mc.params * 4;
  const double t = allreduce_s(m, grad, how);
  if (std::isnan(t))
    ar.text = "comm area not run (no mpi_allreduce_f32 rows): one node, no all-reduce per step";
  else {
    ar.share = t / step_s;
    ar.text = fmt::format("{} s per step to all-reduce the {} gradient over {} ranks ({}), against the {} s step",
                          fmt_num(t), gib(grad), m.ranks, how, fmt_num(step_s));
  }
  mc.limits.push_back(ar);
  // What the step is made of as far as measured, for when no ceiling limits it (bottleneck_of).
  std::vector<StepPart> parts;
  StepPart g{"its flops at the best measured f32 GEMM rate", kNaN, ""};
  if (std::isnan(m.gemm))
    g.text = fmt::format("no f32 GEMM measured at {} threads", mc.threads);
  else
    g.seconds = flops / (m.gemm * 1e9),
    g.text = fmt::format("{:.3g} GFLOP at {} GFLOP/s, {}", flops / 1e9, fmt_num(m.gemm), m.gemm_text);
  parts.push_back(g);
  if (b.ok()) parts.push_back({"its memory traffic at the measured bandwidth", b.share * step_s, b.text});
  if (ar.ok()) parts.push_back({"the gradient's all-reduce", t, how});
  if (mc.basis != "model-based estimate") {  // a user model's step estimate carries its own fault term
    StepPart f{"page faults", kNaN, ""};
    if (mc.model != "resnet50")
      f.text = "not counted for this model's step: cpu_resnet counts ResNet-50's";
    else if (std::isnan(m.resnet_faults) || std::isnan(m.first_touch.us_per_page))
      f.text = std::isnan(m.resnet_faults) ? fmt::format("no cpu_resnet fault count at {} threads", mc.threads)
                                           : m.first_touch.text;
    else
      f.seconds = m.resnet_faults * m.first_touch.us_per_page * 1e-6,
      f.text = fmt::format("{}, at {}; counted at batch {}, this step's batch is {}", m.resnet_faults_text,
                           m.first_touch.text, m.resnet_faults_batch, batch);
    parts.push_back(f);
  }
  mc.bottleneck = bottleneck_of(mc.limits, step_s, parts);
}

// Zoo analytic memory (SGD momentum, fp32, as memory_host measures).
double zoo_estimate(const zoo::ModelConfig& cfg, int batch, int seq) {
  zoo::MemoryOptions mo;
  mo.optimizer = zoo::Optimizer::sgd_momentum;
  mo.seq_len = seq;
  return zoo::estimate_training_memory(cfg, batch, mo).total();
}

// The answer of a model whose memory line is known (measured fit or estimate): limit and words.
void limit_of(ModelCapacity& mc) {
  mc.limit_batch = largest_batch(mc.fit, mc.usable_bytes);
  if (mc.limit_batch > 0) mc.predicted_at_limit = mc.fit.at(static_cast<double>(mc.limit_batch));
}

// The page-fault part of a user model's step at `batch` (docs/performance.md "capacity"): dense:
// its activations first touched again each step, activation bytes x batch / 4096 pages at this
// run's first-touch cost (0 s, saying what is missing, without it); conv and transformer: none,
// their rate is a measured zoo step that pays its own faults. `how` says which.
double fault_seconds(const UserModel& u, int batch, bool measured_rate, const FirstTouchCost& ft, std::string& how) {
  if (u.kind != "dense") {
    how = measured_rate ? fmt::format(
                              "none for kind {}: its rate is a measured training step of the zoo, which already "
                              "pays its own page faults",
                              u.kind)
                        : fmt::format("none for kind {}", u.kind);
    return 0;
  }
  const double pages = u.activation_bytes_per_sample * batch / 4096;
  if (std::isnan(ft.us_per_page)) {
    how = fmt::format("MISSING, not included: {:.4g} pages of activations per step, {}", pages, ft.text);
    return 0;
  }
  how = fmt::format(
      "{:.4g} pages of 4 KiB per step, {} B of activations per sample x batch {} / 4096, first touched "
      "again each step, at {}",
      pages, fmt_num(u.activation_bytes_per_sample), batch, ft.text);
  return pages * ft.us_per_page * 1e-6;
}

ModelCapacity user_model(const UserModel& u, const Machine& m, const StepRate& achieved, const FirstTouchCost& ft,
                         double usable, int threads) {
  ModelCapacity mc;
  mc.model = u.name;
  mc.basis = "model-based estimate";
  mc.usable_bytes = usable;
  mc.params = u.params;
  mc.threads = threads;
  // SGD momentum in fp32 as memory_host measures: weights, gradients and momentum, 12 B per
  // parameter; the activations per sample; the process's own RSS with LibTorch loaded.
  const double base = std::isnan(m.baseline_rss) ? 0 : m.baseline_rss;
  mc.fit.intercept = base + 12 * u.params;
  mc.fit.slope = u.activation_bytes_per_sample;
  mc.fit.points = 0;
  mc.estimate_b1 = mc.fit.at(1);
  limit_of(mc);
  std::string t = fmt::format(
      "peak = {} (LibTorch process{}) + 12 B x {:.4g} parameters + {} per sample (the live "
      "tensors: glibc's allocator keeps freed tensors of under 32 MiB in its heap, resident "
      "above this; docs/performance.md \"capacity\")",
      gib(base), std::isnan(m.baseline_rss) ? ": not measured, taken as 0" : ", measured baseline_rss_bytes", u.params,
      fmt::format("{:.1f} MiB", u.activation_bytes_per_sample / 1048576));
  if (mc.limit_batch == 0)
    t += fmt::format(". **Cannot fit at batch 1**: {} against {} usable", gib(mc.estimate_b1), gib(usable));
  else if (mc.limit_batch > 0)
    t += fmt::format(". Largest batch: **{}** (model-based estimate: {} of {} usable)", mc.limit_batch,
                     gib(mc.predicted_at_limit), gib(usable));
  // Step time at the limit: the flops at the rate a LibTorch training step of its kind reached in
  // this run (achieved_rate), else at the best f32 GEMM, else at the f32 peak (upper bounds); plus,
  // for a dense model, the page faults of its activations (fault_seconds).
  double rate = achieved.gflops;
  std::string how = fmt::format("the measured {} step rate, {}", u.kind, achieved.source);
  if (std::isnan(rate) && !std::isnan(m.gemm))
    rate = m.gemm, how = fmt::format(
                       "the best f32 GEMM measured, {}: an upper bound of the speed, LibTorch's training "
                       "steps reach a fraction of it ({})",
                       m.gemm_text, achieved.text);
  else if (std::isnan(rate))
    rate = peak_at(m, threads),
    how = fmt::format("the measured f32 FMA peak: an upper bound of the speed ({})", achieved.text);
  if (mc.limit_batch > 0 && !std::isnan(rate)) {
    mc.step_batch = static_cast<int>(mc.limit_batch);
    const double compute_s = mc.step_batch * u.flops_per_sample / (rate * 1e9);
    std::string faults;
    const double fault_s = fault_seconds(u, mc.step_batch, !std::isnan(achieved.gflops), ft, faults);
    mc.step_s = compute_s + fault_s;
    mc.samples_per_s = mc.step_batch / mc.step_s;
    mc.step_basis = fmt::format(
        "model-based estimate: {:.4g} s = {:.4g} s of compute ({:.4g} GFLOP per step at {} "
        "GFLOP/s, {}) + {:.4g} s of page faults ({})",
        mc.step_s, compute_s, mc.step_batch * u.flops_per_sample / 1e9, fmt_num(rate), how, fault_s, faults);
    fill_limits(mc, m, mc.step_batch * u.flops_per_sample, 2 * mc.predicted_at_limit, mc.step_s, mc.step_batch);
  } else {
    mc.step_basis =
        "no step time: " + (mc.limit_batch > 0 ? fmt::format("{}, and neither cpu_gemm nor cpu_peak measured "
                                                             "at {} threads",
                                                             achieved.text, threads)
                                               : std::string("no batch fits"));
    mc.bottleneck = "none can be named without a step time";
  }
  mc.text = t;
  return mc;
}

std::string gpu_answer(const RunData& run) {
  auto it = run.inventory.find("gpu_count");
  const std::string count = it == run.inventory.end() ? "" : it->second;
  if (count.empty() || count == "0") {
    auto note = run.inventory.find("gpu_note");
    return fmt::format(
        "No GPU answer: this machine has no GPU the suite could use (inventory gpu_count={}{}). "
        "Nothing here speaks for GPU training.",
        count.empty() ? "missing" : count, note == run.inventory.end() ? "" : ": " + note->second);
  }
  // model_memory's device peak per model and precision, by batch.
  std::map<std::string, std::map<int, std::vector<double>>> by;
  for (auto& [c, rows] : run.select(names::kModelMemory, names::kPeakAllocatedBytes))
    for (const ResultRow* r : rows)
      by[param_value(r->params, "model") + " " + param_value(r->params, "precision")]
        [std::atoi(param_value(r->params, "batch").c_str())]
            .push_back(r->value);
  if (by.empty())
    return fmt::format(
        "No GPU answer: {} GPU(s) present but no model_memory rows measured ({}): the gpu area was "
        "not run, or its training steps failed.",
        count, manifest_status(run, "gpu_model_memory"));
  const double mem = fact_number(run.inventory, "gpu0_memory_bytes");
  std::string s = fmt::format("GPU 0 ({} of device memory, 10% kept free): ", gib(mem));
  for (auto& [k, bs] : by) {
    s += "\n- " + k + ": ";
    std::vector<std::pair<double, double>> xy;
    for (auto& [b, v] : bs) xy.push_back({double(b), median_of(v)});
    if (xy.size() < 2 || std::isnan(mem)) {
      s += fmt::format("measured at batch {} only ({}): one batch, no line, no limit predicted", xy.front().first,
                       gib(xy.front().second));
      continue;
    }
    LinearFit f = fit_linear(xy);
    const long lb = largest_batch(f, 0.9 * mem);
    s += lb > 0    ? fmt::format("largest batch {} (predicted from {} measured batches)", lb, f.points)
         : lb == 0 ? "cannot fit at batch 1 (predicted)"
                   : "no limit: memory does not grow with the batch";
  }
  return s;
}

}  // namespace capacity_detail

using namespace capacity_detail;

CapacityAnswer capacity_of(const RunData& run, const CapacityOptions& opt) {
  CapacityAnswer a;
  a.total_bytes = fact_number(run.inventory, "memory_total_bytes");
  a.available_bytes = fact_number(run.inventory, "memory_available_bytes");
  // The run's memory limit (cgroup memory.max, Slurm's allocation) where it is below the machine's:
  // a job can train only what fits in it.
  const double limit = fact_number(run.inventory, "memory_limit_bytes");
  std::string bound = "the inventory's total";
  if (limit > 0 && (std::isnan(a.total_bytes) || limit < a.total_bytes)) {
    a.total_bytes = limit;
    std::string from = fact_or(run.inventory, "memory_limit", "");
    if (auto p = from.find(" ("); p != std::string::npos) from = from.substr(p + 2, from.size() - p - 3);
    bound = "the run's memory limit (" + from + ", below the machine's " +
            gib(fact_number(run.inventory, "memory_total_bytes")) + ")";
  }
  if (std::isnan(a.total_bytes)) {
    a.memory_text = "the inventory has no memory_total_bytes: no limit can be drawn";
  } else {
    const double margin = std::max(opt.margin_fraction * a.total_bytes, opt.margin_min_bytes);
    a.usable_bytes = a.total_bytes - margin;
    a.memory_text = fmt::format(
        "usable host memory {} = {} {} less a safety margin of {} "
        "({:.0f}% of it, at least {}: the OS, the page cache, other processes)",
        gib(a.usable_bytes), bound, gib(a.total_bytes), gib(margin), 100 * opt.margin_fraction,
        gib(opt.margin_min_bytes));
    if (!std::isnan(a.available_bytes) && a.available_bytes < a.usable_bytes)
      a.memory_text += fmt::format(
          "; when the run started only {} was free (MemAvailable): others' use lowers "
          "every limit below accordingly",
          gib(a.available_bytes));
  }
  // A memory_host cut short (the runner's timeout, a kill) kept the points whose child processes
  // ended (each child's rows are written when it ends): the answer says the rest is missing.
  for (const ManifestRow& mr : run.manifest)
    if (mr.benchmark == "memory_host" && (mr.status == "timeout" || mr.status == "interrupted"))
      a.memory_text += fmt::format(
          "; memory_host was cut short ({}): the points whose child processes ended are "
          "kept, the later ones are missing (a model without two batches falls back to the "
          "analytic estimate below)",
          manifest_status(run, "memory_host"));
  int threads = 0;
  for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kPeakRssBytes))
    threads = std::max(threads, std::atoi(param_value(rows.front()->params, "threads").c_str()));
  if (threads == 0)
    for (auto& [t, v] : machine_of(run, 0).peak) threads = std::max(threads, t);
  const Machine m = machine_of(run, threads);
  for (const zoo::ModelConfig& cfg : zoo::published_models())
    a.models.push_back(zoo_model(run, cfg, m, a.usable_bytes, opt));
  if (!opt.model_csv.empty()) {
    const FirstTouchCost ft = first_touch_cost(run);
    for (const UserModel& u : read_user_models(opt.model_csv))
      a.models.push_back(user_model(u, m, achieved_rate(run, u.kind, threads), ft, a.usable_bytes, threads));
  }
  a.gpu_text = gpu_answer(run);
  return a;
}

}  // namespace rigcheck
