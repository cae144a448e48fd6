// Old names of benchmarks and metrics (data/renames.csv): rows of run folders written before a
// rename are read under the new name, so users' histories and reference runs keep comparing and
// judging after the suite renames a benchmark (bench/harness/include/rigcheck/harness/names.hpp).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

// A result file compared as another (kind `source`): rows of `old`.csv are compared as rows of
// `to`.csv with `case_suffix` appended to their case names, where one registry entry took over what two
// wrote (cpu_isa_avx2.csv and cpu_isa_native.csv, same case names, became cpu_isa.csv with cases
// ending /isa_cap_avx2 and /isa_cap_native), so compare and history match old runs' cases.
struct SourceRename {
  std::string to, case_suffix;
};

struct Renames {
  std::map<std::string, std::string> benchmark, metric;  // old -> new
  std::map<std::string, SourceRename> source;            // old result file stem -> new
  bool empty() const { return benchmark.empty() && metric.empty() && source.empty(); }
};
// Reads renames.csv strictly (kind benchmark, metric or source; an old name given twice, renamed
// to itself, a case_suffix on a kind other than source, or two sources made into one file without
// case suffixes that keep their cases apart, are refused); the case_suffix column may be absent.
// Throws InputError naming file and line.
Renames read_renames(const std::string& path);
// data/renames.csv, read once.
const Renames& suite_renames();
// Applies the benchmark and metric renames to rows read from a run folder; returns how many rows
// were renamed. Source renames are not applied here: a report names the file a row is in.
size_t apply_renames(const Renames& r, std::vector<ResultRow>& rows);
// The result file and case name `row` is compared under (compare, history, noise, ab): the source
// rename's file and the case name with its suffix, else the row's own.
std::pair<std::string, std::string> compared_as(const Renames& r, const ResultRow& row);

}  // namespace rigcheck
