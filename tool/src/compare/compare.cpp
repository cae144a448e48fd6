// `rigcheck compare`: runs side by side. See compare.hpp and docs/methodology.md.
#include "rigcheck/tool/compare.hpp"
#include "rigcheck/harness/paths.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/tool/html.hpp"
#include "rigcheck/tool/report_util.hpp"
#include "rigcheck/tool/runner.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

// ------------------------------------------------------------------ Mann-Whitney U
double mann_whitney_min_p(size_t n, size_t m) {
  // 2 / C(n+m, n), computed in floating point.
  double c = 1;
  for (size_t i = 1; i <= n; ++i) c = c * static_cast<double>(m + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / c);
}

int mann_whitney_reps_needed(double alpha) {
  for (int k = 1; k < 1000; ++k)
    if (mann_whitney_min_p(k, k) <= alpha) return k;
  return 1000;
}

MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("mann_whitney: empty sample");
  const size_t n = a.size(), m = b.size(), N = n + m;
  // Mid-ranks of the pooled sample, doubled so that they are integers.
  std::vector<std::pair<double, size_t>> pooled;
  for (size_t i = 0; i < n; ++i) pooled.push_back({a[i], i});
  for (size_t j = 0; j < m; ++j) pooled.push_back({b[j], n + j});
  std::sort(pooled.begin(), pooled.end());
  std::vector<long> rank2(N);
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (size_t i = 0; i < N;) {
    size_t j = i;
    while (j + 1 < N && pooled[j + 1].first == pooled[i].first) ++j;
    const long r2 = static_cast<long>(i + 1 + j + 1);  // 2 x mid-rank of positions i..j (1-based)
    for (size_t k = i; k <= j; ++k) rank2[pooled[k].second] = r2;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  long r2_a = 0;
  for (size_t i = 0; i < n; ++i) r2_a += rank2[i];
  MannWhitney out;
  // U = R_a - n(n+1)/2
  out.u = r2_a / 2.0 - static_cast<double>(n * (n + 1)) / 2.0;
  const double mid = static_cast<double>(n * m) / 2.0;
  const double dev = std::fabs(out.u - mid);

  if (N <= 100) {
    // Exact: the distribution of the (doubled) rank sum of n items drawn from the N pooled
    // ranks, by counting subsets (ties included, since the ranks are the mid-ranks).
    const long max_sum = 2 * static_cast<long>(N * (N + 1) / 2) + 1;
    std::vector<std::vector<double>> ways(n + 1, std::vector<double>(max_sum + 1, 0.0));
    ways[0][0] = 1;
    for (size_t item = 0; item < N; ++item) {
      const long w = rank2[item];
      for (size_t k = std::min(n, item + 1); k >= 1; --k)
        for (long s = max_sum - w; s >= 0; --s)
          if (ways[k - 1][s] != 0) ways[k][s + w] += ways[k - 1][s];
    }
    double total = 0, extreme = 0;
    for (long s = 0; s <= max_sum; ++s) {
      const double c = ways[n][s];
      if (c == 0) continue;
      total += c;
      const double u = s / 2.0 - static_cast<double>(n * (n + 1)) / 2.0;
      if (std::fabs(u - mid) >= dev - 1e-9) extreme += c;
    }
    out.p = std::min(1.0, extreme / total);
    out.exact = true;
    return out;
  }
  // Normal approximation, tie-corrected variance, continuity correction.
  const double var = static_cast<double>(n * m) / 12.0 *
                     ((static_cast<double>(N) + 1) - tie_term / (static_cast<double>(N) * (static_cast<double>(N) - 1)));
  if (var <= 0) {
    out.p = 1;
    return out;
  }
  const double z = std::max(0.0, dev - 0.5) / std::sqrt(var);
  out.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return out;
}

// ------------------------------------------------------------------ runs
namespace {

bool file_exists(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0;
}

std::string base_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  auto p = dir.rfind('/');
  return p == std::string::npos ? dir : dir.substr(p + 1);
}

std::string get(const std::map<std::string, std::string>& m, const std::string& k, const std::string& fb = "") {
  auto it = m.find(k);
  return it == m.end() ? fb : it->second;
}

bool is_unknown(const std::string& v) { return v.empty() || v.rfind("unknown", 0) == 0; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

}  // namespace

LoadedRun load_run(const std::string& dir) {
  LoadedRun r;
  r.dir = dir;
  r.label = base_name(dir);
  r.data = read_run(dir);  // strict: schema version, columns, numbers, a missing inventory
  const std::string inv = dir + "/inventory.csv";
  if (is_unknown(get(r.data.inventory, "method_version")))
    throw InputError(inv, 0, "no method_version: cannot tell which version of the suite's methods measured this run");
  r.time_utc = get(r.data.inventory, "inventory_time_utc");
  // Area of each result benchmark: the manifest (output file -> area), else the registry.
  std::map<std::string, std::string> area_of_file;
  for (const ManifestRow& m : r.data.manifest)
    if (!m.output.empty()) area_of_file[m.output] = m.area;
  std::map<std::string, std::string> area_of_stem;
  try {
    for (const BenchmarkEntry& e : read_benchmark_registry(data_path("benchmarks.csv")))
      area_of_stem[e.name] = e.area;
  } catch (const std::exception&) {
  }
  for (const std::string& f : r.data.result_files) {
    std::string area = get(area_of_file, f);
    if (area.empty()) area = get(area_of_stem, f.substr(0, f.size() - 4), "other");
    for (const ResultRow& row : read_results(dir + "/" + f)) r.area_of.emplace(row.benchmark, area);
  }
  return r;
}

std::string incompatibility(const LoadedRun& a, const LoadedRun& b) {
  const std::string ma = get(a.data.inventory, "method_version"), mb = get(b.data.inventory, "method_version");
  if (ma != mb)
    return fmt::format("measured by a different version of the suite's methods (method_version {} in {}, {} in {}): "
                       "its figures are not comparable",
                       mb, b.label, ma, a.label);
  return "";
}

std::vector<ConfounderDef> read_confounders(const std::string& path) {
  std::vector<ConfounderDef> out;
  with_csv_errors(path, [&] {
    io::CSVReader<4, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "key", "label", "kind", "tolerance");
    ConfounderDef d;
    std::string tol;
    while (in.read_row(d.key, d.label, d.kind, tol)) {
      long line = static_cast<long>(in.get_file_line());
      if (d.kind != "exact" && d.kind != "relative" && d.kind != "above" && d.kind != "row_fact" && d.kind != "ignore")
        throw InputError(path, line, fmt::format("unknown kind '{}' (exact, relative, above, row_fact, ignore)", d.kind));
      d.tolerance = 0;
      if (!tol.empty() && !parse_double(tol, d.tolerance))
        throw InputError(path, line, fmt::format("tolerance '{}' is not a number", tol));
      if ((d.kind == "relative" || d.kind == "above") && tol.empty())
        throw InputError(path, line, fmt::format("kind {} needs a tolerance", d.kind));
      out.push_back(d);
    }
  });
  return out;
}

std::vector<FieldDiff> differing_fields(const std::vector<const LoadedRun*>& runs,
                                        const std::vector<ConfounderDef>& defs,
                                        std::vector<std::string>* unrecorded) {
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
    bool differ = false;
    if (kind == "above") {
      for (const std::string& v : d.values) {
        double x;
        differ |= parse_double(v, x) && x > tol;
      }
      d.label += fmt::format(" (above {} in a run: another process may have competed)", tol);
    } else if (kind == "relative") {
      double lo = INFINITY, hi = -INFINITY;
      bool numeric = true;
      for (const std::string& v : d.values) {
        double x;
        if (!parse_double(v, x)) {
          numeric = false;
          break;
        }
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      if (numeric) differ = lo > 0 ? hi / lo - 1 > tol : hi != lo;
      else differ = std::set<std::string>(d.values.begin(), d.values.end()).size() > 1;
    } else {
      // Two "unknown: ..." values differ only in wording: the fact is unknown in both.
      std::set<std::string> distinct;
      for (const std::string& v : d.values) distinct.insert(is_unknown(v) ? "unknown" : v);
      differ = distinct.size() > 1;
    }
    if (differ) out.push_back(d);
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

// ------------------------------------------------------------------ rows
namespace {

// +1 when a larger value is better (a rate), -1 when smaller is better (a time), 0: not judged.
int direction_of_unit(const std::string& unit) {
  const std::string u = lower(unit);
  if (u.find("/s") != std::string::npos || u == "iops" || ends_with(u, "bps")) return 1;
  if (u == "s" || u == "ms" || u == "us" || u == "ns" || u == "\xc2\xb5s") return -1;
  return 0;
}

struct Sample {
  std::string benchmark, case_name, params, metric, unit;
  std::map<std::string, std::string> facts;  // row facts (impl, isa...) of the first row
  std::vector<double> values;
};

// Rows keyed on benchmark, case, params less the row facts, and metric.
std::map<std::string, Sample> samples(const LoadedRun& run, const std::set<std::string>& row_facts) {
  std::map<std::string, Sample> out;
  for (const ResultRow& r : run.data.results) {
    if (r.status != Status::ok || r.repetition < 0 || direction_of_unit(r.unit) == 0) continue;
    std::string kept;
    std::map<std::string, std::string> facts;
    for (auto& [k, v] : parse_params(r.params)) {
      if (row_facts.count(k)) facts[k] = v;
      else kept += (kept.empty() ? "" : ";") + k + "=" + v;
    }
    const std::string key = r.benchmark + "\x1f" + r.case_name + "\x1f" + kept + "\x1f" + r.metric;
    Sample& s = out[key];
    if (s.values.empty()) {
      s.benchmark = r.benchmark;
      s.case_name = r.case_name;
      s.params = kept;
      s.metric = r.metric;
      s.unit = r.unit;
      s.facts = facts;
    }
    s.values.push_back(r.value);
  }
  return out;
}

Measured measured_of(const std::vector<double>& v) {
  Measured m;
  if (v.empty()) return m;
  Summary s = summarize(v);
  m.value = s.median;
  m.low = s.min;
  m.high = s.max;
  m.reps = static_cast<int>(s.n);
  return m;
}

}  // namespace

std::vector<RowComparison> compare_pair(const LoadedRun& base, const LoadedRun& run,
                                        const std::vector<ConfounderDef>& defs, const CompareOptions& opt) {
  std::set<std::string> row_facts;
  for (const ConfounderDef& d : defs)
    if (d.kind == "row_fact") row_facts.insert(d.key);
  auto sa = samples(base, row_facts), sb = samples(run, row_facts);
  std::set<std::string> keys;
  for (auto& [k, s] : sa) keys.insert(k);
  for (auto& [k, s] : sb) keys.insert(k);
  const double alpha = opt.alpha;
  const int need = mann_whitney_reps_needed(alpha);
  std::vector<RowComparison> out;
  for (const std::string& k : keys) {
    auto ia = sa.find(k), ib = sb.find(k);
    const Sample& any = ia != sa.end() ? ia->second : ib->second;
    RowComparison c;
    c.benchmark = any.benchmark;
    c.case_name = any.case_name;
    c.params = any.params;
    c.metric = any.metric;
    c.unit = any.unit;
    c.better = direction_of_unit(any.unit);
    c.area = get(ia != sa.end() ? base.area_of : run.area_of, any.benchmark, "other");
    c.base_label = base.label;
    c.run_label = run.label;
    if (ia == sa.end() || ib == sb.end()) {
      c.flag = ia == sa.end() ? "only_in_run" : "only_in_base";
      c.note = ia == sa.end() ? "no ok rows in " + base.label : "no ok rows in " + run.label;
      if (ia != sa.end()) c.base = measured_of(ia->second.values);
      if (ib != sb.end()) c.run = measured_of(ib->second.values);
      out.push_back(c);
      continue;
    }
    const Sample& a = ia->second;
    const Sample& b = ib->second;
    c.base = measured_of(a.values);
    c.run = measured_of(b.values);
    c.ratio = c.run.value / c.base.value;
    c.ratio_low = c.run.low / c.base.high;
    c.ratio_high = c.run.high / c.base.low;
    c.change_pct = c.better > 0 ? 100 * (c.ratio - 1) : 100 * (1 / c.ratio - 1);
    for (auto& [fk, fv] : a.facts) {
      std::string other = get(b.facts, fk, "(none)");
      if (other != fv) c.note += fmt::format("{}{}: {} -> {}", c.note.empty() ? "" : "; ", fk, fv, other);
    }
    for (auto& [fk, fv] : b.facts)
      if (!a.facts.count(fk)) c.note += fmt::format("{}{}: (none) -> {}", c.note.empty() ? "" : "; ", fk, fv);
    c.mw = mann_whitney(a.values, b.values);
    if (mann_whitney_min_p(a.values.size(), b.values.size()) > alpha) {
      c.flag = "too_few_reps";
      std::string why = fmt::format(
          "too few repetitions ({} and {}): the exact two-sided test cannot reach p < {} with them; it needs at least "
          "{} per side",
          a.values.size(), b.values.size(), alpha, need);
      c.note = c.note.empty() ? why : why + "; " + c.note;
    } else if (c.mw.p < alpha && c.change_pct <= -opt.threshold_pct) {
      c.flag = "regression";
    } else if (c.mw.p < alpha && c.change_pct >= opt.threshold_pct) {
      c.flag = "improvement";
    } else {
      c.flag = "no_change";
    }
    out.push_back(c);
  }
  return out;
}

std::vector<AreaSummary> summarize_areas(const std::vector<RowComparison>& rows) {
  std::map<std::pair<std::string, std::string>, AreaSummary> acc;
  std::map<std::pair<std::string, std::string>, std::array<double, 3>> logs;
  for (const RowComparison& r : rows) {
    if (std::isnan(r.ratio) || r.ratio <= 0 || r.ratio_low <= 0) continue;
    auto key = std::make_pair(r.run_label, r.area);
    AreaSummary& s = acc[key];
    s.area = r.area;
    s.base_label = r.base_label;
    s.run_label = r.run_label;
    ++s.rows;
    auto& l = logs[key];
    // Speed of the run relative to the base: ratio for rates, 1/ratio for times.
    if (r.better > 0) {
      l[0] += std::log(r.ratio);
      l[1] += std::log(r.ratio_low);
      l[2] += std::log(r.ratio_high);
    } else {
      l[0] -= std::log(r.ratio);
      l[1] -= std::log(r.ratio_high);
      l[2] -= std::log(r.ratio_low);
    }
  }
  std::vector<AreaSummary> out;
  for (auto& [key, s] : acc) {
    auto& l = logs[key];
    s.geomean = std::exp(l[0] / s.rows);
    s.low = std::exp(l[1] / s.rows);
    s.high = std::exp(l[2] / s.rows);
    out.push_back(s);
  }
  return out;
}

// ------------------------------------------------------------------ cross-run claims
namespace {

std::string memory_type(const LoadedRun& r) {
  const std::string t = get(r.data.inventory, "memory_dimm_type");
  if (t.find("DDR5") != std::string::npos) return "DDR5";
  if (t.find("DDR4") != std::string::npos) return "DDR4";
  return "";
}

std::string gpu_generation(const LoadedRun& r) {
  std::string cc = get(r.data.inventory, "gpu0_compute_capability");
  if (is_unknown(cc)) return "";
  double v;
  if (!parse_double(cc, v)) return "";
  if (v >= 7.5 && v < 8.0) return "Turing";
  if (v >= 8.0 && v < 8.9) return "Ampere";
  return "";
}

// The row of `benchmark`/`metric` common to both runs with the largest value of `size_key`,
// then the most threads.
const RowComparison* pick_row(const std::vector<RowComparison>& rows, const std::string& benchmark,
                              const std::string& metric, const std::string& size_key,
                              const std::map<std::string, std::string>& where = {}) {
  const RowComparison* best = nullptr;
  auto num = [](const RowComparison* r, const std::string& k) { return std::atof(param_value(r->params, k).c_str()); };
  for (const RowComparison& r : rows) {
    if (r.benchmark != benchmark || r.metric != metric || std::isnan(r.ratio)) continue;
    bool ok = true;
    for (auto& [k, v] : where) ok = ok && param_value(r.params, k) == v;
    if (!ok) continue;
    if (!best || num(&r, size_key) > num(best, size_key) ||
        (num(&r, size_key) == num(best, size_key) && num(&r, "threads") > num(best, "threads")))
      best = &r;
  }
  return best;
}

std::string other_differences(const LoadedRun& a, const LoadedRun& b, const std::vector<ConfounderDef>& defs,
                              const std::string& except) {
  std::string s;
  for (const FieldDiff& d : differing_fields({&a, &b}, defs))
    if (d.listed && d.key.find(except) == std::string::npos) s += (s.empty() ? "" : "; ") + describe_diff(d);
  return s.empty() ? "" : " Other differences between the two machines, confounding the comparison: " + s + ".";
}

}  // namespace

std::vector<std::pair<Claim, Verdict>> cross_run_claims(const std::vector<const LoadedRun*>& runs,
                                                        const std::vector<Claim>& claims,
                                                        const std::string& datasheets_path) {
  std::vector<std::pair<Claim, Verdict>> out;
  std::vector<ConfounderDef> defs;
  try {
    defs = read_confounders(data_path("confounders.csv"));
  } catch (const std::exception&) {
  }
  CompareOptions opt;
  auto find_pair = [&](auto classify, const std::string& lo, const std::string& hi,
                       std::pair<const LoadedRun*, const LoadedRun*>& p) {
    for (const LoadedRun* r : runs) {
      std::string c = classify(*r);
      if (c == lo && !p.first) p.first = r;
      if (c == hi && !p.second) p.second = r;
    }
    return p.first && p.second;
  };
  auto seen = [&](auto classify, const std::string& key) {
    std::string s;
    for (const LoadedRun* r : runs) {
      std::string c = classify(*r);
      s += fmt::format("{}{}: {}", s.empty() ? "" : ", ", r->label,
                       c.empty() ? get(r->data.inventory, key, "not recorded") : c);
    }
    return s;
  };
  for (const Claim& c : claims) {
    Verdict v;
    v.claim_id = c.id;
    v.unit = c.unit;
    if (c.id == "MEM-2" || c.id == "MEM-3") {
      std::pair<const LoadedRun*, const LoadedRun*> p{nullptr, nullptr};
      if (!find_pair(memory_type, "DDR4", "DDR5", p)) {
        v.verdict = Outcome::not_measurable;
        v.reason = "needs one run on DDR4 and one on DDR5 memory (inventory memory_dimm_type); these runs: " +
                   seen(memory_type, "memory_dimm_type");
        out.push_back({c, v});
        continue;
      }
      auto rows = compare_pair(*p.first, *p.second, defs, opt);
      const bool latency = c.id == "MEM-3";
      const RowComparison* r = latency ? pick_row(rows, "memory_latency", "ns_per_load", "bytes")
                                       : pick_row(rows, "gemm_matmul_f32", "gflops", "m");
      if (!r) {
        v.verdict = Outcome::not_measurable;
        v.reason = fmt::format("no {} rows common to {} (DDR4) and {} (DDR5)",
                               latency ? "memory_latency ns_per_load" : "gemm_matmul_f32 gflops", p.first->label,
                               p.second->label);
        out.push_back({c, v});
        continue;
      }
      v.measured.reps = std::min(r->base.reps, r->run.reps);
      if (latency) {  // latency reduction in percent
        v.measured.value = 100 * (1 - r->ratio);
        v.measured.low = 100 * (1 - r->ratio_high);
        v.measured.high = 100 * (1 - r->ratio_low);
      } else {
        v.measured.value = 100 * (r->ratio - 1);
        v.measured.low = 100 * (r->ratio_low - 1);
        v.measured.high = 100 * (r->ratio_high - 1);
      }
      v.verdict = judge(c, v.measured.low, v.measured.high);
      v.evidence = fmt::format("{} {} {}: {} {} (DDR4, {}) vs {} {} (DDR5, {}), Mann-Whitney p = {:.3g}", r->benchmark,
                               r->case_name, r->metric, fmt_num(r->base.value), r->unit, p.first->label,
                               fmt_num(r->run.value), r->unit, p.second->label, r->mw.p);
      v.reason = "DDR5 run against DDR4 run." + other_differences(*p.first, *p.second, defs, "memory_dimm");
    } else if (c.id == "GPU-3" || c.id == "GPU-4") {
      std::pair<const LoadedRun*, const LoadedRun*> p{nullptr, nullptr};
      if (!find_pair(gpu_generation, "Turing", "Ampere", p)) {
        v.verdict = Outcome::not_measurable;
        v.reason = "needs one run on a Turing GPU (compute capability 7.5) and one on an Ampere GPU (8.0-8.7), "
                   "inventory gpu0_compute_capability; these runs: " +
                   seen(gpu_generation, "gpu0_compute_capability");
        out.push_back({c, v});
        continue;
      }
      auto rows = compare_pair(*p.first, *p.second, defs, opt);
      const RowComparison* r = pick_row(rows, "gemm_tc", "gflops", "m", {{"dtype", "f16"}});
      if (!r) {
        v.verdict = Outcome::not_measurable;
        v.reason = fmt::format("no gemm_tc f16 gflops rows common to {} and {}", p.first->label, p.second->label);
        out.push_back({c, v});
        continue;
      }
      v.measured.reps = std::min(r->base.reps, r->run.reps);
      const std::string ga = get(p.first->data.inventory, "gpu0_name"), gb = get(p.second->data.inventory, "gpu0_name");
      if (c.id == "GPU-3") {
        v.measured.value = r->ratio;
        v.measured.low = r->ratio_low;
        v.measured.high = r->ratio_high;
      } else {
        // Tensor-core utilisation = measured TFLOP/s / datasheet peak; GPU-4 is its relative gain.
        double peak_a = kNaN, peak_b = kNaN;
        for (const DatasheetRow& d : read_datasheets(datasheets_path)) {
          if (d.property != "peak_tflops_f16") continue;
          double x;
          if (!parse_double(d.value, x)) continue;
          if (!ga.empty() && ga.find(d.product) != std::string::npos) peak_a = x;
          if (!gb.empty() && gb.find(d.product) != std::string::npos) peak_b = x;
        }
        if (std::isnan(peak_a) || std::isnan(peak_b)) {
          v.verdict = Outcome::not_measurable;
          v.reason = fmt::format("no datasheet f16 tensor peak (property peak_tflops_f16 in datasheets.csv) for {} and {}",
                                 ga, gb);
          out.push_back({c, v});
          continue;
        }
        const double k = peak_a / peak_b;
        v.measured.value = 100 * (r->ratio * k - 1);
        v.measured.low = 100 * (r->ratio_low * k - 1);
        v.measured.high = 100 * (r->ratio_high * k - 1);
      }
      v.verdict = judge(c, v.measured.low, v.measured.high);
      v.evidence = fmt::format("{} {}: {} TFLOP/s ({}, Turing, {}) vs {} TFLOP/s ({}, Ampere, {})", r->benchmark,
                               r->case_name, fmt_num(r->base.value), ga, p.first->label, fmt_num(r->run.value), gb,
                               p.second->label);
      v.reason = "Ampere run against Turing run." + other_differences(*p.first, *p.second, defs, "gpu");
    } else {
      continue;
    }
    out.push_back({c, v});
  }
  return out;
}

// ------------------------------------------------------------------ output
std::string md_cell(std::string s) { return md_escape(std::move(s)); }

std::string rows_csv(const std::vector<RowComparison>& rows) {
  std::string s =
      "benchmark,case,params,metric,unit,better,area,base_run,run,base_reps,run_reps,base_median,base_min,base_max,"
      "run_median,run_min,run_max,ratio,ratio_low,ratio_high,change_pct,u,p_value,p_exact,flag,note,changed_fields\n";
  for (const RowComparison& r : rows)
    s += csv_line({r.benchmark, r.case_name, r.params, r.metric, r.unit, r.better > 0 ? "higher" : "lower", r.area,
                   r.base_label, r.run_label, std::to_string(r.base.reps), std::to_string(r.run.reps),
                   format_double(r.base.value), format_double(r.base.low), format_double(r.base.high),
                   format_double(r.run.value), format_double(r.run.low), format_double(r.run.high),
                   format_double(r.ratio), format_double(r.ratio_low), format_double(r.ratio_high),
                   format_double(r.change_pct), format_double(r.mw.u), format_double(r.mw.p),
                   std::isnan(r.mw.p) ? "" : (r.mw.exact ? "yes" : "no"), r.flag, r.note, r.changed_fields}) +
         "\n";
  return s;
}

// Not in the anonymous namespace: tests/fuzz reads --prices files through it.
std::map<std::string, Price> read_prices(const std::string& path) {
  std::map<std::string, Price> out;
  with_csv_errors(path, [&] {
    io::CSVReader<3, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "run", "price", "power_w");
    std::string run, price, power;
    while (in.read_row(run, price, power)) {
      long line = static_cast<long>(in.get_file_line());
      Price p;
      if (!price.empty() && !parse_double(price, p.price))
        throw InputError(path, line, fmt::format("price '{}' is not a number", price));
      if (!power.empty() && !parse_double(power, p.power_w))
        throw InputError(path, line, fmt::format("power_w '{}' is not a number", power));
      if (run.empty()) throw InputError(path, line, "empty run");
      out[run] = p;
    }
  });
  return out;
}

namespace {

Price price_of(const std::map<std::string, Price>& prices, const LoadedRun& r) {
  auto it = prices.find(r.label);
  if (it == prices.end()) it = prices.find(get(r.data.inventory, "hostname"));
  return it == prices.end() ? Price{} : it->second;
}

std::string ratio_text(const RowComparison& r) {
  if (std::isnan(r.ratio)) return "-";
  return fmt::format("{:.3f} [{:.3f} to {:.3f}]", r.ratio, r.ratio_low, r.ratio_high);
}

std::string p_text(const RowComparison& r) {
  if (std::isnan(r.mw.p)) return "-";
  return fmt::format("{:.3g}{}", r.mw.p, r.mw.exact ? "" : " (normal approx.)");
}

std::string flag_text(const RowComparison& r) {
  if (r.flag == "regression") return fmt::format("**REGRESSION {:+.1f}%**", r.change_pct);
  if (r.flag == "improvement") return fmt::format("**improvement {:+.1f}%**", r.change_pct);
  if (r.flag == "no_change" && !std::isnan(r.change_pct)) return fmt::format("no change ({:+.1f}%)", r.change_pct);
  return r.flag;
}

}  // namespace

std::string rows_md(const std::vector<RowComparison>& rows, bool with_changes) {
  std::string md = "| benchmark | case | metric | base | base median [min to max], n | run | run median [min to max], n "
                   "| run/base [interval] | Mann-Whitney p | flag | row confounders and notes |";
  if (with_changes) md += " inventory changes |";
  md += "\n|---|---|---|---|---|---|---|---|---|---|---|";
  if (with_changes) md += "---|";
  md += "\n";
  for (const RowComparison& r : rows) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", r.benchmark, md_cell(r.case_name),
                      r.metric, md_cell(r.base_label), md_cell(format_measured(r.base, r.unit)), md_cell(r.run_label),
                      md_cell(format_measured(r.run, r.unit)), ratio_text(r), p_text(r), flag_text(r), md_cell(r.note));
    if (with_changes) md += " " + md_cell(r.changed_fields) + " |";
    md += "\n";
  }
  return md;
}

std::string html_rows(const std::vector<RowComparison>& rows, bool with_changes) {
  std::string h = "<table><tr><th>benchmark</th><th>case</th><th>metric</th><th>base</th><th>base median [min to max], "
                  "n</th><th>run</th><th>run median [min to max], n</th><th>run/base [interval]</th><th>Mann-Whitney "
                  "p</th><th>flag</th><th>row confounders and notes</th>";
  if (with_changes) h += "<th>inventory changes</th>";
  h += "</tr>\n";
  for (const RowComparison& r : rows) {
    h += fmt::format("<tr class=\"f-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                     "<td>{}</td><td>{}</td><td class=\"flag\">{}</td><td>{}</td>",
                     r.flag, html_escape(r.benchmark), html_escape(r.case_name), html_escape(r.metric),
                     html_escape(r.base_label), html_escape(format_measured(r.base, r.unit)), html_escape(r.run_label),
                     html_escape(format_measured(r.run, r.unit)), ratio_text(r), html_escape(p_text(r)),
                     html_escape(r.flag == "no_change" || r.flag == "regression" || r.flag == "improvement"
                                     ? fmt::format("{} ({:+.1f}%)", r.flag, r.change_pct)
                                     : r.flag),
                     html_escape(r.note));
    if (with_changes) h += "<td>" + html_escape(r.changed_fields) + "</td>";
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

namespace {
// "48 ok, 160 mistrusted (left out)" over the timed repetitions of a run.
std::string row_counts(const LoadedRun& r) {
  size_t ok = 0, mistrusted = 0;
  for (const ResultRow& row : r.data.results) {
    if (row.repetition < 0) continue;
    ok += row.status == Status::ok;
    mistrusted += row.status == Status::mistrusted;
  }
  return mistrusted ? fmt::format("{} ok, {} mistrusted (left out)", ok, mistrusted) : fmt::format("{} ok", ok);
}
}  // namespace

std::string runs_table_md(const std::vector<LoadedRun>& runs) {
  std::string md = "| run | host | CPU | inventory time (UTC) | method version | suite commit | timed rows |\n"
                   "|---|---|---|---|---|---|---|\n";
  for (const LoadedRun& r : runs)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", md_cell(r.label),
                      md_cell(get(r.data.inventory, "hostname", "?")), md_cell(get(r.data.inventory, "cpu_model", "?")),
                      r.time_utc, get(r.data.inventory, "method_version"), get(r.data.inventory, "suite_commit", "?"),
                      row_counts(r));
  return md;
}

std::string runs_table_html(const std::vector<LoadedRun>& runs) {
  std::string h = "<table><tr><th>run</th><th>host</th><th>CPU</th><th>inventory time (UTC)</th><th>method "
                  "version</th><th>suite commit</th><th>timed rows</th></tr>\n";
  for (const LoadedRun& r : runs)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     html_escape(r.label), html_escape(get(r.data.inventory, "hostname", "?")),
                     html_escape(get(r.data.inventory, "cpu_model", "?")), html_escape(r.time_utc),
                     html_escape(get(r.data.inventory, "method_version")),
                     html_escape(get(r.data.inventory, "suite_commit", "?")), html_escape(row_counts(r)));
  return h + "</table>\n";
}

std::string data_file(const std::string& given, const std::string& name) {
  return given.empty() ? data_path(name) : given;
}

// Shared by compare and history: loads the runs, applying --exclude-broken.
std::vector<LoadedRun> load_runs_for(const std::vector<std::string>& dirs, const CompareOptions& opt,
                                     std::vector<std::string>& exclusions, const char* what) {
  std::vector<LoadedRun> runs;
  for (const std::string& d : dirs) {
    try {
      LoadedRun r = load_run(d);
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
  if (runs.size() < 2)
    throw InputError(dirs.empty() ? std::string(what) : dirs.front(), 0,
                     fmt::format("{} needs at least two usable runs, {} left{}", what, runs.size(),
                                 exclusions.empty() ? "" : " after excluding: " + exclusions.front()));
  return runs;
}

void prepare_out_dir(const std::string& dir, const std::string& stem, bool create) {
  if (dir.empty()) return;
  struct stat sb;
  if (::stat(dir.c_str(), &sb) != 0) {
    if (create && ::mkdir(dir.c_str(), 0755) != 0) throw std::runtime_error(fmt::format("{}: cannot create the folder", dir));
  } else if (!S_ISDIR(sb.st_mode)) {
    throw std::runtime_error(fmt::format("{}: not a folder", dir));
  }
  for (const char* ext : {".md", ".csv", ".html"})
    if (file_exists(dir + "/" + stem + ext))
      throw std::runtime_error(fmt::format("{}/{}{} exists: results are never overwritten, choose another --out", dir,
                                           stem, ext));
}

std::string confounders_md(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded) {
  std::string md = "\n## Confounders: what differs between the runs besides what was measured\n\n";
  bool any = false;
  for (const FieldDiff& d : diffs)
    if (d.listed) {
      md += "- " + md_cell(describe_diff(d)) + "\n";
      any = true;
    }
  if (!any) md += "- none of the listed confounders differ (data/confounders.csv)\n";
  std::string others;
  for (const FieldDiff& d : diffs)
    if (!d.listed) others += (others.empty() ? "" : "; ") + describe_diff(d);
  if (!others.empty()) md += "- other inventory fields that differ: " + md_cell(others) + "\n";
  if (!unrecorded.empty()) {
    std::string u;
    for (const std::string& s : unrecorded) u += (u.empty() ? "" : ", ") + s;
    md += "- not recorded by any run's inventory, so not checked: " + u + "\n";
  }
  return md;
}

std::string confounders_html(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded) {
  std::string h = "<section id=\"confounders\"><h2>Confounders: what differs between the runs besides what was "
                  "measured</h2><ul>\n";
  bool any = false;
  for (const FieldDiff& d : diffs)
    if (d.listed) {
      h += "<li class=\"confounder\">" + html_escape(describe_diff(d)) + "</li>\n";
      any = true;
    }
  if (!any) h += "<li>none of the listed confounders differ</li>\n";
  std::string others;
  for (const FieldDiff& d : diffs)
    if (!d.listed) others += (others.empty() ? "" : "; ") + describe_diff(d);
  if (!others.empty()) h += "<li>other inventory fields that differ: " + html_escape(others) + "</li>\n";
  if (!unrecorded.empty()) {
    std::string u;
    for (const std::string& s : unrecorded) u += (u.empty() ? "" : ", ") + s;
    h += "<li>not recorded by any run's inventory, so not checked: " + html_escape(u) + "</li>\n";
  }
  return h + "</ul></section>\n";
}

std::string exclusions_md(const std::vector<std::string>& ex) {
  if (ex.empty()) return "";
  std::string md = "\n## Excluded runs\n\n";
  for (const std::string& e : ex) md += "- " + md_cell(e) + "\n";
  return md;
}

void print_flag_lines(const std::vector<RowComparison>& rows, const CompareOptions& opt, int& exit_code) {
  for (const RowComparison& r : rows) {
    if (r.flag != "regression" && r.flag != "improvement") continue;
    const bool fail = r.flag == "regression" && !std::isnan(opt.fail_pct) && -r.change_pct >= opt.fail_pct;
    std::printf("%s %s %s %s: %+.1f%% (%s -> %s, median %s -> %s %s, p=%.3g)%s%s%s%s\n",
                r.flag == "regression" ? "REGRESSION" : "IMPROVEMENT", r.benchmark.c_str(), r.case_name.c_str(),
                r.metric.c_str(), r.change_pct, r.base_label.c_str(), r.run_label.c_str(), fmt_num(r.base.value).c_str(),
                fmt_num(r.run.value).c_str(), r.unit.c_str(), r.mw.p, r.note.empty() ? "" : "; row: ",
                r.note.c_str(), r.changed_fields.empty() ? "" : "; changed: ", r.changed_fields.c_str());
    if (fail) exit_code = 1;
  }
}

std::vector<VerdictAcrossRuns> verdicts_across_runs(const std::vector<Claim>& claims, const std::vector<const RunData*>& runs) {
  std::vector<VerdictAcrossRuns> out;
  for (const Claim& c : claims) {
    VerdictAcrossRuns v;
    v.claim_id = c.id;
    std::set<Outcome> seen;
    for (const RunData* r : runs) {
      v.verdicts.push_back(evaluate_claim(c, *r).verdict);
      seen.insert(v.verdicts.back());
    }
    v.change = seen.size() == 1 ? "same" : seen.count(Outcome::confirmed) && seen.count(Outcome::refuted) ? "FLIP" : "changed";
    out.push_back(std::move(v));
  }
  return out;
}

namespace {
std::string verdicts_md(const std::vector<VerdictAcrossRuns>& vs, const std::vector<LoadedRun>& runs) {
  std::string md = "\n## Verdicts of each run\n\nEach run judged by itself, as `rigcheck report` judges it. `FLIP`: "
                   "confirmed in one run and refuted in another; `changed`: any other difference (e.g. confirmed -> "
                   "inconclusive).\n\n| Claim |";
  for (const LoadedRun& r : runs) md += " " + md_escape(r.label) + " |";
  md += " across runs |\n|---|";
  for (size_t i = 0; i < runs.size(); ++i) md += "---|";
  md += "---|\n";
  for (const VerdictAcrossRuns& v : vs) {
    md += "| " + v.claim_id + " |";
    for (Outcome x : v.verdicts) md += fmt::format(" {} |", to_string(x));
    md += v.change == "same" ? " same |\n" : " **" + v.change + "** |\n";
  }
  return md;
}
}  // namespace

int run_compare(const std::vector<std::string>& dirs, const CompareOptions& opt) {
  std::vector<std::string> exclusions;
  auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  auto claims = read_claims(data_file(opt.claims_path, "claims.csv"));
  auto specs = read_plot_specs(data_file(opt.plots_path, "plots.csv"));
  std::map<std::string, Price> prices;
  if (!opt.prices_path.empty()) prices = read_prices(opt.prices_path);
  prepare_out_dir(opt.out_dir, "compare");
  std::vector<LoadedRun> runs = load_runs_for(dirs, opt, exclusions, "rigcheck compare");

  std::vector<const LoadedRun*> ptrs;
  for (const LoadedRun& r : runs) ptrs.push_back(&r);
  std::vector<std::string> unrecorded;
  auto diffs = differing_fields(ptrs, defs, &unrecorded);
  std::vector<RowComparison> rows;
  for (size_t i = 1; i < runs.size(); ++i) {
    auto rs = compare_pair(runs[0], runs[i], defs, opt);
    rows.insert(rows.end(), rs.begin(), rs.end());
  }
  auto areas = summarize_areas(rows);
  auto xclaims = cross_run_claims(ptrs, claims, data_file(opt.datasheets_path, "datasheets.csv"));
  std::vector<const RunData*> datas;
  for (const LoadedRun& r : runs) datas.push_back(&r.data);
  const auto per_run = verdicts_across_runs(claims, datas);

  // ---- Markdown
  std::string md = "# rigcheck compare\n\nBaseline: **" + md_cell(runs[0].label) + "**; every other run against it.\n\n";
  md += runs_table_md(runs);
  md += exclusions_md(exclusions);
  md += confounders_md(diffs, unrecorded);
  md += fmt::format(
      "\nA row is flagged (regression or improvement) when the two-sided Mann-Whitney U test gives p < {} and the "
      "medians differ by at least {}%; rows without enough repetitions say so. Ratios are run/base medians with "
      "[min/max, max/min].\n",
      opt.alpha, opt.threshold_pct);
  md += "\n## Summary per area: geometric mean of the run's speed relative to the baseline (> 1: faster)\n\n";
  md += "| run | area | rows | geometric mean [interval] |";
  const bool with_prices = !prices.empty();
  if (with_prices) md += " price ratio | perf per price | power ratio | perf per watt |";
  md += "\n|---|---|---|---|";
  if (with_prices) md += "---|---|---|---|";
  md += "\n";
  for (const AreaSummary& a : areas) {
    md += fmt::format("| {} | {} | {} | {:.3f} [{:.3f} to {:.3f}] |", md_cell(a.run_label), a.area, a.rows, a.geomean,
                      a.low, a.high);
    if (with_prices) {
      const LoadedRun* rr = nullptr;
      for (const LoadedRun& r : runs)
        if (r.label == a.run_label) rr = &r;
      Price pb = price_of(prices, runs[0]), pr = rr ? price_of(prices, *rr) : Price{};
      double kp = pr.price / pb.price, kw = pr.power_w / pb.power_w;
      md += fmt::format(" {} | {} | {} | {} |", std::isnan(kp) ? "no price" : fmt::format("{:.3f}", kp),
                        std::isnan(kp) ? "-" : fmt::format("{:.3f}", a.geomean / kp),
                        std::isnan(kw) ? "no power" : fmt::format("{:.3f}", kw),
                        std::isnan(kw) ? "-" : fmt::format("{:.3f}", a.geomean / kw));
    }
    md += "\n";
  }
  if (with_prices)
    md += "\nPrices and power from " + md_cell(opt.prices_path) +
          " (typed by the user, not measured); perf per price = geometric mean / price ratio.\n";
  md += "\n## Cross-run claims\n\n| Claim | Guide says | Measured | Verdict | Evidence and reason |\n|---|---|---|---|---|\n";
  for (auto& [c, v] : xclaims)
    md += fmt::format("| {} | {} | {} | **{}** | {} |\n", c.id, md_cell(c.guide_figure),
                      md_cell(format_measured(v.measured, v.unit)), to_string(v.verdict),
                      md_cell(v.evidence + (v.evidence.empty() ? "" : ". ") + v.reason));
  md += verdicts_md(per_run, runs);
  std::vector<RowComparison> flagged;
  for (const RowComparison& r : rows)
    if (r.flag == "regression" || r.flag == "improvement") flagged.push_back(r);
  md += "\n## Flagged rows\n\n";
  md += flagged.empty() ? "No row changed beyond the noise and the threshold.\n" : rows_md(flagged, false);
  md += "\n## All rows\n\n" + rows_md(rows, false);

  // ---- HTML
  std::string body = "<h1>rigcheck compare</h1>\n<p>Baseline: <b>" + html_escape(runs[0].label) + "</b></p>\n" +
                     runs_table_html(runs);
  if (!exclusions.empty()) {
    body += "<section><h2>Excluded runs</h2><ul>";
    for (const std::string& e : exclusions) body += "<li>" + html_escape(e) + "</li>";
    body += "</ul></section>\n";
  }
  body += confounders_html(diffs, unrecorded);
  body += "<section><h2>Summary per area</h2><table><tr><th>run</th><th>area</th><th>rows</th><th>geometric mean "
          "[interval]</th></tr>\n";
  for (const AreaSummary& a : areas)
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f} [{:.3f} to {:.3f}]</td></tr>\n",
                        html_escape(a.run_label), html_escape(a.area), a.rows, a.geomean, a.low, a.high);
  body += "</table></section>\n<section><h2>Cross-run claims</h2><table><tr><th>Claim</th><th>Guide "
          "says</th><th>Measured</th><th>Verdict</th><th>Evidence and reason</th></tr>\n";
  for (auto& [c, v] : xclaims)
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n", c.id,
                        html_escape(c.guide_figure), html_escape(format_measured(v.measured, v.unit)),
                        verdict_class(v.verdict), to_string(v.verdict), html_escape(v.evidence + " " + v.reason));
  body += "</table></section>\n<section><h2>Verdicts of each run</h2><table><tr><th>Claim</th>";
  for (const LoadedRun& r : runs) body += "<th>" + html_escape(r.label) + "</th>";
  body += "<th>across runs</th></tr>\n";
  for (const VerdictAcrossRuns& v : per_run) {
    body += "<tr><td>" + v.claim_id + "</td>";
    for (Outcome x : v.verdicts) body += fmt::format("<td class=\"{}\">{}</td>", verdict_class(x), to_string(x));
    body += "<td>" + (v.change == "same" ? v.change : "<b>" + v.change + "</b>") + "</td></tr>\n";
  }
  body += "</table></section>\n";
  std::vector<PlotRun> pruns;
  for (const LoadedRun& r : runs) pruns.push_back({r.label, &r.data});
  std::string note;
  auto plots = render_plots(specs, pruns, data_file(opt.datasheets_path, "datasheets.csv"), &note);
  body += plots_section(plots, note);
  body += "<section><h2>Flagged rows</h2>" +
          (flagged.empty() ? std::string("<p>No row changed beyond the noise and the threshold.</p>") : html_rows(flagged, false)) +
          "</section>\n<section><h2>All rows</h2>" + html_rows(rows, false) + "</section>\n";

  if (!opt.out_dir.empty()) {
    prepare_out_dir(opt.out_dir, "compare", true);
    write_file_atomic(opt.out_dir + "/compare.md", md);
    write_file_atomic(opt.out_dir + "/compare.csv", rows_csv(rows));
    write_file_atomic(opt.out_dir + "/compare.html", html_page("rigcheck compare", body));
    std::printf("%s", confounders_md(diffs, unrecorded).c_str());
    for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
    std::printf("\nCompared %zu runs, %zu rows, %zu flagged.\nWritten: %s/compare.md, compare.csv, compare.html\n",
                runs.size(), rows.size(), flagged.size(), opt.out_dir.c_str());
  } else {
    std::printf("%s\n", md.c_str());
  }
  int code = 0;
  print_flag_lines(rows, opt, code);
  // One line per claim whose verdict differs between the runs, for CI logs and
  // scripts/verdict-stability.sh.
  for (const VerdictAcrossRuns& v : per_run) {
    if (v.change == "same") continue;
    std::string line = fmt::format("VERDICT {} {}:", v.change == "FLIP" ? "FLIP" : "CHANGED", v.claim_id);
    for (size_t i = 0; i < v.verdicts.size(); ++i) line += fmt::format(" {}={}", runs[i].label, to_string(v.verdicts[i]));
    std::printf("%s\n", line.c_str());
    if (opt.fail_on_verdict_flip) code = 1;
  }
  return code;
}

}  // namespace rigcheck
