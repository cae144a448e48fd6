// Loading runs for compare, history, noise and ab: one load function (load_run), the registries
// that say how rows form cases (data/params.csv, data/metrics.csv), and the inventory fields that
// differ between runs (data/confounders.csv). See compare.hpp.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <thread>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/runfolder/renames.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

bool is_unknown(const std::string& v) { return v.empty() || v.rfind("unknown", 0) == 0; }

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k, const std::string& fb = "") {
  auto it = m.find(k);
  return it == m.end() ? fb : it->second;
}

std::string base_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  auto p = dir.rfind('/');
  return p == std::string::npos ? dir : dir.substr(p + 1);
}

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}
}  // namespace

std::string data_file(const std::string& given, const std::string& name) {
  return given.empty() ? data_path(name) : given;
}

// ------------------------------------------------------------------ case rules
std::string CaseRules::role(const std::string& benchmark, const std::string& param) const {
  auto it = roles.find({benchmark, param});
  if (it == roles.end()) it = roles.find({"*", param});
  return it == roles.end() ? "" : it->second;
}

bool CaseRules::observed(const std::string& benchmark, const std::string& param) const {
  const std::string r = role(benchmark, param);
  return r == "observed" || r == "description";
}

bool CaseRules::description(const std::string& benchmark, const std::string& param) const {
  return role(benchmark, param) == "description";
}

std::string CaseRules::headline(const std::string& benchmark, const std::map<std::string, int>& have) const {
  for (const std::string& b : {benchmark, std::string("*")}) {
    auto it = headlines.find(b);
    if (it == headlines.end()) continue;
    for (const std::string& m : it->second)
      if (have.count(m)) return m;
  }
  for (int want : {1, -1})
    for (auto& [m, better] : have)
      if (better == want) return m;
  return have.empty() ? "" : have.begin()->first;
}

CaseRules read_case_rules(const std::string& params_path, const std::string& metrics_path,
                          const std::string& benchmarks_path) {
  CaseRules r;
  const std::string pp = data_file(params_path, "params.csv");
  with_csv_errors(pp, [&] {
    CsvReader<3> in(pp);
    in.read_header(io::ignore_extra_column, "benchmark", "param", "role");
    std::string b, p, role;
    while (in.read_row(b, p, role)) {
      const long line = static_cast<long>(in.get_file_line());
      if (b.empty() || p.empty()) throw InputError(pp, line, "benchmark and param must not be empty");
      if (role != "requested" && role != "observed" && role != "description")
        throw InputError(pp, line, fmt::format("role '{}': requested, observed or description", role));
      if (!r.roles.emplace(std::make_pair(b, p), role).second)
        throw InputError(pp, line, fmt::format("{} {} appears twice", b, p));
    }
  });
  const std::string mp = data_file(metrics_path, "metrics.csv");
  for_each_csv_row<2>(mp, io::ignore_extra_column, {"benchmark", "headline"}, [&](long line, const auto& c) {
    if (c[0].empty() || words(c[1]).empty()) throw InputError(mp, line, "benchmark and headline must not be empty");
    if (!r.headlines.emplace(c[0], words(c[1])).second)
      throw InputError(mp, line, fmt::format("{} appears twice", c[0]));
  });
  for (const BenchmarkEntry& e : read_benchmark_registry(data_file(benchmarks_path, "benchmarks.csv")))
    r.area_of_entry[e.name] = e.area;
  return r;
}

int direction_of_unit(const std::string& unit) {
  std::string u = unit;
  for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u.find("/s") != std::string::npos || u == "iops" || ends_with(u, "bps")) return 1;
  if (u == "s" || u == "ms" || u == "us" || u == "ns" || u == "\xc2\xb5s") return -1;
  return 0;
}

std::string case_key(const std::string& source, const std::string& benchmark, const std::string& case_name,
                     const std::string& requested) {
  return source + '\x1f' + benchmark + '\x1f' + case_name + '\x1f' + requested;
}

CaseKeyParts split_case_key(const std::string& key) {
  CaseKeyParts k;
  std::string* parts[] = {&k.source, &k.benchmark, &k.case_name, &k.requested};
  size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    const size_t end = i == 3 ? std::string::npos : key.find('\x1f', at);
    *parts[i] = key.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return k;
}

// ------------------------------------------------------------------ loading a run
// The cases of a run: ok timed repetitions of metrics with a direction, keyed by what was asked.
void build_cases(LoadedRun& r, const CaseRules& rules) {
  std::string last_params, last_bench, requested;
  std::map<std::string, std::string> observed;
  std::map<std::pair<std::string, std::string>, int> mistrusted;  // (case key, metric) -> rows
  std::map<std::string, std::string> mistrusted_note;             // case key -> its first mistrusted row's note
  for (const ResultRow& row : r.data.results) {
    const bool not_ok = row.status == Status::skipped || row.status == Status::failed;
    if (!not_ok && (row.status != Status::ok && row.status != Status::mistrusted)) continue;
    if (!not_ok && row.repetition < 0) continue;
    const int better = direction_of_unit(row.unit);
    if (!not_ok && better == 0) continue;
    if (row.params != last_params || row.benchmark != last_bench) {  // rows of a case come together
      last_params = row.params;
      last_bench = row.benchmark;
      requested.clear();
      observed.clear();
      for (auto& [k, v] : parse_params(row.params)) {
        if (rules.observed(row.benchmark, k))
          observed[k] = v;
        else
          requested += (requested.empty() ? "" : ";") + k + "=" + v;
      }
    }
    const auto [source, case_name] = compared_as(suite_renames(), row);  // older folders under today's files
    const std::string key = case_key(source, row.benchmark, case_name, requested);
    if (not_ok) {  // the first such row's note says why
      const std::string why = std::string(to_string(row.status)) + ": " + row.note;
      r.not_working.emplace(key, why);
      r.not_working_by_name.emplace(source + '\x1f' + row.benchmark + '\x1f' + case_name, why);
      continue;
    }
    if (row.status == Status::mistrusted) {
      ++mistrusted[{key, row.metric}];
      mistrusted_note.emplace(key, row.note);
      continue;
    }
    CaseRun& c = r.cases[key];
    if (c.benchmark.empty()) {
      c.source = source;
      c.benchmark = row.benchmark;
      c.case_name = case_name;
      c.requested = requested;
      c.observed = observed;
      c.area = get(r.area_of, row.benchmark, "other");
    }
    MetricSample& m = c.metrics[row.metric];
    m.unit = row.unit;
    m.better = better;
    m.reps.push_back(row.value);
  }
  for (auto& [km, n] : mistrusted) {
    auto it = r.cases.find(km.first);
    if (it == r.cases.end()) {  // every timed row of the case mistrusted
      r.not_working.emplace(km.first, "mistrusted: " + mistrusted_note[km.first]);
      continue;
    }
    auto m = it->second.metrics.find(km.second);
    if (m == it->second.metrics.end() || static_cast<int>(m->second.reps.size()) >= n) continue;
    it->second.metrics.erase(m);
    it->second.disturbed.insert(km.second);
  }
}

LoadedRun load_run(const std::string& dir) { return load_run(dir, read_case_rules()); }

LoadedRun load_run(const std::string& dir, const CaseRules& rules) { return load_run(dir, rules, RunReader()); }

LoadedRun load_run(const std::string& dir, const CaseRules& rules, const RunReader& read) {
  LoadedRun r;
  r.dir = dir;
  r.label = base_name(dir);
  // read_run verifies the folder first (verify_run_folder: each result file's rows and SHA-256 in
  // manifest.csv): a file cut, edited or missing is an InputError naming it, like any other broken
  // input, and --exclude-broken leaves the whole run out with that reason. Then it reads strictly:
  // schema version, columns, numbers, a missing inventory.
  r.data = read ? read(dir) : read_run(dir);
  const std::string inv = dir + "/inventory.csv";
  if (is_unknown(get(r.data.inventory, "method_version")))
    throw InputError(inv, 0, "no method_version: cannot tell which version of the suite's methods measured this run");
  r.time_utc = get(r.data.inventory, "inventory_time_utc");
  // Area of each result benchmark: the manifest (output file -> area), else the registry.
  std::map<std::string, std::string> area_of_file;
  for (const ManifestRow& m : r.data.manifest)
    if (!m.output.empty()) area_of_file[m.output] = m.area;
  for (const ResultRow& row : r.data.results) {
    if (r.area_of.count(row.benchmark)) continue;
    std::string area = get(area_of_file, row.source + ".csv");
    if (area.empty()) area = get(rules.area_of_entry, row.source, "other");
    r.area_of.emplace(row.benchmark, area);
  }
  build_cases(r, rules);
  for (const ResultRow& row : r.data.results) {
    if (row.repetition < 0) continue;
    r.ok_rows += row.status == Status::ok;
    r.mistrusted_rows += row.status == Status::mistrusted;
  }
  return r;
}

std::string incompatibility(const LoadedRun& a, const LoadedRun& b) {
  const std::string ma = get(a.data.inventory, "method_version"), mb = get(b.data.inventory, "method_version");
  if (ma != mb)
    return fmt::format(
        "measured by a different version of the suite's methods (method_version {} in {}, {} in {}): "
        "its figures are not comparable",
        mb, b.label, ma, a.label);
  return "";
}

std::vector<LoadedRun> load_runs_for(const std::vector<std::string>& dirs, const CompareOptions& opt,
                                     const CaseRules& rules, std::vector<std::string>& exclusions, const char* what,
                                     size_t at_least, bool keep_rows) {
  // The folders are read in parallel (one worker per CPU: reading is most of history's time), then
  // checked in the order given, so that errors and exclusions are the same as one by one.
  std::vector<LoadedRun> loaded(dirs.size());
  std::vector<std::exception_ptr> failed(dirs.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < dirs.size();) {
      try {
        if (!keep_rows && opt.cached && opt.cached(dirs[i], loaded[i])) continue;
        loaded[i] = load_run(dirs[i], rules, opt.read);
        if (!keep_rows) std::vector<ResultRow>().swap(loaded[i].data.results);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    }
  };
  const size_t n_workers = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), dirs.size());
  std::vector<std::thread> workers;
  for (size_t w = 1; w < n_workers; ++w) workers.emplace_back(worker);
  worker();
  for (std::thread& t : workers) t.join();
  std::vector<LoadedRun> runs;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const std::string& d = dirs[i];
    try {
      if (failed[i]) std::rethrow_exception(failed[i]);
      LoadedRun r = std::move(loaded[i]);
      if (!runs.empty()) {
        std::string why = incompatibility(runs.front(), r);
        if (!why.empty()) {
          if (!opt.exclude_broken)
            throw InputError(d, 0, why + " (--exclude-broken leaves such a run out, and says so)");
          exclusions.push_back(fmt::format("{}: {}", d, why));
          continue;
        }
      }
      runs.push_back(std::move(r));
    } catch (const InputError& e) {
      if (!opt.exclude_broken) throw;
      exclusions.push_back(fmt::format("{}: {}", d, e.what()));
    }
  }
  if (runs.size() < at_least)
    throw InputError(dirs.empty() ? std::string(what) : dirs.front(), 0,
                     fmt::format("{} needs at least {} usable runs, {} left{}", what,
                                 at_least == 2 ? std::string("two") : std::to_string(at_least), runs.size(),
                                 exclusions.empty() ? "" : " after excluding: " + exclusions.front()));
  return runs;
}

// ------------------------------------------------------------------ confounders
std::vector<ConfounderDef> read_confounders(const std::string& path) {
  std::vector<ConfounderDef> out;
  for_each_csv_row<4>(path, io::ignore_no_column, {"key", "label", "kind", "tolerance"},
                      [&](long line, const std::array<std::string, 4>& f) {
                        ConfounderDef d{f[0], f[1], f[2], 0};
                        const std::string& tol = f[3];
                        if (d.kind != "exact" && d.kind != "relative" && d.kind != "above" && d.kind != "row_fact" &&
                            d.kind != "ignore")
                          throw InputError(
                              path, line,
                              fmt::format("unknown kind '{}' (exact, relative, above, row_fact, ignore)", d.kind));
                        if (!tol.empty() && !parse_double(tol, d.tolerance))
                          throw InputError(path, line, fmt::format("tolerance '{}' is not a number", tol));
                        if ((d.kind == "relative" || d.kind == "above") && tol.empty())
                          throw InputError(path, line, fmt::format("kind {} needs a tolerance", d.kind));
                        out.push_back(d);
                      });
  return out;
}

namespace {
bool values_differ(FieldDiff& d, const std::string& kind, double tol) {
  if (kind == "above") {
    bool differ = false;
    for (const std::string& v : d.values) {
      double x;
      differ |= parse_double(v, x) && x > tol;
    }
    d.label += fmt::format(" (above {} in a run: another process may have competed)", tol);
    return differ;
  }
  if (kind == "relative") {
    double lo = INFINITY, hi = -INFINITY;
    for (const std::string& v : d.values) {
      double x;
      if (!parse_double(v, x)) return std::set<std::string>(d.values.begin(), d.values.end()).size() > 1;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    return lo > 0 ? hi / lo - 1 > tol : hi != lo;
  }
  // Two "unknown: ..." values differ only in wording: the fact is unknown in both.
  std::set<std::string> distinct;
  for (const std::string& v : d.values) distinct.insert(is_unknown(v) ? "unknown" : v);
  return distinct.size() > 1;
}
}  // namespace

std::vector<FieldDiff> differing_fields(const std::vector<const LoadedRun*>& runs,
                                        const std::vector<ConfounderDef>& defs, std::vector<std::string>* unrecorded) {
  std::vector<FieldDiff> out;
  std::set<std::string> keys, seen;
  for (const LoadedRun* r : runs)
    for (auto& [k, v] : r->data.inventory) keys.insert(k);
  auto check = [&](const std::string& key, const std::string& label, const std::string& kind, double tol, bool listed) {
    if (kind == "ignore" || kind == "row_fact") return;
    FieldDiff d{key, label, {}, listed};
    bool any = false;
    for (const LoadedRun* r : runs) {
      auto it = r->data.inventory.find(key);
      d.values.push_back(it == r->data.inventory.end() ? "(not recorded)" : it->second);
      any |= it != r->data.inventory.end();
    }
    if (!any) {
      if (unrecorded && listed) unrecorded->push_back(label + " (" + key + ")");
      return;
    }
    if (values_differ(d, kind, tol)) out.push_back(d);
  };
  for (const ConfounderDef& def : defs) {
    seen.insert(def.key);
    check(def.key, def.label, def.kind, def.tolerance, true);
  }
  for (const std::string& k : keys)
    if (!seen.count(k)) check(k, k, "exact", 0, false);
  return out;
}

std::string describe_diff(const FieldDiff& d) {
  std::string s = d.label + ": ";
  for (size_t i = 0; i < d.values.size(); ++i) s += (i ? " -> " : "") + d.values[i];
  return s;
}

std::vector<FieldDiff> differing_between_sides(const std::vector<const LoadedRun*>& a,
                                               const std::vector<const LoadedRun*>& b,
                                               const std::vector<ConfounderDef>& defs,
                                               std::vector<std::string>* unrecorded) {
  std::vector<const LoadedRun*> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::vector<FieldDiff> out = differing_fields(all, defs, unrecorded);
  for (FieldDiff& d : out) {
    auto joined = [&](size_t from, size_t to) {
      std::vector<std::string> seen;
      for (size_t i = from; i < to; ++i)
        if (std::find(seen.begin(), seen.end(), d.values[i]) == seen.end()) seen.push_back(d.values[i]);
      std::string s;
      for (const std::string& v : seen) s += (s.empty() ? "" : " | ") + v;
      return s;
    };
    const std::string va = joined(0, a.size()), vb = joined(a.size(), all.size());
    if (va == vb) {
      d.label += " (varies within each side, alike on both)";
      d.values = {va};
    } else {
      d.values = {va, vb};
    }
  }
  return out;
}

std::string changed_between(const LoadedRun& before, const LoadedRun& after, const std::vector<ConfounderDef>& defs) {
  std::string changed;
  for (const FieldDiff& d : differing_fields({&before, &after}, defs)) {
    if (d.key == "loadavg_1m") continue;  // a condition of the run, not a change of the machine
    changed += (changed.empty() ? "" : "; ") + describe_diff(d);
  }
  return changed;
}

}  // namespace rigcheck
