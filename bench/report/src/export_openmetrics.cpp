// `rigcheck export --format openmetrics`: Prometheus/OpenMetrics text for the node exporter's
// textfile collector (docs/exports.md): the run, each case's headline figure and each claim's
// verdict as gauges, every series with the machine's labels (host, cpu_model).
#include <ctime>

#include <cmath>

#include <fmt/format.h>

#include "export_internal.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {
namespace {
using export_detail::ExportCase;

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string series(const std::string& name, const Labels& labels, double value) {
  std::string s = name + "{";
  for (size_t i = 0; i < labels.size(); ++i)
    s += fmt::format("{}{}=\"{}\"", i ? "," : "", openmetrics_name(labels[i].first),
                     openmetrics_label_value(labels[i].second));
  return s + "} " + format_double(value) + "\n";
}

// HELP text: backslashes and line breaks escaped.
std::string family(const std::string& name, const std::string& help) {
  std::string h;
  for (char c : help) h += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : std::string(1, c);
  return fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, h, name);
}

// Seconds since 1970 of the inventory's UTC time (2026-12-04T01:06:33Z), NaN where it has none.
double unix_time(const std::string& utc) {
  std::tm tm{};
  const char* end = strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return NAN;
  return static_cast<double>(timegm(&tm));
}

std::string cases_text(const RunData& run, const Labels& machine) {
  std::string med, reps;
  for (const ExportCase& c : export_detail::export_cases(run)) {
    const std::string metric = headline_metric(c.rows);
    if (metric.empty()) continue;
    std::vector<const ResultRow*> ok;
    std::string unit;
    for (const ResultRow* r : c.rows)
      if (r->metric == metric && r->repetition >= 0 && r->status == Status::ok && std::isfinite(r->value)) {
        ok.push_back(r);
        unit = r->unit;
      }
    const Measured m = measure(ok);
    if (!m.ok()) continue;
    Labels l = machine;
    l.insert(
        l.end(),
        {{"benchmark", c.benchmark}, {"case", c.case_name}, {"file", c.source}, {"metric", metric}, {"unit", unit}});
    med += series("rigcheck_case_median", l, m.value);
    reps += series("rigcheck_case_repetitions", l, m.reps);
  }
  if (med.empty()) return "";
  return family("rigcheck_case_median",
                "Median over the case's ok repetitions of its headline metric (gflops, else gbps, else its first "
                "rate, else its first time), in the unit of label unit.") +
         med + family("rigcheck_case_repetitions", "The number of ok repetitions the case's median is taken over.") +
         reps;
}

std::string verdicts_text(const ExportInput& in, const Labels& machine) {
  std::string state, measured;
  const Outcome all[] = {Outcome::confirmed,      Outcome::refuted,   Outcome::inconclusive,
                         Outcome::not_measurable, Outcome::predicted, Outcome::no_benchmark};
  for (size_t i = 0; i < in.claims.size() && i < in.verdicts.size(); ++i) {
    const Verdict& v = in.verdicts[i];
    for (Outcome o : all) {
      Labels l = machine;
      l.insert(l.end(), {{"claim", in.claims[i].id}, {"verdict", to_string(o)}});
      state += series("rigcheck_claim_verdict", l, v.verdict == o ? 1 : 0);
    }
    if (v.measured.ok() && std::isfinite(v.measured.value)) {
      Labels l = machine;
      l.insert(l.end(), {{"claim", in.claims[i].id}, {"unit", v.unit}});
      measured += series("rigcheck_claim_measured", l, v.measured.value);
    }
  }
  std::string s = family("rigcheck_claim_verdict",
                         "The guide's claims judged on this run: one series per claim and verdict, 1 for the claim's "
                         "verdict, 0 for the others.") +
                  state;
  if (!measured.empty())
    s += family("rigcheck_claim_measured",
                "The figure a claim was judged on: the median measured, in the unit of label unit.") +
         measured;
  return s;
}
}  // namespace

std::string export_openmetrics(const ExportInput& in) {
  const Labels machine = {{"host", export_detail::fact(in.run, "hostname")},
                          {"cpu_model", export_detail::fact(in.run, "cpu_model")}};
  Labels info = machine;
  info.insert(info.end(), {{"run_id", in.run_id},
                           {"suite_commit", export_detail::fact(in.run, "suite_commit")},
                           {"method_version", export_detail::fact(in.run, "method_version")},
                           {"gpu_count", export_detail::fact(in.run, "gpu_count")}});
  std::string s = family("rigcheck_run_info", "The run exported, named in labels (value 1).") +
                  series("rigcheck_run_info", info, 1);
  const double t = unix_time(export_detail::fact(in.run, "inventory_time_utc"));
  if (std::isfinite(t))
    s += family("rigcheck_run_timestamp_seconds", "When the run's inventory was taken, in seconds since 1970 (UTC).") +
         series("rigcheck_run_timestamp_seconds", machine, t);
  return s + cases_text(in.run, machine) + verdicts_text(in, machine) + "# EOF\n";
}

const bool registered =
    register_exporter({"openmetrics", "OpenMetrics text (the node exporter's textfile collector)", export_openmetrics});

}  // namespace rigcheck
