// What the three exports share (export.cpp): the run's cases in file order with their names, and
// time units.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/report/export.hpp"

namespace rigcheck::export_detail {

// One case of one result file: its rows in file order (every status, every repetition).
struct ExportCase {
  std::string source, benchmark, case_name;
  // "benchmark/case", with "/file:STEM" appended (Google Benchmark's "/name:value" form) where the
  // same benchmark/case is in more than one result file of the run (an ISA cap, another environment:
  // report.md's tables keep them apart too).
  std::string name;
  std::vector<const ResultRow*> rows;
};
std::vector<ExportCase> export_cases(const RunData& run);

// Seconds per unit of a time unit (s, ms, us, ns); 0 for any other unit.
double seconds_per(const std::string& unit);
// Whether the unit is a rate: ends in "/s", or is IOPS.
bool is_rate_unit(const std::string& unit);

// A fact of the run's inventory, empty where the run has none.
std::string fact(const RunData& run, const std::string& key);

}  // namespace rigcheck::export_detail
