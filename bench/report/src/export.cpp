// `rigcheck export`: reading and judging a run for export, writing the file, the escapings and the
// cases (export.hpp). The formats register themselves from their own files (export_*.cpp).
#include "rigcheck/report/export.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <cctype>
#include <tuple>

#include <fmt/format.h>

#include "export_internal.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {

namespace {
std::vector<Exporter>& table() {
  static std::vector<Exporter> t;
  return t;
}
}  // namespace

bool register_exporter(const Exporter& e) {
  if (find_exporter(e.name)) throw std::logic_error(fmt::format("two export formats named {}", e.name));
  auto& t = table();
  // Kept by name: the order the files start in is the linker's, the help and the docs need one.
  t.insert(std::upper_bound(t.begin(), t.end(), e,
                            [](const Exporter& a, const Exporter& b) { return std::string(a.name) < b.name; }),
           e);
  return true;
}

const std::vector<Exporter>& exporters() { return table(); }

const Exporter* find_exporter(const std::string& name) {
  for (const Exporter& e : exporters())
    if (name == e.name) return &e;
  return nullptr;
}

ExportInput read_export_input(const std::string& run_dir, const std::string& claims_path) {
  ExportInput in;
  in.claims = read_claims(claims_path.empty() ? data_path("claims.csv") : claims_path);
  in.run = read_run(run_dir);  // verifies the folder first: a broken one throws InputError
  for (const Claim& c : in.claims) in.verdicts.push_back(evaluate_claim(c, in.run));
  in.run_id = run_dir;
  if (auto p = in.run_id.find_last_not_of('/'); p != std::string::npos) in.run_id.erase(p + 1);
  if (auto p = in.run_id.rfind('/'); p != std::string::npos) in.run_id = in.run_id.substr(p + 1);
  return in;
}

std::string replace_chars(const std::string& s, std::initializer_list<std::pair<char, const char*>> with) {
  std::string out;
  for (char c : s) {
    const auto* hit = std::find_if(with.begin(), with.end(), [c](const auto& w) { return w.first == c; });
    if (hit != with.end())
      out += hit->second;
    else
      out += c;
  }
  return out;
}

std::string openmetrics_label_value(const std::string& s) {
  return replace_chars(s, {{'\\', "\\\\"}, {'"', "\\\""}, {'\n', "\\n"}});
}

std::string openmetrics_name(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 128 ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

namespace {
// The length of the valid UTF-8 sequence at s[i], 0 where none starts there.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if ((n == 2 && c < 0xC2) || (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) ||
      (n == 4 && (c > 0xF4 || (c == 0xF0 && b(i + 1) < 0x90))))
    return 0;                                             // overlong, or beyond U+10FFFF
  if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;  // a surrogate
  return n;
}
}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (n == 0 || (n == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      out += "\uFFFD";
      i += n == 0 ? 1 : n;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.append(s, i, n);
    }
    i += n;
  }
  return out;
}

std::string headline_metric(const std::vector<const ResultRow*>& rows) {
  auto usable = [](const ResultRow* r) {
    return r->repetition >= 0 && r->status == Status::ok && std::isfinite(r->value);
  };
  for (const char* m : {names::kGflops, names::kGbps})
    for (const ResultRow* r : rows)
      if (usable(r) && r->metric == m) return m;
  for (const ResultRow* r : rows)  // a rate in .../s first, as report.md's tables choose, then IOPS
    if (usable(r) && export_detail::is_rate_unit(r->unit) && r->unit != "IOPS") return r->metric;
  for (const ResultRow* r : rows)
    if (usable(r) && r->unit == "IOPS") return r->metric;
  for (const ResultRow* r : rows)
    if (usable(r) && export_detail::seconds_per(r->unit) > 0) return r->metric;
  return "";
}

namespace export_detail {

std::vector<ExportCase> export_cases(const RunData& run) {
  std::vector<ExportCase> cases;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;  // (source, benchmark, case)
  for (const ResultRow& r : run.results) {
    auto [it, added] = index.try_emplace({r.source, r.benchmark, r.case_name}, cases.size());
    if (added) cases.push_back({r.source, r.benchmark, r.case_name, r.benchmark + "/" + r.case_name, {}});
    cases[it->second].rows.push_back(&r);
  }
  std::map<std::string, int> files_of;  // benchmark/case -> in how many result files
  for (const ExportCase& c : cases) ++files_of[c.name];
  for (ExportCase& c : cases)
    if (files_of[c.name] > 1) c.name += "/file:" + c.source;
  return cases;
}

double seconds_per(const std::string& unit) {
  if (unit == "s") return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  return 0;
}

bool is_rate_unit(const std::string& unit) {
  return unit == "IOPS" || (unit.size() > 2 && unit.compare(unit.size() - 2, 2, "/s") == 0);
}

std::string fact(const RunData& run, const std::string& key) {
  auto it = run.inventory.find(key);
  return it == run.inventory.end() ? "" : it->second;
}

}  // namespace export_detail
}  // namespace rigcheck
