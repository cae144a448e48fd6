// One finding per case: the runs of two sides (or the rounds of an interleaved A/B) compared on
// the case's headline metric by the rules of statistics.cpp, its other metrics beside it, its
// observed params (what ran) compared as attributes. See compare.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck {

namespace {
const CaseRun* case_in(const LoadedRun* r, const std::string& key) {
  auto it = r->cases.find(key);
  return it == r->cases.end() ? nullptr : &it->second;
}

// The repetitions of `metric` in each run of the side that has the case with positive values.
Runs reps_of(const std::vector<const CaseRun*>& cs, const std::string& metric, bool* had_non_positive) {
  Runs out;
  for (const CaseRun* c : cs) {
    if (!c) continue;
    auto it = c->metrics.find(metric);
    if (it == c->metrics.end()) continue;
    bool ok = true;
    for (double x : it->second.reps) ok = ok && x > 0 && std::isfinite(x);
    if (ok)
      out.push_back(it->second.reps);
    else if (had_non_positive)
      *had_non_positive = true;
  }
  return out;
}

double geomean_of_medians(const Runs& r) {
  if (r.empty()) return kNaN;
  double s = 0;
  for (const auto& reps : r) s += run_value(reps);
  return std::exp(s / static_cast<double>(r.size()));
}

Measured side_measured(const Runs& r) {
  Measured m;
  if (r.empty()) return m;
  std::vector<double> v = run_values(r);
  m.value = geomean_of_medians(r);
  m.low = std::exp(*std::min_element(v.begin(), v.end()));
  m.high = std::exp(*std::max_element(v.begin(), v.end()));
  m.reps = static_cast<int>(r.size());
  return m;
}

// "impl: brg:avx512_core -> gemm:jit; isa_cap: native -> avx2" over the runs of each side.
std::string attribute_changes(const std::vector<const CaseRun*>& a, const std::vector<const CaseRun*>& b) {
  std::set<std::string> keys;
  for (const auto* side : {&a, &b})
    for (const CaseRun* c : *side)
      if (c)
        for (auto& [k, v] : c->observed) keys.insert(k);
  std::string out;
  for (const std::string& k : keys) {
    auto values = [&](const std::vector<const CaseRun*>& side) {
      std::set<std::string> vs;
      for (const CaseRun* c : side)
        if (c) {
          auto it = c->observed.find(k);
          vs.insert(it == c->observed.end() ? "(none)" : it->second);
        }
      std::string s;
      for (const std::string& v : vs) s += (s.empty() ? "" : " | ") + v;
      return s;
    };
    const std::string va = values(a), vb = values(b);
    if (va != vb) out += fmt::format("{}{}: {} -> {}", out.empty() ? "" : "; ", k, va, vb);
  }
  return out;
}

// The attribute changes ("k: a -> b" joined by "; ") whose param is a description of the method.
std::string method_changes(const std::string& attrs, const std::string& benchmark, const CaseRules& rules) {
  std::string out;
  for (size_t at = 0; at < attrs.size();) {
    size_t end = attrs.find("; ", at);
    if (end == std::string::npos) end = attrs.size();
    const std::string one = attrs.substr(at, end - at);
    if (rules.description(benchmark, one.substr(0, one.find(": ")))) out += (out.empty() ? "" : "; ") + one;
    at = end + 2;
  }
  return out;
}

bool is_implementation_param(const std::string& attrs) {
  for (const char* k : {"impl: ", "isa: ", "onednn_impls: ", "aten_cpu_capability: ", "onednn_isa: "})
    if (attrs.rfind(k, 0) == 0 || attrs.find(std::string("; ") + k) != std::string::npos) return true;
  return false;
}

// Where an unmatched case's counterpart may be: the same file, benchmark and case name with other
// requested params on the other side.
std::string near_miss(const CaseRun& c, const Side& other) {
  for (const LoadedRun* r : other.runs)
    for (auto& [k, o] : r->cases)
      if (o.source == c.source && o.benchmark == c.benchmark && o.case_name == c.case_name &&
          o.requested != c.requested)
        return fmt::format(
            "the other side has this case with other requested params ({} there, {} here): if a param "
            "differing here is a fact found at run time, declare it observed in data/params.csv",
            o.requested, c.requested);
  return "";
}

// Why a case with ok rows on one side has none on `other`: its rows there were skipped, failed or
// mistrusted ("skipped in RUN: the note"), or "" when it simply is not there (another experiment).
// `disturbed_only` becomes true when every run that says why says "mistrusted" (load_run writes each
// note as "STATUS: note"): the case's measurements were disturbed there, it was not skipped or failed.
std::string why_not_working(const CaseRun& c, const Side& other, const std::string& key, const std::string& disturbed,
                            bool& disturbed_only) {
  std::string why;
  disturbed_only = true;
  for (const LoadedRun* r : other.runs) {
    const std::string* note = nullptr;
    if (auto it = r->not_working.find(key); it != r->not_working.end())
      note = &it->second;
    else if (auto by = r->not_working_by_name.find(c.source + '\x1f' + c.benchmark + '\x1f' + c.case_name);
             by != r->not_working_by_name.end())
      note = &by->second;
    if (!note) continue;
    why += fmt::format("{}{} in {}", why.empty() ? "" : "; ", *note, r->label);
    disturbed_only = disturbed_only && note->rfind("mistrusted", 0) == 0;
  }
  if (why.empty() && !disturbed.empty()) why = "mistrusted in " + disturbed + ": most repetitions there were disturbed";
  return why;
}
}  // namespace

namespace {
// One case of the comparison before it is judged: its finding so far and the runs of each side.
struct Pending {
  CaseFinding f;
  std::vector<const CaseRun*> ca, cb;
  Runs ra, rb;
  Noise data;  // the spread within the sides (paired: of the per-round differences)
};

// "x86_64 | aarch64" when the two sides' runs are of different architectures, else "".
std::string side_archs(const Side& a, const Side& b) {
  std::set<std::string> sa, sb;
  for (const LoadedRun* r : a.runs) sa.insert(run_arch(*r));
  for (const LoadedRun* r : b.runs) sb.insert(run_arch(*r));
  if (sa == sb) return "";
  auto join = [](const std::set<std::string>& s) {
    std::string o;
    for (const std::string& x : s) o += (o.empty() ? "" : ", ") + x;
    return o;
  };
  return "A " + join(sa) + ", B " + join(sb);
}

// The case's metrics other than its headline, each as the ratio of the sides' geometric means.
std::vector<OtherMetric> other_metrics(const std::vector<const CaseRun*>& ca, const std::vector<const CaseRun*>& cb,
                                       const std::map<std::string, int>& have, const std::string& headline) {
  std::vector<OtherMetric> out;
  for (auto& [m, better] : have) {
    if (m == headline) continue;
    Runs xa = reps_of(ca, m, nullptr), xb = reps_of(cb, m, nullptr);
    OtherMetric o;
    o.metric = m;
    o.better = better;
    for (const CaseRun* c : ca)
      if (c && c->metrics.count(m)) o.unit = c->metrics.at(m).unit;
    if (!xa.empty() && !xb.empty()) {
      o.ratio = geomean_of_medians(xb) / geomean_of_medians(xa);
      o.change_pct = 100 * ((better > 0 ? o.ratio : 1 / o.ratio) - 1);
    }
    out.push_back(o);
  }
  return out;
}

// What pair_across_archs said of a case: why it is one-sided (and whether side a has it), or each
// run's widest kernel ISA for a STREAM case paired across architectures.
struct ArchNotes {
  std::string one_sided, widest;
  bool one_sided_in_a = false;
};
ArchNotes arch_notes(const std::string& key, const Side& a, const Side& b) {
  ArchNotes n;
  for (const Side* s : {&a, &b})
    for (const LoadedRun* r : s->runs) {
      if (auto it = r->one_sided.find(key); it != r->one_sided.end() && n.one_sided.empty()) {
        n.one_sided = it->second;
        n.one_sided_in_a = s == &a;
      }
      if (auto it = r->widest_isa.find(key); it != r->widest_isa.end())
        n.widest +=
            fmt::format("{}{} in {}", n.widest.empty() ? "each run's widest kernel: " : ", ", it->second, r->label);
    }
  return n;
}

// A one-sided case (pair_across_archs) that worked on neither side: what its key and runs say.
Pending one_sided_only(const std::string& key, const Side& a, const Side& b, const std::string& why, bool in_a) {
  Pending p;
  CaseFinding& f = p.f;
  f.key = key;
  const CaseKeyParts k = split_case_key(key);
  f.source = k.source;
  f.benchmark = k.benchmark;
  f.case_name = k.case_name;
  f.params = k.requested;
  f.base_label = a.label;
  f.run_label = b.label;
  f.flag = in_a ? "only_in_base" : "only_in_run";
  f.note = why;
  for (const LoadedRun* r : (in_a ? a : b).runs) {
    if (f.area.empty()) f.area = r->area_of.count(f.benchmark) ? r->area_of.at(f.benchmark) : "other";
    if (auto it = r->not_working.find(key); it != r->not_working.end())
      f.note += fmt::format("; {} in {}", it->second, r->label);
  }
  return p;
}

Pending collect(const std::string& key, const Side& a, const Side& b, const CaseRules& rules, bool paired) {
  Pending p;
  for (const LoadedRun* r : a.runs) p.ca.push_back(case_in(r, key));
  for (const LoadedRun* r : b.runs) p.cb.push_back(case_in(r, key));
  const CaseRun* any = nullptr;
  std::map<std::string, int> have;
  for (const auto* side : {&p.ca, &p.cb})
    for (const CaseRun* c : *side)
      if (c) {
        if (!any) any = c;
        for (auto& [m, s] : c->metrics) have[m] = s.better;
      }
  const ArchNotes arch = arch_notes(key, a, b);
  const std::string &one_sided = arch.one_sided, &widest = arch.widest;
  if (!any) return one_sided_only(key, a, b, one_sided, arch.one_sided_in_a);
  CaseFinding& f = p.f;
  f.key = key;
  f.source = any->source;
  f.benchmark = any->benchmark;
  f.case_name = any->case_name;
  f.params = any->requested;
  f.area = any->area;
  f.base_label = a.label;
  f.run_label = b.label;
  f.metric = rules.headline(f.benchmark, have);
  f.better = have[f.metric];
  for (const auto* side : {&p.ca, &p.cb})
    for (const CaseRun* c : *side)
      if (c && f.unit.empty() && c->metrics.count(f.metric)) f.unit = c->metrics.at(f.metric).unit;
  bool non_positive = false;
  if (paired) {  // complete rounds only
    for (size_t r = 0; r < std::min(p.ca.size(), p.cb.size()); ++r) {
      Runs x = reps_of({p.ca[r]}, f.metric, &non_positive), y = reps_of({p.cb[r]}, f.metric, &non_positive);
      if (x.size() == 1 && y.size() == 1) {
        p.ra.push_back(x[0]);
        p.rb.push_back(y[0]);
      }
    }
  } else {
    p.ra = reps_of(p.ca, f.metric, &non_positive);
    p.rb = reps_of(p.cb, f.metric, &non_positive);
  }
  f.base = side_measured(p.ra);
  f.run = side_measured(p.rb);
  std::string disturbed;
  for (size_t i = 0; i < p.ca.size(); ++i)
    if (p.ca[i] && p.ca[i]->disturbed.count(f.metric)) disturbed += (disturbed.empty() ? "" : ", ") + a.runs[i]->label;
  for (size_t i = 0; i < p.cb.size(); ++i)
    if (p.cb[i] && p.cb[i]->disturbed.count(f.metric)) disturbed += (disturbed.empty() ? "" : ", ") + b.runs[i]->label;
  const bool both = std::any_of(p.ca.begin(), p.ca.end(), [](const CaseRun* c) { return c; }) &&
                    std::any_of(p.cb.begin(), p.cb.end(), [](const CaseRun* c) { return c; });
  if (both) f.attributes = attribute_changes(p.ca, p.cb);
  f.implementation_changed = is_implementation_param(f.attributes);
  f.method_change = method_changes(f.attributes, f.benchmark, rules);
  if (p.ra.empty() || p.rb.empty()) {
    if (non_positive) {
      f.flag = "cannot_judge";
      f.note = fmt::format("a run median of {} is not a positive number: no ratio", f.metric);
    } else if (p.ra.empty() && p.rb.empty()) {  // e.g. mistrusted in every run of both sides
      f.flag = "cannot_judge";
      f.note = "no ok rows on either side";
    } else if (const std::string why = why_not_working(*any, p.ra.empty() ? a : b, key, disturbed, f.disturbed_only);
               !why.empty()) {
      f.flag = p.ra.empty() ? "started_working" : "stopped_working";
      f.note = fmt::format("ok in {}; {}", p.ra.empty() ? b.label : a.label, why);
      if (!widest.empty()) f.note += "; " + widest;
      return p;
    } else {
      f.flag = p.ra.empty() ? "only_in_run" : "only_in_base";
      f.note = (p.ra.empty() ? "no ok rows in " + a.label : "no ok rows in " + b.label);
      const std::string miss = near_miss(*any, p.ra.empty() ? a : b);
      if (!miss.empty()) f.note += "; " + miss;
      if (const std::string archs = side_archs(a, b); one_sided.empty() && !archs.empty())
        f.note += "; the sides are of different architectures (" + archs + "): this experiment ran on one only";
    }
    if (!disturbed.empty()) f.note += "; left out of " + disturbed + ": most repetitions there were mistrusted";
    if (!one_sided.empty() && f.note.find(one_sided) == std::string::npos) f.note = one_sided + "; " + f.note;
    if (!widest.empty()) f.note += "; " + widest;
    return p;
  }
  if (!disturbed.empty()) f.note = "left out of " + disturbed + ": most repetitions there were mistrusted";
  if (!widest.empty()) f.note += (f.note.empty() ? "" : "; ") + widest;
  if (paired) {
    p.data = noise_of(paired_diffs(p.ra, p.rb));
  } else {
    p.data = pooled_noise({run_values(p.ra), run_values(p.rb)});
  }
  f.others = other_metrics(p.ca, p.cb, have, f.metric);
  return p;
}

}  // namespace

std::vector<CaseFinding> compare_sides(const Side& a, const Side& b, const NoiseProfile* profile,
                                       const CaseRules& rules, const StatOptions& opt, bool paired) {
  std::set<std::string> keys;
  for (const Side* s : {&a, &b})
    for (const LoadedRun* r : s->runs) {
      for (auto& [k, c] : r->cases) keys.insert(k);
      for (auto& [k, why] : r->one_sided) keys.insert(k);  // listed even where it did not work
    }
  std::vector<Pending> pending;
  pending.reserve(keys.size());
  for (const std::string& key : keys) pending.push_back(collect(key, a, b, rules, paired));
  // The machine's typical noise, every case's moderated toward it: the profile's, or the median
  // over the cases of the spread within the sides of these runs.
  std::vector<Noise> spreads;
  for (const Pending& p : pending) spreads.push_back(p.data);
  const Noise data_prior = typical_noise(spreads);
  // Its weight: min(d0, prior_runs), d0 as limma estimates it from how much the cases' noises differ
  // (prior_df): a machine whose cases differ tenfold does not lend a quiet case's noise to a noisy one.
  std::vector<Noise> profiled;
  if (profile)
    for (auto& [k, n] : profile->noise) profiled.push_back(n);
  StatOptions data_opt = opt, profile_opt = opt;
  data_opt.prior_runs = std::min(opt.prior_runs, prior_df(spreads));
  profile_opt.prior_runs = std::min(opt.prior_runs, prior_df(profiled));
  std::vector<CaseFinding> out;
  out.reserve(pending.size());
  for (Pending& p : pending) {
    CaseFinding& f = p.f;
    if (p.ra.empty() || p.rb.empty()) {
      out.push_back(std::move(f));
      continue;
    }
    const uint64_t seed = seed_for(f.key + '\x1f' + f.metric, opt.seed);
    const Noise* noise = profile && !paired ? profile->find(f.key, f.metric) : nullptr;
    const Noise* prior = noise ? &profile->typical : &data_prior;
    f.j = paired ? judge_paired(p.ra, p.rb, f.better, opt)
                 : judge_sides(p.ra, p.rb, f.better, noise, noise ? profile_opt : data_opt, seed, prior);
    f.flag = to_string(f.j.flag);
    f.note = f.j.why + (f.j.why.empty() || f.note.empty() ? "" : "; ") + f.note;
    if (profile && !noise && !paired) f.note += std::string(f.note.empty() ? "" : "; ") + "not in the noise profile";
    if (!paired && (p.ra.size() < a.runs.size() || p.rb.size() < b.runs.size()))
      f.note += fmt::format("{}in {} of {} and {} of {} runs", f.note.empty() ? "" : "; ", p.ra.size(), a.runs.size(),
                            p.rb.size(), b.runs.size());
    out.push_back(std::move(f));
  }
  label_findings(out);
  return out;
}

void label_findings(std::vector<CaseFinding>& fs) {
  std::map<std::string, std::set<std::string>> sources, params;  // "benchmark case" -> files, requested params
  for (const CaseFinding& f : fs) {
    const std::string base = f.benchmark + " " + f.case_name;
    sources[base].insert(f.source);
    params[base + '\x1f' + f.source].insert(f.params);
  }
  for (CaseFinding& f : fs) {
    const std::string base = f.benchmark + " " + f.case_name;
    f.label = base;
    if (sources[base].size() > 1) f.label += " [" + f.source + "]";
    if (params[base + '\x1f' + f.source].size() > 1) f.label += " {" + f.params + "}";
  }
}

FindingCounts count_findings(const std::vector<CaseFinding>& fs, double alpha) {
  FindingCounts c;
  for (const CaseFinding& f : fs) {
    ++c.cases;
    c.regressions += f.flag == "regression";
    c.improvements += f.flag == "improvement";
    c.unstable += f.flag == "unstable";
    c.cannot_judge += f.flag == "cannot_judge";
    c.unmatched += f.flag == "only_in_base" || f.flag == "only_in_run";
    c.stopped += f.flag == "stopped_working";
    c.started += f.flag == "started_working";
    c.judged += f.flag == "regression" || f.flag == "improvement" || f.flag == "no_change" || f.flag == "unstable";
    c.implementation_changes += f.implementation_changed;
    c.method_changes += !f.method_change.empty();
  }
  c.flagged = c.regressions + c.improvements;
  c.expected_by_chance = c.judged * alpha;
  return c;
}

std::vector<AreaSummary> summarize_areas(const std::vector<CaseFinding>& fs) {
  std::map<std::pair<std::string, std::string>, AreaSummary> acc;
  std::map<std::pair<std::string, std::string>, std::array<double, 3>> logs;
  std::map<std::pair<std::string, std::string>, int> with_interval;
  for (const CaseFinding& f : fs) {
    if (!f.base.ok() || !f.run.ok()) continue;
    auto key = std::make_pair(f.run_label, f.area);
    AreaSummary& s = acc[key];
    s.area = f.area;
    s.base_label = f.base_label;
    s.run_label = f.run_label;
    ++s.rows;
    auto& l = logs[key];
    // Speed of the run relative to the base: ratio for rates, 1/ratio for times.
    const double d = f.better < 0 ? -1 : 1;
    l[0] += d * f.j.iv.est;
    if (f.j.iv.method != Method::none) {
      l[1] += d > 0 ? f.j.iv.low : -f.j.iv.high;
      l[2] += d > 0 ? f.j.iv.high : -f.j.iv.low;
      ++with_interval[key];
    }
  }
  std::vector<AreaSummary> out;
  for (auto& [key, s] : acc) {
    auto& l = logs[key];
    s.geomean = std::exp(l[0] / s.rows);
    if (with_interval[key] == s.rows) {
      s.low = std::exp(l[1] / s.rows);
      s.high = std::exp(l[2] / s.rows);
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace rigcheck
