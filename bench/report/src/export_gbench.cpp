// `rigcheck export --format gbench-json`: Google Benchmark's JSON (docs/exports.md, field by field):
// "context" from the inventory, "benchmarks" one entry per ok repetition of every case, so that
// Google Benchmark's tools (compare.py) read a rigcheck run as they read a benchmark binary's output.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "export_internal.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"

#ifdef RIGCHECK_HAVE_NLOHMANN_JSON
#include <nlohmann/json.hpp>
#endif

namespace rigcheck {

#ifndef RIGCHECK_HAVE_NLOHMANN_JSON
std::string export_gbench_json(const ExportInput&) {
  throw std::runtime_error(
      "rigcheck was built without nlohmann-json (Debian nlohmann-json3-dev): no gbench-json export");
}
#else
namespace {
using export_detail::ExportCase;
using Json = nlohmann::ordered_json;

// A number of the inventory, or nullopt-like NaN.
double number_fact(const RunData& run, const std::string& key) {
  double v;
  return parse_double(export_detail::fact(run, key), v) ? v : NAN;
}

// Google Benchmark's "caches": the levels the inventory knows a size of.
Json caches(const RunData& run) {
  Json out = Json::array();
  const double threads = number_fact(run, "hardware_threads");
  const struct {
    const char *key, *type;
    int level;
  } levels[] = {{"l1d", "Data", 1}, {"l1i", "Instruction", 1}, {"l2", "Unified", 2}, {"l3", "Unified", 3}};
  for (const auto& l : levels) {
    const double size = number_fact(run, std::string("cache_") + l.key + "_bytes");
    if (!(size > 0)) continue;
    Json c = {{"type", l.type}, {"level", l.level}, {"size", static_cast<std::int64_t>(size)}};
    const double inst = number_fact(run, std::string("cache_") + l.key + "_instances");
    if (inst > 0 && threads > 0 && std::fmod(threads, inst) == 0) c["num_sharing"] = static_cast<int>(threads / inst);
    out.push_back(c);
  }
  return out;
}

Json context(const ExportInput& in) {
  const RunData& run = in.run;
  Json c;
  c["date"] = export_detail::fact(run, "inventory_time_utc");
  c["host_name"] = export_detail::fact(run, "hostname");
  c["executable"] = "rigcheck run " + in.run_id;
  if (double n = number_fact(run, "hardware_threads"); n > 0) c["num_cpus"] = static_cast<int>(n);
  // The clock the inventory measured (a dependent add chain), not a nominal one.
  if (double g = number_fact(run, "cpu_clock_measured_ghz"); g > 0)
    c["mhz_per_cpu"] = static_cast<int>(std::lround(g * 1000));
  c["caches"] = caches(run);
  if (double l = number_fact(run, "loadavg_1m"); l >= 0) c["load_avg"] = Json::array({l});
  c["library_build_type"] = export_detail::fact(run, "build_type") == "Debug" ? "debug" : "release";
  c["rigcheck_run_id"] = in.run_id;
  for (const auto& [k, v] : run.inventory)  // every fact of the inventory, as Google Benchmark's custom context
    if (!c.contains(k)) c[k] = v;
  return c;
}

// Where a case's real_time comes from: its time_per_iter; else its headline metric (headline_metric:
// the figure report.md and the OpenMetrics export show): the reciprocal of a rate (seconds per unit
// of work), a time as it is.
struct TimeSource {
  std::string metric;
  bool reciprocal = false;
  std::string label;
};
TimeSource time_source(const ExportCase& c) {
  auto ok_rep = [](const ResultRow* r) {
    return r->repetition >= 0 && r->status == Status::ok && std::isfinite(r->value);
  };
  for (const ResultRow* r : c.rows)
    if (ok_rep(r) && r->metric == names::kTimePerIter && r->unit == "s")
      return {r->metric, false, "real_time: time_per_iter"};
  const std::string head = headline_metric(c.rows);
  for (const ResultRow* r : c.rows) {
    if (!ok_rep(r) || r->metric != head) continue;
    if (export_detail::is_rate_unit(r->unit))
      return {head, true, "real_time: 1 / " + head + " (" + r->unit + "): seconds per unit of work"};
    if (export_detail::seconds_per(r->unit) > 0) return {head, false, "real_time: " + head + " (" + r->unit + ")"};
  }
  return {};
}

// Google Benchmark's own keys of an entry: a metric of the same name is exported as rigcheck_<metric>.
const std::set<std::string> kReserved = {"name",
                                         "family_index",
                                         "per_family_instance_index",
                                         "run_name",
                                         "run_type",
                                         "repetitions",
                                         "repetition_index",
                                         "threads",
                                         "iterations",
                                         "real_time",
                                         "cpu_time",
                                         "time_unit",
                                         "label",
                                         "error_occurred",
                                         "error_message",
                                         "aggregate_name",
                                         "aggregate_unit"};

int threads_of(const ExportCase& c) {
  for (const char* key : {"threads", "ranks"}) {
    double t;
    if (parse_double(param_value(c.rows.front()->params, key), t) && t >= 1) return static_cast<int>(t);
  }
  return 1;
}

// The entries of one case: one per repetition whose time row is ok.
void add_entries(const ExportCase& c, int family, int instance, Json& out) {
  const TimeSource ts = time_source(c);
  if (ts.metric.empty()) return;
  std::map<int, std::vector<const ResultRow*> > reps;  // ok rows by repetition
  for (const ResultRow* r : c.rows)
    if (r->repetition >= 0 && r->status == Status::ok && std::isfinite(r->value)) reps[r->repetition].push_back(r);
  std::vector<Json> entries;
  for (const auto& [rep, rows] : reps) {
    double seconds = NAN;
    Json e = {{"name", c.name},        {"family_index", family},   {"per_family_instance_index", instance},
              {"run_name", c.name},    {"run_type", "iteration"},  {"repetitions", 0},
              {"repetition_index", 0}, {"threads", threads_of(c)}, {"iterations", 1}};
    Json counters = Json::object();
    for (const ResultRow* r : rows) {
      if (r->metric == ts.metric && std::isnan(seconds))
        seconds = ts.reciprocal ? (r->value > 0 ? 1 / r->value : NAN) : r->value * export_detail::seconds_per(r->unit);
      if (r->metric == names::kIterations)
        e["iterations"] = static_cast<std::int64_t>(std::llround(r->value));
      else if (!counters.contains(r->metric))
        counters[r->metric] = r->value;
    }
    if (!(seconds > 0) || !std::isfinite(seconds)) continue;
    // The suite measures wall time; cpu_time is the same figure (cpu_utilization, where measured, is a counter).
    e["real_time"] = seconds * 1e9;
    e["cpu_time"] = seconds * 1e9;
    e["time_unit"] = "ns";
    e["label"] = ts.label;
    for (const auto& [k, v] : counters.items()) e[kReserved.count(k) ? "rigcheck_" + k : k] = v;
    entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i]["repetitions"] = entries.size();
    entries[i]["repetition_index"] = i;
    out.push_back(std::move(entries[i]));
  }
}
}  // namespace

std::string export_gbench_json(const ExportInput& in) {
  Json doc;
  doc["context"] = context(in);
  Json benchmarks = Json::array();
  std::map<std::string, int> family;  // benchmark -> its family_index
  std::map<std::string, int> instances;
  for (const ExportCase& c : export_detail::export_cases(in.run)) {
    const int f = family.try_emplace(c.benchmark, static_cast<int>(family.size())).first->second;
    add_entries(c, f, instances[c.benchmark]++, benchmarks);
  }
  doc["benchmarks"] = std::move(benchmarks);
  // Text that is not UTF-8 (a note copied from a tool's output) is replaced, not refused.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}
#endif

const bool registered =
    register_exporter({"gbench-json", "Google Benchmark JSON (its compare.py)", export_gbench_json});

}  // namespace rigcheck
