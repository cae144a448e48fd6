// `rigcheck capacity RUN_DIR` and the "What this machine can train" section of
// report.md: for each model of the zoo (and a user's own models, by shape, from --model-csv), the
// largest batch whose training step fits in this machine's memory, the step time and samples/s at
// that batch, and what limits the step (compute, memory bandwidth, input pipeline, all-reduce),
// all from the run's measured rows. No LibTorch here: the zoo's torch-free part (configs, analytic
// estimates, flops) only.
//
// The method (docs/methodology.md "capacity"):
//  - host RAM: the peak RSS rows of memory_host (one child process per model/batch), per model
//    the median per batch, a line peak = a + b x batch through the largest measured batch (smaller
//    ones sit under the line larger ones follow); the largest batch whose predicted peak fits in
//    the usable memory: the inventory's total memory less a safety margin (10%, at least 2 GiB).
//    Without a near-limit check, the largest point is compared with the line of the two below it
//    where three or more batches exist.
//  - the line's slope: through the largest measured batch at the zoo's analytic activations per
//    sample; where depth probes were measured at a larger batch (transformers: the model cut to
//    one and two of its layers, DepthProbe), through their peak extrapolated to all its layers; a
//    near-limit check (the whole model, case .../check) is set against that line, then the line
//    runs through it.
//  - a model with fewer than two measured batches gets the zoo's analytic estimate instead,
//    labelled so; a model whose batch 1 does not fit says so with its estimate.
//  - step time: the step_time rows of memory_host (the child's last training step), at the
//    predicted batch when measured there, else at the largest measured batch (labelled).
//  - what limits it: achieved GFLOP/s (zoo::training_flops_per_step / step time) against
//    cpu_peak's measured f32 peak at the step's thread count; bytes per step (2 x the analytic
//    training memory: every byte written once and read once, a lower bound) per second against
//    memory_bandwidth's triad (else copy); samples/s the step consumes against the best samples/s
//    io_dataloader's pipeline delivered; with the comm area, the all-reduce time of the model's
//    gradient (params x 4 B) against the step time. The first bottleneck: the largest share, when it
//    is at least half its ceiling; else none, and what the step time is made of as far as measured
//    (bottleneck_of).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/report/report.hpp"

namespace rigcheck {

// Least squares y = intercept + slope x over the points (distinct x: at least two, else throws
// std::invalid_argument). r2: 1 - SSres/SStot (1 when every point lies on the line).
struct LinearFit {
  double intercept = kNaN, slope = kNaN, r2 = kNaN;
  int points = 0;  // distinct x values
  double at(double x) const { return intercept + slope * x; }
};
LinearFit fit_linear(const std::vector<std::pair<double, double>>& xy);

// The largest integer batch b >= 1 with fit.at(b) <= usable: 0 when batch 1 does not fit, -1 when
// the fit does not grow with the batch (slope <= 0) or its figures are not finite: no limit can be
// drawn from it.
long largest_batch(const LinearFit& fit, double usable_bytes);

struct CapacityOptions {
  double margin_fraction = 0.10;               // of the total memory, kept free (OS, page cache, others)
  double margin_min_bytes = 2.0 * 1073741824;  // at least this much
  std::string model_csv;                       // a user's own models by shape (read_user_models)
};

// One ceiling of the step: achieved against measured, and the share (achieved / ceiling).
struct LimitFigure {
  std::string what;  // "compute", "memory bandwidth", "input pipeline", "all-reduce"
  double share = kNaN;
  std::string text;  // the figures behind it, or what is missing
  bool ok() const { return share == share; }
};

// A measured ceiling limits a step only when the step uses at least this share of it; under it the
// answer names none (else light_cnn's step, at 5% of the compute ceiling, would be called
// compute-bound). Half: a step at half a ceiling's rate spends at least half its time elsewhere.
inline constexpr double kLimitingShare = 0.5;
// One part of a step's time as this run measured it: what the step's work alone takes at a
// measured rate (seconds NaN, with what is missing in text, when the run lacks the figure).
struct StepPart {
  std::string what;  // "the step's flops at the best measured f32 GEMM rate"
  double seconds = kNaN;
  std::string text;  // the figures behind it
};
// The bottleneck text: the largest share with its figures when it is at least kLimitingShare of
// its ceiling; else "none of the measured ceilings (the largest, compute, at 34%): ..." with the parts
// and the rest no measured figure accounts for. "none can be named" without any share.
std::string bottleneck_of(const std::vector<LimitFigure>& limits, double step_s, const std::vector<StepPart>& parts);

struct MemoryPoint {
  int batch = 0;
  double peak_bytes = kNaN;  // median over the child processes
  int reps = 0;
  double step_s = kNaN;  // median step_time, NaN when not measured
  bool check = false;    // a near-limit check point (case name .../check): not in the fit
};

// Depth probes (memory_host, the full profile or RIGCHECK_CAPACITY_PROBE): a transformer cut to a
// few of its layers (rows with params layers and model_layers), at one batch near the limit. Its
// whole peak there: the least-squares line of the probes' peaks (median per depth) against the
// depth, at all its layers. glibc keeps freed tensors of under 32 MiB resident in its heap, which
// the zoo's analytic activations (live tensors) do not count: BERT-large b40 at seq 128 measured
// +24.1% over the analytic line, 4.4% under the line through its probes at b39 (one and two of its
// 24 layers); BERT-base and GPT-2 at seq 64 0.8% and 5.1% under (docs/performance.md "Depth
// probes").
struct DepthProbe {
  int batch = 0;  // 0: no batch above the regular points was probed at two depths
  int model_layers = 0;
  std::map<int, double> peak_by_layers;  // layers -> median peak
  double per_layer = kNaN;               // bytes per layer at this batch
  double whole = kNaN;                   // the extrapolated peak of the whole model
};
// A peak_rss_bytes row of a depth probe (param layers > 0): not a point of the model's own line.
bool is_depth_probe(const ResultRow& r);
// The largest batch above `above_batch` probed at two depths or more of `model` at `seq`.
DepthProbe depth_probe(const RunData& run, const std::string& model, int seq, int model_layers, int above_batch);

struct ModelCapacity {
  std::string model;
  std::string basis;  // "measured fit", "analytic estimate (not measured)", "model-based estimate"
  int seq = 0;        // transformers: the sequence length of the points
  int threads = 0;
  double params = 0;                // parameters the step updates
  std::vector<MemoryPoint> points;  // measured, by batch
  bool has_fit = false;
  bool slope_analytic = false;    // the slope is the zoo's analytic activations (not the measured one)
  double measured_slope = kNaN;   // bytes per sample between the two largest regular batches
  bool refined_by_check = false;  // the limit is drawn from the line through the largest batch and the check
  DepthProbe probe;               // batch > 0: the line runs through the probes' extrapolated peak
  double analytic_slope = kNaN;   // the zoo's activations per sample (bytes)
  LinearFit fit;
  double usable_bytes = kNaN;
  long limit_batch = -1;  // predicted largest batch (0: batch 1 does not fit; -1: unknown)
  double predicted_at_limit = kNaN;
  double estimate_b1 = kNaN;  // analytic estimate at batch 1 (zoo) or the CSV's
  // The measured point nearest the limit against the line of the other points (3+ batches).
  int check_batch = 0;
  double check_measured = kNaN, check_predicted = kNaN;
  double step_s = kNaN;
  int step_batch = 0;
  std::string step_basis;  // "measured at that batch", "measured at batch N (the largest measured)", ...
  double samples_per_s = kNaN;
  std::vector<LimitFigure> limits;
  std::string bottleneck;  // "compute (71% of its ceiling)" or why none can be named
  std::string text;        // the answer in words
};

struct CapacityAnswer {
  double total_bytes = kNaN, available_bytes = kNaN, usable_bytes = kNaN;
  std::string memory_text;            // where the usable memory comes from
  std::string gpu_text;               // the GPU answer, or what is missing
  std::vector<ModelCapacity> models;  // the zoo's, then the user's
};

// A user's model by shape: one CSV row each. Columns name, params, activation_bytes_per_sample,
// flops_per_sample (training: forward + backward, per sample), and optionally kind: dense
// (default, also when empty), conv or transformer: which measured step rate its step time is
// estimated at (achieved_rate). Strict: throws InputError naming file and line (a missing column,
// an empty name, a number that is not positive and finite, an unknown kind).
struct UserModel {
  std::string name;
  double params = 0, activation_bytes_per_sample = 0, flops_per_sample = 0;
  std::string kind = "dense";
};
std::vector<UserModel> read_user_models(const std::string& path);

// The GFLOP/s a LibTorch CPU training step of `kind` reached in this run (at `threads` where
// measured there, else at any thread count, said so): dense: memory_host's reference MLP (its
// gflops rows, model=mlp); conv: ResNet-50's step, transformer: BERT-base's (the zoo's training
// flops per step / step_time, at the largest batch measured). A user model's step is estimated at
// it: LibTorch's steps run far below the best GEMM (the 2048 x 8 MLP at about a seventh). A dense
// model's step adds the page faults of its activations at first_touch_cost (below); conv and
// transformer do not: their rates are measured zoo steps that pay their own faults.
// gflops NaN, with what is missing in text, when the run has no such step.
struct StepRate {
  double gflops = kNaN;
  std::string text;    // the figure and where it comes from
  std::string source;  // where it comes from alone (measured rates)
};
StepRate achieved_rate(const RunData& run, const std::string& kind, int threads);

// This run's cost of first touching a 4 KiB page: memory_thp's thp_alloc rows
// first_touch_us_per_page of pages=4k (the largest buffer measured, median over its repetitions).
// A dense user model's step pays it beside the flops: glibc returns freed blocks of 32 MiB and more
// (mmapped) and the top of its heap to the OS, so each step faults pages in again. The term counts
// the activations' pages: a calibration (two MLPs on the 2-vCPU VM within 15% in 8 of 8 rounds),
// not this step's faults, which measured 1.5-4.4x that count (docs/performance.md "capacity").
// us_per_page NaN, with what is missing in text, when the run has no such row: never a figure
// from elsewhere.
struct FirstTouchCost {
  double us_per_page = kNaN;
  std::string text;
};
FirstTouchCost first_touch_cost(const RunData& run);

CapacityAnswer capacity_of(const RunData& run, const CapacityOptions& opt = {});
// Markdown: the section report.md shows, and what `rigcheck capacity` prints.
std::string capacity_md(const CapacityAnswer& a);
// The same as an HTML section (report.html): the table, then each model folded in a <details>.
std::string capacity_html(const CapacityAnswer& a);

}  // namespace rigcheck
