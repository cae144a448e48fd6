// The GPU datasheets (gpu_datasheet.hpp): data/datasheets.csv's GPU rows, their lookup by the name a
// driver reports, and the facts of a run's GPU that several evaluator files read (gpu_facts.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/claims/gpu_datasheet.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "gpu_facts.hpp"

namespace rigcheck {

double GpuDatasheet::num(const std::string& prop) const {
  auto it = props.find(prop);
  double v = kNaN;
  if (it == props.end() || !parse_double(it->second.value, v)) return kNaN;
  return v;
}

std::string GpuDatasheet::cite(const std::string& prop) const {
  auto it = props.find(prop);
  if (it == props.end()) return fmt::format("{}: no {} in the datasheet table", product, prop);
  return fmt::format("{} {} = {} ({})", product, prop, it->second.value, it->second.source);
}

std::vector<GpuDatasheet> gpu_datasheets(const std::vector<DatasheetRow>& rows) {
  std::vector<GpuDatasheet> out;
  std::map<std::string, size_t> index;
  for (const DatasheetRow& r : rows)
    if (r.property == "name_match" && !index.count(r.product)) {
      index[r.product] = out.size();
      out.push_back({r.product, {}});
    }
  for (const DatasheetRow& r : rows) {
    auto it = index.find(r.product);
    if (it != index.end()) out[it->second].props[r.property] = r;
  }
  return out;
}

namespace {
std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}
// Length of the longest pattern of `patterns` matching `name`, 0 if none.
size_t match_length(const std::string& patterns, const std::string& device_name) {
  const std::string name = lower(device_name);
  size_t best = 0, start = 0;
  while (start <= patterns.size()) {
    size_t end = patterns.find('|', start);
    if (end == std::string::npos) end = patterns.size();
    std::string p = lower(patterns.substr(start, end - start));
    start = end + 1;
    if (p.empty()) continue;
    bool anchored = p.back() == '$';
    if (anchored) p.pop_back();
    bool hit = anchored ? name.size() >= p.size() && name.compare(name.size() - p.size(), p.size(), p) == 0
                        : name.find(p) != std::string::npos;
    if (hit) best = std::max(best, p.size());
  }
  return best;
}
}  // namespace

bool gpu_name_matches(const std::string& patterns, const std::string& device_name) {
  return match_length(patterns, device_name) > 0;
}

const GpuDatasheet* find_gpu_datasheet(const std::vector<GpuDatasheet>& sheets, const std::string& device_name) {
  const GpuDatasheet* best = nullptr;
  size_t best_len = 0;
  for (const GpuDatasheet& s : sheets) {
    auto it = s.props.find("name_match");
    if (it == s.props.end()) continue;
    size_t n = match_length(it->second.value, device_name);
    if (n > best_len) {
      best = &s;
      best_len = n;
    }
  }
  return best;
}

const GpuDatasheet* find_gpu_product(const std::vector<GpuDatasheet>& sheets, const std::string& product) {
  for (const GpuDatasheet& s : sheets)
    if (s.product == product) return &s;
  return nullptr;
}

namespace gpu_facts {

const std::vector<GpuDatasheet>& sheets() {
  static const std::vector<GpuDatasheet> s = gpu_datasheets(read_datasheets(data_path("datasheets.csv")));
  return s;
}

std::string fact(const RunData& run, const std::string& k) { return fact_or(run.facts, k, ""); }

std::string gpu_name(const RunData& run) { return fact(run, "gpu0_name"); }

// "this GPU: NVIDIA H200 (datasheet row NVIDIA H200 SXM)" or "... (no datasheet row)".
const GpuDatasheet* this_gpu_sheet(const RunData& run, std::string& what) {
  const std::string name = gpu_name(run);
  const GpuDatasheet* s = name.empty() ? nullptr : find_gpu_datasheet(sheets(), name);
  what = fmt::format("this GPU: {} ({})", name.empty() ? "unknown" : name,
                     s ? "datasheet row " + s->product : "no datasheet row for it in data/datasheets.csv");
  return s;
}

// The largest value of one observed metric (rows with repetition -1) over a benchmark's cases.
Measured observed_max(const RunData& run, const std::string& bench, const std::string& metric, std::string* note) {
  Measured m;
  for (auto& [cs, rows] : run.select(bench, metric))
    for (const ResultRow* r : rows)
      if (std::isnan(m.value) || r->value > m.value) {
        m.value = m.low = m.high = r->value;
        m.reps = 1;
        if (note) *note = r->note;
      }
  return m;
}

}  // namespace gpu_facts

}  // namespace rigcheck
