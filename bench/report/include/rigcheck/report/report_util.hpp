// Helpers the claim evaluators share.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/report/report.hpp"

namespace rigcheck {

// Median and [min, max] of a group of repetitions.
Measured measure(const std::vector<const ResultRow*>& rows);
// Groups the rows of select() by one parameter's value (e.g. threads), merging cases.
std::map<std::string, std::vector<const ResultRow*>> group_by_param(
    const std::map<std::string, std::vector<const ResultRow*>>& by_case, const std::string& key);
// "97.1 [95.2-98.0] %, n=5"
std::string format_measured(const Measured& m, const std::string& unit);
std::string fmt_num(double v);
// A Markdown table cell: '|' escaped, newlines as spaces.
std::string md_escape(std::string s);
// The manifest's word on a benchmark, for reasons: "cpu_gemm: failed (exit 1)".
std::string manifest_status(const RunData& run, const std::string& benchmark);

// What report.md and report.html both show (report.cpp):
// the Measured cell: "97.1 % [95.2 to 98.0], n=5", with a prediction labelled "predicted (not measured)";
std::string measured_text(const Verdict& v);
// A claim's evidence as report.md and report.html list it: (label, text) in order, the empty ones
// left out: the guide's original words (Chinese), its figure, the measured figure, the evidence,
// the reason, the guide's error.
struct ClaimField {
  const char* label;
  std::string text;
  bool chinese = false;  // the guide's own words (report.html marks their language)
};
std::vector<ClaimField> claim_fields(const Claim& c, const Verdict& v);
// the verdict's reason in one short sentence, built from the verdict (where the measured interval
// lies against the guide's bounds), else the evaluator's first clause; a guide error appended;
std::string verdict_summary(const Claim& c, const Verdict& v);
// the warnings above the verdicts (debug build, load, governor, mistrusted rows, a run cut short,
// concurrent runs, result files left out by --exclude-broken);
std::vector<std::string> report_warnings(const RunData& run);
// "What this machine is good for": this run's headline figures (best f32 GEMM, ResNet-50 step,
// STREAM triad, sequential reads, GPU GEMM: only those measured) and the count of each verdict;
std::string good_for_text(const RunData& run, const std::vector<Claim>& claims, const std::vector<Verdict>& vs);
// the id of a claim's evidence section: "cpu-1" (Markdown heading anchors; "ev-" + it in HTML).
std::string claim_anchor(const Claim& c);

struct DatasheetRow {
  std::string product, property, value, source;
};
std::vector<DatasheetRow> read_datasheets(const std::string& path);

// The fully connected layers of the zoo's models (data/fc_layers.csv), for CPU-4.
struct FcLayer {
  std::string model, layer, source;
  double in = 0, out = 0;
};
std::vector<FcLayer> read_fc_layers(const std::string& path);

// The guide's table of storage classes, section 4.2 (data/guide_storage_classes.csv), for IO-2.
struct GuideClass {
  std::string cls, kind, section, text_zh;
  double gbps = 0, iops = 0, tol_pct = 0;
};
std::vector<GuideClass> read_guide_classes(const std::string& path);
// Each reads its registry strictly; throws InputError naming file and line.

}  // namespace rigcheck
