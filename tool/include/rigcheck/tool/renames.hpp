// Old names of benchmarks and metrics (data/renames.csv): rows of run folders written before a
// rename are read under the new name, so users' histories and reference runs keep comparing and
// judging after the suite renames a benchmark (harness/include/rigcheck/harness/names.hpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

struct Renames {
  std::map<std::string, std::string> benchmark, metric;  // old -> new
  bool empty() const { return benchmark.empty() && metric.empty(); }
};
// Reads renames.csv strictly (kind benchmark or metric; an old name given twice, or renamed to
// itself, is refused); throws InputError naming file and line.
Renames read_renames(const std::string& path);
// data/renames.csv, read once.
const Renames& suite_renames();
// Applies the renames to rows read from a run folder; returns how many rows were renamed.
size_t apply_renames(const Renames& r, std::vector<ResultRow>& rows);

}  // namespace rigcheck
