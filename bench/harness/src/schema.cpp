#include "rigcheck/harness/schema.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::skipped: return "skipped";
    case Status::mistrusted: return "mistrusted";
    case Status::failed: return "failed";
  }
  return "failed";
}

Status status_from_string(const std::string& s) {
  if (s == "ok") return Status::ok;
  if (s == "skipped") return Status::skipped;
  if (s == "mistrusted") return Status::mistrusted;
  if (s == "failed") return Status::failed;
  throw std::invalid_argument("unknown status '" + s + "' (expected ok, skipped, mistrusted or failed)");
}

std::string format_params(const Params& p) {
  std::string s;
  for (auto& [k, v] : p) {
    if (!s.empty()) s += ';';
    s += k + "=" + v;
  }
  return s;
}

ResultRow result_row(const std::string& benchmark, const std::string& case_name, const std::string& params,
                     const std::string& metric, double value, const std::string& unit, int repetition, Status status,
                     const std::string& note) {
  return ResultRow{kSchemaVersion, "", benchmark, case_name, params, metric, value, unit, repetition, status, note, ""};
}

std::string result_header() {
  std::string h;
  for (const auto& c : kResultColumns) {
    if (!h.empty()) h += ',';
    h += c.name;
  }
  return h;
}

std::string format_result_row(const ResultRow& r) {
  // Every text field on one line (a note quoting a library's multi-line message): the readers
  // take a row as one line.
  return csv_line({std::to_string(r.schema_version), one_line(r.run_id), one_line(r.benchmark), one_line(r.case_name),
                   one_line(r.params), one_line(r.metric), format_double(r.value), one_line(r.unit),
                   std::to_string(r.repetition), to_string(r.status), one_line(r.note)});
}

namespace {
template <size_t... I>
void read_header_from_schema(
    io::CSVReader<kResultColumns.size(), io::trim_chars<>, io::double_quote_escape<',', '"'>>& in,
    std::index_sequence<I...>) {
  in.read_header(io::ignore_no_column, kResultColumns[I].name...);
}

bool parse_int(const std::string& s, int& out) {
  if (s.empty()) return false;
  size_t pos = 0;
  try {
    long v = std::stol(s, &pos);
    if (pos != s.size()) return false;
    out = static_cast<int>(v);
    return true;
  } catch (...) {
    return false;
  }
}
}  // namespace

std::vector<ResultRow> read_results(const std::string& path, const std::string* text) {
  std::vector<ResultRow> rows;
  long line = 1;
  try {
    std::optional<CsvReader<kResultColumns.size()>> slot;
    CsvReader<kResultColumns.size()>& in = open_csv(slot, path, text);
    read_header_from_schema(in, std::make_index_sequence<kResultColumns.size()>{});
    std::string version, value, repetition, status;
    ResultRow r;
    while (in.read_row(version, r.run_id, r.benchmark, r.case_name, r.params, r.metric, value, r.unit, repetition,
                       status, r.note)) {
      line = static_cast<long>(in.get_file_line());
      if (!parse_int(version, r.schema_version))
        throw InputError(path, line, fmt::format("schema_version '{}' is not an integer", version));
      if (r.schema_version != kSchemaVersion)
        throw InputError(path, line,
                         fmt::format("unknown schema_version {} (this rigcheck reads version {})", r.schema_version,
                                     kSchemaVersion));
      try {
        r.status = status_from_string(status);
      } catch (const std::invalid_argument& e) {
        throw InputError(path, line, e.what());
      }
      if (!parse_int(repetition, r.repetition))
        throw InputError(path, line, fmt::format("repetition '{}' is not an integer", repetition));
      if (value.empty()) {
        if (r.status == Status::ok || r.status == Status::mistrusted)
          throw InputError(path, line, fmt::format("value is empty in a row with status {}", status));
        r.value = std::numeric_limits<double>::quiet_NaN();
      } else if (!parse_double(value, r.value)) {
        throw InputError(path, line, fmt::format("value '{}' is not a finite number", value));
      }
      rows.push_back(r);
    }
  } catch (const InputError&) {
    throw;
  } catch (const io::error::base& e) {
    throw_csv_error(path, e, fmt::format("(expected {} columns: {})", kResultColumns.size(), result_header()));
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> parse_params(const std::string& s) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(';', start);
    if (end == std::string::npos) end = s.size();
    std::string kv = s.substr(start, end - start);
    size_t eq = kv.find('=');
    if (!kv.empty()) {
      if (eq == std::string::npos)
        out.emplace_back(kv, "");
      else
        out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    start = end + 1;
  }
  return out;
}

std::string param_value(const std::string& params, const std::string& key, const std::string& fallback) {
  for (auto& [k, v] : parse_params(params))
    if (k == key) return v;
  return fallback;
}

}  // namespace rigcheck
