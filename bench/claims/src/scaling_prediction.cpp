// Predicted scaling figures with a run-to-run interval and a reach: scaling_prediction.hpp.
#include "rigcheck/claims/scaling_prediction.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/distributions.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/stats.hpp"
#include "run_facts.hpp"

namespace rigcheck::prediction {

namespace {
bool exists(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

double log_sd(const std::vector<double>& v) {
  double mean = 0, ss = 0;
  for (double x : v) mean += std::log(x);
  mean /= static_cast<double>(v.size());
  for (double x : v) ss += (std::log(x) - mean) * (std::log(x) - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

// The noise profile beside the run: PARENT/noise.csv where PARENT is the folder `rigcheck run
// --repeat` made (named noise-<host>-<time>), so that a stray noise.csv in a shared folder such as
// /tmp is never taken. Not RUN/noise.csv: every .csv in a run folder is read as a result file.
std::string profile_path(const RunData& run) {
  if (run.dir.empty()) return "";
  std::string d = run.dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const size_t cut = d.rfind('/');
  const std::string parent = cut == std::string::npos ? "." : d.substr(0, cut);
  const std::string name = parent.substr(parent.rfind('/') == std::string::npos ? 0 : parent.rfind('/') + 1);
  return name.rfind("noise-", 0) == 0 && exists(parent + "/noise.csv") ? parent + "/noise.csv" : "";
}

// sd_log and runs of `bench`/`c`/`metric` in the profile at `path` for this run's machine (host and
// cpu_model as its inventory, as compare checks a profile); false
// when the profile is of another machine or lacks the case.
bool profile_entry(const std::string& path, const RunData& run, const std::string& bench, const std::string& c,
                   const std::string& metric, double& sd, double& runs, bool& other_machine) {
  bool found = false;
  const std::string host = fact_or(run.inventory, "hostname", kNotRecorded);
  const std::string cpu = fact_or(run.inventory, "cpu_model", kNotRecorded);
  for_each_csv_row<7>(path, io::ignore_extra_column,
                      {"benchmark", "case", "metric", "runs", "sd_log", "host", "cpu_model"},
                      [&](long line, const std::array<std::string, 7>& x) {
                        if (x[5] != host || x[6] != cpu) other_machine = true;
                        if (x[0] != bench || x[1] != c || x[2] != metric) return;
                        if (!parse_double(x[4], sd) || !(sd >= 0) || !std::isfinite(sd) || !parse_double(x[3], runs) ||
                            !(runs >= 2) || !std::isfinite(runs))
                          throw InputError(path, line, "sd_log or runs is not a number (a noise profile entry)");
                        found = true;
                      });
  return found && !other_machine;
}
}  // namespace

RunToRun prior_of(const RunData& run, const std::string& path, const std::string& quantity) {
  std::vector<double> values;
  std::set<std::string> classes;
  for_each_csv_row<4>(path, io::ignore_extra_column, {"quantity", "machine_class", "run", "value"},
                      [&](long line, const std::array<std::string, 4>& x) {
                        if (x[0] != quantity) return;
                        double v;
                        if (!parse_double(x[3], v) || !(v > 0) || !std::isfinite(v))
                          throw InputError(path, line, fmt::format("value '{}' is not a positive number", x[3]));
                        values.push_back(v);
                        classes.insert(x[1]);
                      });
  if (values.size() < 2) throw InputError(path, 0, fmt::format("fewer than two runs of {}: no prior", quantity));
  RunToRun r;
  r.sd = log_sd(values);
  r.df = static_cast<double>(values.size() - 1);
  const std::string cls = *classes.begin();
  const bool same = run_facts::physical_cores(run) == 2 && run.facts.count("virtualization") &&
                    run.facts.at("virtualization") != "none";
  r.source = fmt::format(
      "prior for the {} class, data/run_to_run_prior.csv: {} runs of this project ({}), sd of their log "
      "{:.2f}%{}; this run has no noise profile of its machine beside it (`rigcheck run --repeat N` "
      "makes one)",
      cls, values.size(), quantity, 100 * r.sd,
      same ? ""
           : fmt::format("; this machine ({} physical cores, virtualization {}) is not of that "
                         "class, whose prior is the only one measured: its own runs may move more",
                         run_facts::physical_cores(run), run_facts::fact(run, "virtualization")));
  return r;
}

RunToRun run_to_run(const RunData& run, const std::string& bench, const std::string& metric, const std::string& case_1,
                    const std::string& case_n, const std::string& prior_quantity) {
  const std::string path = profile_path(run);
  std::string note;
  if (!path.empty()) {
    double sd1 = 0, sdn = 0, r1 = 0, rn = 0;
    bool other = false, found = false;
    try {  // a broken profile does not stop the report: it is not used, and the evidence says why
      found = profile_entry(path, run, bench, case_1, metric, sd1, r1, other) &&
              profile_entry(path, run, bench, case_n, metric, sdn, rn, other);
    } catch (const InputError& e) {
      note = fmt::format("; {} is not readable as a noise profile ({}): not used", path, e.what());
    }
    if (found) {
      RunToRun r;
      r.sd = std::sqrt(sd1 * sd1 + sdn * sdn);
      r.df = std::min(r1, rn) - 1;
      r.from_profile = true;
      r.source = fmt::format(
          "noise profile of {:.0f} runs ({}): {} {:.2f}% and {} {:.2f}% run to run, sqrt of the "
          "sum of squares {:.2f}%",
          std::min(r1, rn), path, case_1, 100 * sd1, case_n, 100 * sdn, 100 * r.sd);
      return r;
    }
    if (note.empty())
      note = other ? fmt::format("; {} is of another machine: not used", path)
                   : fmt::format("; {} has no entry for {} and {}: not used", path, case_1, case_n);
  }
  RunToRun r = prior_of(run, data_path("run_to_run_prior.csv"), prior_quantity);
  r.source += note;
  return r;
}

AmdahlPrediction predict(const std::map<int, Measured>& eff, const RunToRun& r2r) {
  AmdahlPrediction f;
  f.r2r = r2r;
  std::vector<std::pair<double, double>> pts;
  for (auto& [t, e] : eff) {
    f.counts++;
    f.tmax = std::max(f.tmax, t);
    if (t >= 2) pts.push_back({t, e.value / 100 * t});
  }
  f.p = amdahl_fit(pts);
  const double sd = std::isnan(r2r.sd) ? 0 : r2r.sd;
  f.k = sd > 0 ? student_t_quantile(1 - kAlpha / 2, r2r.df) : 0;
  f.shift = f.k * sd;
  if (pts.size() >= 2) {
    double ss = 0;
    for (auto [t, s] : pts) ss += std::pow(std::log(s / amdahl_speedup(f.p, t)), 2);
    f.residual = std::sqrt(ss / static_cast<double>(pts.size() - 1));
    f.widened = f.residual > sd;
    if (f.widened) f.shift += student_t_quantile(1 - kAlpha / 2, static_cast<double>(pts.size() - 1)) * f.residual;
  }
  std::vector<std::pair<double, double>> lo, hi;
  for (auto& [t, e] : eff)
    if (t >= 2) {
      lo.push_back({t, e.low / 100 * t * std::exp(-f.shift)});
      hi.push_back({t, e.high / 100 * t * std::exp(f.shift)});
    }
  f.p_lo = amdahl_fit(lo);
  f.p_hi = amdahl_fit(hi);
  return f;
}

std::string AmdahlPrediction::text() const {
  std::string s = std::isnan(r2r.sd) || r2r.sd == 0
                      ? "the interval from fits of the measured E(n) interval's ends, no run-to-run part"
                      : fmt::format(
                            "the interval from fits of the measured E(n) interval's ends, each moved out by "
                            "{:.2f} x {:.2f}%, t({:g}, {:.0f} df) standard deviations of log E(n) from run to "
                            "run, from the {}",
                            k, 100 * r2r.sd, 1 - kAlpha / 2, r2r.df, r2r.source);
  if (!std::isnan(residual))
    s += fmt::format("; the fit's residual over its {} thread counts: {:.2f}% (log scale, {} df){}", counts,
                     100 * residual, counts - 2,
                     widened ? ", more than the runs move: the model misses, the ends moved out by it too"
                             : ", within what the runs move");
  else
    s += fmt::format("; {} thread counts: one parameter fitted to one ratio, no residual can test the model", counts);
  return s;
}

std::string reach_text(const AmdahlPrediction& f, int target) {
  return fmt::format(
      "{} threads from 1..{} measured is {:g}x beyond the largest measured count; a one-parameter fit is "
      "judged only up to {:g}x (docs/methodology.md \"Predicted scaling: interval and reach\")",
      target, f.tmax, static_cast<double>(target) / f.tmax, kReach);
}

}  // namespace rigcheck::prediction
