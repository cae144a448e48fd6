// Reading figures out of a run's rows: the median and range of a group of repetitions, rows grouped
// by a parameter, the manifest's word on a benchmark, and how a figure is written.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

// Median and [min, max] of a group of repetitions.
Measured measure(const std::vector<const ResultRow*>& rows);
// Groups the rows of select() by one parameter's value (e.g. threads), merging cases.
std::map<std::string, std::vector<const ResultRow*>> group_by_param(
    const std::map<std::string, std::vector<const ResultRow*>>& by_case, const std::string& key);
// Every row of select()'s groups in one list (the cases' order).
std::vector<const ResultRow*> flatten(const std::map<std::string, std::vector<const ResultRow*>>& by_case);
// The values one parameter takes in a group of rows: "16", "2 and 16" where the rows differ, "" where
// none has it. A sentence that quotes rows names their shape from here, never from what a profile or
// the guide meant to run (a tiny profile runs smaller batches and images than the claim's).
std::string param_of(const std::vector<const ResultRow*>& rows, const std::string& key);
// The workload's shape of a group of rows, from their params: "batch 2, 64x64 images", "sequence 128",
// "m=n=k=2048" (the keys batch, image, seq, m/n/k that the rows have, in that order); "" for none.
std::string shape_of(const std::vector<const ResultRow*>& rows);
// "97.1 [95.2-98.0] %, n=5"
std::string format_measured(const Measured& m, const std::string& unit);
std::string fmt_num(double v);
// The manifest's word on a benchmark, for reasons: "cpu_gemm: failed (exit 1)".
std::string manifest_status(const RunData& run, const std::string& benchmark);

// One fact of a run's inventory (RunData::inventory, or ::facts, which adds the derived ones): its
// text, or `missing` where the run has none. How a gap reads is the caller's to say.
inline constexpr const char* kNotInInventory = "unknown: not in inventory";
inline constexpr const char* kNotRecorded = "(not recorded)";
std::string fact_or(const std::map<std::string, std::string>& facts, const std::string& key,
                    const std::string& missing);
// The same as a number: NaN where the run has none or it is not a number.
double fact_number(const std::map<std::string, std::string>& facts, const std::string& key);

}  // namespace rigcheck
