// The result CSV schema, defined once (docs/architecture.md, convention 4). The writer, the reader,
// `rigcheck schema` (which prints docs/csv-schema.md) and the tests all derive from kResultColumns.
#pragma once
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace rigcheck {

inline constexpr int kSchemaVersion = 1;

struct Column {
  const char* name;
  const char* type;
  const char* unit;
  const char* meaning;
};

inline constexpr std::array<Column, 11> kResultColumns = {{
    {"schema_version", "int", "-", "version of this schema; readers refuse versions they do not know"},
    {"run_id", "string", "-", "the run folder's name (results/<run_id>/), or adhoc-<host>-<time> outside a run"},
    {"benchmark", "string", "-", "benchmark family, e.g. gemm_matmul_f32"},
    {"case", "string", "-", "one configuration of the benchmark, unique within it"},
    {"params", "string", "-", "the case's parameters and facts found at run time, key=value;key=value"},
    {"metric", "string", "-", "what value measures, e.g. gflops, time_per_iter, check_wrong"},
    {"value", "double", "see unit", "the measurement; empty when status is skipped or failed"},
    {"unit", "string", "-", "unit of value: GFLOP/s (1e9 flop/s), GB/s (1e9 B/s), s, count, fraction, ..."},
    {"repetition", "int", "-", "0-based repetition index; -1 for rows that belong to the whole case (checks, skips)"},
    {"status", "enum", "-", "ok, skipped, mistrusted or failed"},
    {"note", "string", "-", "why a row is skipped, mistrusted or failed; how it was checked"},
}};

enum class Status { ok, skipped, mistrusted, failed };
const char* to_string(Status s);
// Throws std::invalid_argument for an unknown word.
Status status_from_string(const std::string& s);

// A row's parameters, key=value pairs, and the params column they make ("k=v;k=v").
using Params = std::vector<std::pair<std::string, std::string>>;
std::string format_params(const Params& p);

struct ResultRow {
  int schema_version = kSchemaVersion;
  std::string run_id;
  std::string benchmark;
  std::string case_name;
  std::string params;
  std::string metric;
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string unit;
  int repetition = -1;
  Status status = Status::ok;
  std::string note;
  std::string source;  // not a column: the file's stem (registry entry) the row was read from
};

// A row from its columns (run_id and source left empty).
ResultRow result_row(const std::string& benchmark, const std::string& case_name, const std::string& params,
                     const std::string& metric, double value, const std::string& unit, int repetition,
                     Status status = Status::ok, const std::string& note = "");

// The header line, derived from kResultColumns.
std::string result_header();
// One row as a CSV line (no newline), fields quoted where needed.
std::string format_result_row(const ResultRow& r);

// Reads a result CSV strictly: exact header, known schema version, right column count,
// numeric value (empty only for skipped/failed rows), known status. Throws
// InputError naming file, line and reason. `text`: the file's bytes when they are in memory (a
// stored run), `path` then only naming it in errors.
std::vector<ResultRow> read_results(const std::string& path, const std::string* text = nullptr);

// Parses "k=v;k=v" (values may not contain ';').
std::vector<std::pair<std::string, std::string>> parse_params(const std::string& s);
std::string param_value(const std::string& params, const std::string& key, const std::string& fallback = "");

}  // namespace rigcheck
