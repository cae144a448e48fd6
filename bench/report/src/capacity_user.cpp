// A user's own model in rigcheck capacity (--model-csv, capacity.hpp): its CSV, and the step rate
// measured in the run that its step time is estimated at.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

std::vector<UserModel> read_user_models(const std::string& path) {
  std::vector<UserModel> out;
  // kind is optional: a missing column leaves its cell empty (dense); the required ones are
  // checked below (an absent column reads as an empty cell, refused with the line).
  for_each_csv_row<5>(
      path, io::ignore_extra_column | io::ignore_missing_column,
      {"name", "params", "activation_bytes_per_sample", "flops_per_sample", "kind"},
      [&](long line, const std::array<std::string, 5>& f) {
        UserModel u;
        u.name = f[0];
        if (u.name.empty()) throw InputError(path, line, "name is empty (or the column is missing)");
        auto positive = [&](const std::string& s, const char* col, double& v) {
          if (!parse_double(s, v) || !(v > 0) || !std::isfinite(v))
            throw InputError(path, line,
                             fmt::format("{} must be a positive number, got '{}'{}", col, s,
                                         s.empty() ? " (an empty cell, or the column is missing)" : ""));
        };
        positive(f[1], "params", u.params);
        positive(f[2], "activation_bytes_per_sample", u.activation_bytes_per_sample);
        positive(f[3], "flops_per_sample", u.flops_per_sample);
        if (!f[4].empty()) u.kind = f[4];
        if (u.kind != "dense" && u.kind != "conv" && u.kind != "transformer")
          throw InputError(path, line, fmt::format("kind must be dense, conv or transformer, got '{}'", u.kind));
        out.push_back(u);
      });
  if (out.empty())
    throw InputError(path, 1, "no model rows (header name,params,activation_bytes_per_sample,flops_per_sample[,kind])");
  return out;
}

namespace {
int threads_of(const ResultRow* r) { return std::atoi(param_value(r->params, "threads").c_str()); }

// The rows at `threads` when there are any, else all of them; `where` says which.
std::vector<const ResultRow*> at_threads(const std::vector<const ResultRow*>& rows, int threads, std::string& where) {
  std::vector<const ResultRow*> at;
  for (const ResultRow* r : rows)
    if (threads_of(r) == threads) at.push_back(r);
  where = at.empty() && !rows.empty()
              ? fmt::format(", measured at {} threads, not at the step's {}", threads_of(rows.front()), threads)
              : "";
  return at.empty() ? rows : at;
}
}  // namespace

StepRate achieved_rate(const RunData& run, const std::string& kind, int threads) {
  StepRate r;
  std::string where;
  if (kind == "dense") {
    std::vector<const ResultRow*> all;
    for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kGflops, {{"model", "mlp"}}))
      all.insert(all.end(), rows.begin(), rows.end());
    const std::vector<const ResultRow*> use = at_threads(all, threads, where);
    if (use.empty()) {
      r.text = "no reference MLP step in this run (memory_host's mlp case, quick and full profiles)";
      return r;
    }
    const Measured m = measure(use);
    const std::string& p = use.front()->params;
    r.gflops = m.value;
    r.source = fmt::format(
        "the training step of memory_host's reference MLP (width {}, depth {}, batch {}; median of {} "
        "child process(es){})",
        param_value(p, "width"), param_value(p, "depth"), param_value(p, "batch"), m.reps, where);
    r.text = fmt::format("{} GFLOP/s, {}", fmt_num(m.value), r.source);
    return r;
  }
  const std::string model = kind == "conv" ? "resnet50" : "bert_base";
  std::vector<const ResultRow*> all;
  for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kStepTime, {{"model", model}}))
    all.insert(all.end(), rows.begin(), rows.end());
  const std::vector<const ResultRow*> use = at_threads(all, threads, where);
  std::map<std::pair<int, int>, std::vector<const ResultRow*>> by;  // (batch, seq) -> rows
  for (const ResultRow* x : use)
    by[{std::atoi(param_value(x->params, "batch").c_str()), std::atoi(param_value(x->params, "seq", "0").c_str())}]
        .push_back(x);
  auto largest = std::max_element(by.begin(), by.end(),
                                  [](const auto& a, const auto& b) { return a.first.first < b.first.first; });
  if (largest == by.end() || largest->first.first <= 0) {
    r.text = fmt::format("no {} step in this run (memory_host's step_time rows)", model);
    return r;
  }
  const auto [batch, seq] = largest->first;
  const double step = measure(largest->second).value;
  const double flops = zoo::training_flops_per_step(zoo::config_by_name(model), batch, seq);
  r.gflops = flops / step / 1e9;
  r.source = fmt::format("{}'s measured training step at batch {}{} ({:.4g} GFLOP in {} s{})", model, batch,
                         seq > 0 ? fmt::format(", seq {}", seq) : "", flops / 1e9, fmt_num(step), where);
  r.text = fmt::format("{} GFLOP/s, {}", fmt_num(r.gflops), r.source);
  return r;
}

FirstTouchCost first_touch_cost(const RunData& run) {
  FirstTouchCost f;
  // By buffer size: the largest (1 GiB in quick and full; tiny's 64 MiB is a smaller sample).
  std::map<double, std::vector<const ResultRow*>> by_bytes;
  for (auto& [c, rows] : run.select(names::kThpAlloc, names::kFirstTouchUsPerPage, {{"pages", "4k"}}))
    for (const ResultRow* r : rows) by_bytes[std::atof(param_value(r->params, "bytes").c_str())].push_back(r);
  if (by_bytes.empty()) {
    f.text = fmt::format(
        "no 4 KiB first-touch figure in this run (memory_thp's {} {} rows, pages=4k: rigcheck run "
        "--select memory_thp)",
        names::kThpAlloc, names::kFirstTouchUsPerPage);
    return f;
  }
  const auto& [bytes, rows] = *by_bytes.rbegin();
  const Measured m = measure(rows);
  f.us_per_page = m.value;
  f.text = fmt::format(
      "memory_thp's {} us per 4 KiB page first touched ({} MiB buffer, median of {} repetition(s), "
      "{} to {})",
      fmt_num(m.value), fmt_num(bytes / 1048576), m.reps, fmt_num(m.low), fmt_num(m.high));
  return f;
}

}  // namespace rigcheck
