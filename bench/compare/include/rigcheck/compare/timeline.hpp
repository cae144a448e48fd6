// Timelines: every case and every claim of a series of runs on one time axis (history.html, and
// compare.html where a side has several runs). Drawn here as inline SVG, no script needed to see
// them: a claims strip (one row per claim, one cell per run, coloured by verdict), one small plot
// per case (the run's median with the interval of its repetitions, the change points with their
// size, vertical marks where a fact of data/confounders.csv changed, each named), and a table of
// the facts that changed. Runs in groups (history --group-by, compare's sides) share the time axis,
// each group its own series, change points and marks. See docs/comparing.md, "The history page".
#pragma once
#include <string>
#include <vector>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck {

struct TimelineInput {
  std::vector<const LoadedRun*> runs;     // in time order
  std::vector<std::string> group;         // per run: its group ("" for all when there is one)
  std::vector<std::string> verdicts_csv;  // per run: the text of its verdicts.csv, "" when it was not judged
  std::string group_by;                   // what the groups are ("machine", "driver", "side"...), for the words
  // Draw only these cases (case keys); empty: every case, the claims' inputs and the moved ones open.
  std::vector<std::string> only_cases;
  // Cases shown open beside the claims' inputs and those with change points (compare: its flagged cases).
  std::vector<std::string> open_cases;
};

struct TimelinePage {
  std::string html;  // the sections, to put in a page's body
  size_t timelines = 0, change_points = 0, marks = 0, claims = 0;
};
TimelinePage timelines_html(const TimelineInput& in, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                            const NoiseProfile* profile, const StatOptions& opt);

// A UTC time as the inventory writes it (2026-12-02T12:06:39Z) in seconds since 1970; NaN when not one.
double utc_seconds(const std::string& iso);
// The percentile (0-100, ties counted half) of x among values.
double percentile_of(double x, const std::vector<double>& values);

}  // namespace rigcheck
