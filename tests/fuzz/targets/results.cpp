// Result CSVs (every benchmark's output, read by report, compare and history): read_results.
// Besides refusing cleanly, what it accepts must be what it promises (the known schema version,
// a finite value wherever the status says measured), and the suite's own writer must write the
// accepted rows into a file that reads back the same (a report re-read from a rewritten copy
// must not change).
#include <cmath>

#include "fuzz.hpp"
#include "rigcheck/harness/schema.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(results) {
  std::vector<ResultRow> rows;
  if (!accepted(data, size, "result.csv", rows, [](const std::string& p) { return read_results(p); })) return 0;
  std::string text = result_header() + "\n";
  for (const ResultRow& r : rows) {
    check(r.schema_version == kSchemaVersion, "accepted an unknown schema version");
    if (r.status == Status::ok || r.status == Status::mistrusted)
      check(std::isfinite(r.value), "accepted a measured row without a finite value");
    text += format_result_row(r) + "\n";
  }
  const std::vector<ResultRow> back =
      read_back(text, "result-again.csv", "format_result_row", [](const std::string& p) { return read_results(p); });
  check(back.size() == rows.size(), "the writer's copy has another number of rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const ResultRow &a = rows[i], &b = back[i];
    const bool same_value = (std::isnan(a.value) && std::isnan(b.value)) || a.value == b.value;
    check(a.run_id == b.run_id && a.benchmark == b.benchmark && a.case_name == b.case_name && a.params == b.params &&
              a.metric == b.metric && same_value && a.unit == b.unit && a.repetition == b.repetition &&
              a.status == b.status && a.note == b.note,
          "row " + std::to_string(i) + " reads back differently after format_result_row");
  }
  return 0;
}
