// What report.md and report.html both show, computed from a run and its verdicts.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {

// A Markdown table cell: '|' escaped, newlines as spaces.
std::string md_escape(std::string s);

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

}  // namespace rigcheck
