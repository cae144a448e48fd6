// Reading a run folder (read_run: results, inventory, manifest, with the renames of data/renames.csv
// applied) and the helpers every evaluator shares (measure, group_by_param, number formatting).
// Writing the report is report.cpp's job.
#include "rigcheck/runfolder/run_folder.hpp"
#include "rigcheck/runfolder/renames.hpp"
#include "rigcheck/harness/paths.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <set>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

// ------------------------------------------------------------------ helpers
Measured measure(const std::vector<const ResultRow*>& rows) {
  Measured m;
  std::vector<double> v;
  for (const ResultRow* r : rows) v.push_back(r->value);
  if (v.empty()) return m;
  Summary s = summarize(v);
  m.value = s.median;
  m.low = s.min;
  m.high = s.max;
  m.reps = static_cast<int>(s.n);
  return m;
}

std::vector<const ResultRow*> flatten(const std::map<std::string, std::vector<const ResultRow*>>& by_case) {
  std::vector<const ResultRow*> out;
  for (auto& [c, rows] : by_case) out.insert(out.end(), rows.begin(), rows.end());
  return out;
}

std::map<std::string, std::vector<const ResultRow*>> group_by_param(
    const std::map<std::string, std::vector<const ResultRow*>>& by_case, const std::string& key) {
  std::map<std::string, std::vector<const ResultRow*>> out;
  for (auto& [name, rows] : by_case)
    for (const ResultRow* r : rows) out[param_value(r->params, key)].push_back(r);
  return out;
}

std::string param_of(const std::vector<const ResultRow*>& rows, const std::string& key) {
  std::vector<std::string> seen;
  for (const ResultRow* r : rows) {
    const std::string v = param_value(r->params, key);
    if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  std::string out;
  for (size_t i = 0; i < seen.size(); ++i) out += (i == 0 ? "" : i + 1 == seen.size() ? " and " : ", ") + seen[i];
  return out;
}

std::string shape_of(const std::vector<const ResultRow*>& rows) {
  std::vector<std::string> parts;
  if (const std::string b = param_of(rows, "batch"); !b.empty()) parts.push_back("batch " + b);
  if (const std::string i = param_of(rows, "image"); !i.empty())
    parts.push_back(i.find(' ') == std::string::npos ? i + "x" + i + " images" : "images of " + i + " pixels square");
  if (const std::string s = param_of(rows, "seq"); !s.empty() && s != "0") parts.push_back("sequence " + s);
  const std::string m = param_of(rows, "m"), n = param_of(rows, "n"), k = param_of(rows, "k");
  if (!m.empty() && m == n && n == k)
    parts.push_back("m=n=k=" + m);
  else if (!m.empty() || !n.empty() || !k.empty())
    parts.push_back("m=" + m + " n=" + n + " k=" + k);
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string fmt_num(double v) {
  if (std::isnan(v)) return "-";
  double a = std::fabs(v);
  if (a >= 1000 || a == 0) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 10) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

std::string format_measured(const Measured& m, const std::string& unit) {
  if (!m.ok()) return "-";
  std::string u = unit.empty() ? "" : " " + unit;
  if (m.reps == 1 || m.low == m.high) return fmt::format("{}{} (n={})", fmt_num(m.value), u, m.reps);
  return fmt::format("{}{} [{} to {}], n={}", fmt_num(m.value), u, fmt_num(m.low), fmt_num(m.high), m.reps);
}

std::string manifest_status(const RunData& run, const std::string& benchmark) {
  for (const ManifestRow& r : run.manifest)
    if (r.benchmark == benchmark)
      return fmt::format("{}: {}{}", benchmark, r.status, r.reason.empty() ? "" : " (" + r.reason + ")");
  return fmt::format("{}: not in this run's manifest", benchmark);
}

std::string fact_or(const std::map<std::string, std::string>& facts, const std::string& key,
                    const std::string& missing) {
  auto it = facts.find(key);
  return it == facts.end() ? missing : it->second;
}

double fact_number(const std::map<std::string, std::string>& facts, const std::string& key) {
  auto it = facts.find(key);
  double v;
  if (it == facts.end() || !parse_double(it->second, v)) return kNaN;
  return v;
}

// ------------------------------------------------------------------ reading a run
std::map<std::string, std::vector<const ResultRow*>> RunData::select(
    const std::string& benchmark, const std::string& metric, const std::map<std::string, std::string>& where) const {
  std::map<std::string, std::vector<const ResultRow*>> out;
  for (const ResultRow& r : results) {
    if (r.benchmark != benchmark || r.metric != metric || r.status != Status::ok) continue;
    bool match = true;
    for (auto& [k, v] : where) match = match && param_value(r.params, k) == v;
    if (match) out[r.case_name].push_back(&r);
  }
  return out;
}

RunData read_run(const std::string& dir, const ReadRunOptions& opt) {
  struct stat sb;
  if (::stat(dir.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode)) throw InputError(dir, 0, "not a run folder");
  return read_run(RunFiles{dir, false, {}, {}}, opt);
}

RunData read_run(const RunFiles& files, const ReadRunOptions& opt) {
  RunData run;
  const std::string& dir = files.dir;
  run.dir = dir;
  const std::string inv = files.path("inventory.csv");
  if (!files.has("inventory.csv")) throw InputError(inv, 0, "missing: every run folder has its inventory");
  for (auto& [k, v] : read_key_value_csv(inv, "key", "value", files.text("inventory.csv"))) run.inventory[k] = v;
  if (files.has("manifest.csv")) run.manifest = read_manifest(files.path("manifest.csv"), files.text("manifest.csv"));
  if (files.has("concurrent_runs.csv"))
    run.concurrent = read_concurrent_runs(files.path("concurrent_runs.csv"), files.text("concurrent_runs.csv"));

  // Whole before read: a file cut, edited, deleted or slipped in after the run is refused (or left
  // out, with the reason) before any of its rows counts.
  run.integrity = verify_run_folder(files);
  std::set<std::string> broken;
  std::string also;
  const FileIntegrity* first = nullptr;
  for (const FileIntegrity& f : run.integrity.files) {
    if (f.state != FileState::broken) continue;
    broken.insert(f.file);
    run.excluded.push_back(f.file + ": " + f.why);
    if (!first)
      first = &f;
    else
      also += (also.empty() ? "" : "; ") + f.file + ": " + f.why;
  }
  if (first && !opt.exclude_broken)
    throw InputError(dir + "/" + first->file, 0,
                     first->why + (also.empty() ? "" : "; also broken: " + also) +
                         " (--exclude-broken leaves broken files out, and says so)");

  for (const std::string& f : result_file_names(files)) {
    if (broken.count(f)) continue;
    auto rows = read_results(files.path(f), files.text(f));
    for (ResultRow& r : rows) r.source = f.substr(0, f.size() - 4);
    apply_renames(suite_renames(), rows);  // rows of older folders under today's names
    if (run.results.empty())
      run.results = std::move(rows);
    else
      run.results.insert(run.results.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    run.result_files.push_back(f);
  }

  add_run_facts(run);
  return run;
}

void add_run_facts(RunData& run) {
  run.facts = run.inventory;
  // Facts about the run rather than the machine: as many nodes as its ok rows ran across (the
  // `nodes` param a multi-node launcher's MPI and NCCL rows carry; the inventory is one node's), at
  // least one; one machine (a second is a second run, for rigcheck compare); MPI available when the
  // inventory found mpirun.
  int nodes = 1;
  for (const ResultRow& r : run.results)
    if (r.status == Status::ok) nodes = std::max(nodes, std::atoi(param_value(r.params, "nodes").c_str()));
  run.facts.emplace("nodes", std::to_string(nodes));
  run.facts.emplace("machines", "1");
  run.facts.emplace(
      "mpi_available",
      run.inventory.count("mpi_version") && run.inventory["mpi_version"].rfind("unknown", 0) != 0 ? "yes" : "no");
}

}  // namespace rigcheck
