// Noise profiles: the run-to-run spread of every case on one machine (noise.csv), from runs made
// back to back (`rigcheck run --repeat N`) or any runs of the machine (`rigcheck noise RUN...`).
// compare and history read them with --noise. See compare.hpp and docs/methodology.md.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {

namespace {
constexpr const char* kNoiseHeader =
    "source,benchmark,case,params,metric,unit,runs,sd_log,cv_pct,spread_pct,host,cpu_model,runs_from";

std::string inv(const LoadedRun& r, const std::string& k) { return fact_or(r.data.inventory, k, kNotRecorded); }
}  // namespace

const Noise* NoiseProfile::find(const std::string& key, const std::string& metric) const {
  auto it = noise.find(key + '\x1f' + metric);
  return it == noise.end() ? nullptr : &it->second;
}

Noise typical_noise(const std::vector<Noise>& ns) {
  std::vector<double> v;
  for (const Noise& n : ns)
    if (n.known()) v.push_back(n.sd * n.sd);
  Noise t;
  if (v.empty()) return t;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  t.sd = std::sqrt(v[v.size() / 2]);
  t.df = static_cast<double>(v.size());
  return t;
}

void NoiseProfile::pool() {
  std::vector<Noise> all;
  for (auto& [k, n] : noise) all.push_back(n);
  typical = typical_noise(all);
}

NoiseProfile noise_profile(const std::vector<LoadedRun>& runs) {
  if (runs.size() < 2)
    throw InputError(runs.empty() ? std::string("rigcheck noise") : runs.front().dir, 0,
                     "a noise profile needs at least two runs of the machine (more is better: the spread of "
                     "three runs is known only roughly)");
  NoiseProfile p;
  p.host = inv(runs[0], "hostname");
  p.cpu_model = inv(runs[0], "cpu_model");
  for (const LoadedRun& r : runs) {
    if (inv(r, "hostname") != p.host || inv(r, "cpu_model") != p.cpu_model)
      throw InputError(r.dir, 0,
                       fmt::format("another machine (host {}, CPU {}; the first run: host {}, CPU {}): a noise "
                                   "profile describes one machine",
                                   inv(r, "hostname"), inv(r, "cpu_model"), p.host, p.cpu_model));
    p.runs.push_back(r.label);
  }
  std::set<std::string> keys;
  for (const LoadedRun& r : runs)
    for (auto& [k, c] : r.cases)
      for (auto& [m, s] : c.metrics) keys.insert(k + '\x1f' + m);
  for (const std::string& km : keys) {
    const size_t cut = km.rfind('\x1f');
    const std::string key = km.substr(0, cut), metric = km.substr(cut + 1);
    std::vector<double> values;
    for (const LoadedRun& r : runs) {
      auto it = r.cases.find(key);
      if (it == r.cases.end() || !it->second.metrics.count(metric)) continue;
      const std::vector<double>& reps = it->second.metrics.at(metric).reps;
      if (std::all_of(reps.begin(), reps.end(), [](double x) { return x > 0 && std::isfinite(x); }))
        values.push_back(run_value(reps));
    }
    if (values.size() >= 2) p.noise[km] = noise_of(values);
  }
  p.pool();
  return p;
}

std::string format_noise_csv(const NoiseProfile& p, const std::vector<LoadedRun>& runs) {
  std::string out = std::string(kNoiseHeader) + "\n";
  for (auto& [km, n] : p.noise) {
    const size_t cut = km.rfind('\x1f');
    const std::string key = km.substr(0, cut), metric = km.substr(cut + 1);
    const CaseRun* c = nullptr;
    std::string from;
    std::vector<double> values;
    for (const LoadedRun& r : runs) {
      auto it = r.cases.find(key);
      if (it == r.cases.end() || !it->second.metrics.count(metric)) continue;
      const std::vector<double>& reps = it->second.metrics.at(metric).reps;
      if (!std::all_of(reps.begin(), reps.end(), [](double x) { return x > 0 && std::isfinite(x); })) continue;
      if (!c) c = &it->second;
      from += (from.empty() ? "" : " ") + r.label;
      values.push_back(run_value(reps));
    }
    std::sort(values.begin(), values.end());
    const double spread = 100 * (std::exp(values.back() - values.front()) - 1);
    out += csv_line({c->source, c->benchmark, c->case_name, c->requested, metric, c->metrics.at(metric).unit,
                     std::to_string(n.runs), format_double(n.sd), fmt::format("{:.2f}", 100 * n.sd),
                     fmt::format("{:.2f}", spread), p.host, p.cpu_model, from}) +
           "\n";
  }
  return out;
}

NoiseProfile read_noise_csv(const std::string& path) {
  NoiseProfile p;
  p.path = path;
  with_csv_errors(path, [&] {
    CsvReader<13> in(path);
    in.read_header(io::ignore_no_column, "source", "benchmark", "case", "params", "metric", "unit", "runs", "sd_log",
                   "cv_pct", "spread_pct", "host", "cpu_model", "runs_from");
    std::string source, bench, cname, params, metric, unit, runs, sd, cv, spread, host, cpu, from;
    std::set<std::string> all_runs;
    while (in.read_row(source, bench, cname, params, metric, unit, runs, sd, cv, spread, host, cpu, from)) {
      const long line = static_cast<long>(in.get_file_line());
      Noise n;
      double r;
      if (!parse_double(runs, r) || r < 2 || r > 1e6 || r != std::floor(r))
        throw InputError(path, line, fmt::format("runs '{}': a noise profile entry needs a whole number >= 2", runs));
      n.runs = static_cast<int>(r);
      n.df = r - 1;
      if (!parse_double(sd, n.sd) || n.sd < 0)
        throw InputError(path, line, fmt::format("sd_log '{}' is not a number >= 0", sd));
      if (bench.empty() || cname.empty() || metric.empty())
        throw InputError(path, line, "benchmark, case and metric must not be empty");
      if (p.host.empty()) {
        p.host = host;
        p.cpu_model = cpu;
      } else if (host != p.host || cpu != p.cpu_model) {
        throw InputError(path, line,
                         fmt::format("host {} / CPU {}, while the file's first row says {} / {}: a noise "
                                     "profile describes one machine",
                                     host, cpu, p.host, p.cpu_model));
      }
      if (!p.noise.emplace(case_key(source, bench, cname, params) + '\x1f' + metric, n).second)
        throw InputError(path, line, fmt::format("{} {} {} appears twice", bench, cname, metric));
      size_t i = 0;
      while (i < from.size()) {
        size_t j = from.find(' ', i);
        if (j == std::string::npos) j = from.size();
        if (j > i) all_runs.insert(from.substr(i, j - i));
        i = j + 1;
      }
    }
    p.runs.assign(all_runs.begin(), all_runs.end());
  });
  if (p.noise.empty()) throw InputError(path, 0, "no entries: not a noise profile (rigcheck noise writes one)");
  p.pool();
  return p;
}

void check_profile_machine(const NoiseProfile& p, const std::vector<const LoadedRun*>& runs) {
  for (const LoadedRun* r : runs)
    if (inv(*r, "hostname") != p.host || inv(*r, "cpu_model") != p.cpu_model)
      throw InputError(p.path, 0,
                       fmt::format("this noise profile was measured on host {} (CPU {}), and {} ran on host {} (CPU "
                                   "{}): the run-to-run noise of one machine says nothing about another's",
                                   p.host, p.cpu_model, r->label, inv(*r, "hostname"), inv(*r, "cpu_model")));
}

int run_noise(const std::vector<std::string>& dirs, const std::string& out_path, const CompareOptions& opt) {
  struct stat sb;
  if (::stat(out_path.c_str(), &sb) == 0)
    throw std::runtime_error(fmt::format("{} exists: results are never overwritten, choose another --out", out_path));
  const CaseRules rules = read_case_rules();
  std::vector<std::string> exclusions;
  std::vector<LoadedRun> runs = load_runs_for(dirs, opt, rules, exclusions, "rigcheck noise", 2, false);
  NoiseProfile p = noise_profile(runs);
  if (p.noise.empty()) {
    size_t mistrusted = 0, ok = 0;
    for (const LoadedRun& r : runs) mistrusted += r.mistrusted_rows, ok += r.ok_rows;
    throw InputError(dirs.front(), 0,
                     mistrusted == 0 ? std::string("no case was measured in two or more of these runs")
                                     : fmt::format("no case was measured in two or more of these runs: {} of their {} "
                                                   "timed rows are mistrusted (another process competed for the "
                                                   "CPU, see the rows' notes) and left out; run again on a quiet "
                                                   "machine",
                                                   mistrusted, mistrusted + ok));
  }
  write_file_atomic(out_path, format_noise_csv(p, runs));
  for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
  std::vector<double> cvs;
  for (auto& [k, n] : p.noise) cvs.push_back(100 * n.sd);
  std::sort(cvs.begin(), cvs.end());
  std::printf(
      "Noise profile of %zu runs (%s): %zu case metrics, run-to-run spread (sd of log run medians) median "
      "%.2f%%, 90th percentile %.2f%%, largest %.2f%%.\nWritten: %s\n",
      runs.size(), p.host.c_str(), p.noise.size(), cvs[cvs.size() / 2], cvs[cvs.size() * 9 / 10], cvs.back(),
      out_path.c_str());
  return 0;
}

}  // namespace rigcheck
