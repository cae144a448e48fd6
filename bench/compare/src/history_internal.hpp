// What history.cpp finds in a series of runs, shared with the timelines (timeline.cpp) that draw it
// and with compare's page: not part of the tool's interface.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck::history_detail {

// One case's headline metric over runs in time order.
struct Series {
  std::string key, label, benchmark, case_name, source, params, metric, unit;
  int better = 1;
  std::vector<size_t> run;    // index into the runs, in time order
  std::vector<double> value;  // log(median) in that run
  std::vector<const CaseRun*> cases;
};

struct Change {
  const Series* s = nullptr;
  ChangePoint cp;
  size_t before_run = 0, after_run = 0;              // the runs on each side of the change
  double change_pct = 0, low_pct = 0, high_pct = 0;  // signed, positive = better
  std::string flag, attributes, changed_fields;
};

// Each case's series over these runs (time order), labels unique across result files.
std::vector<Series> series_of(const std::vector<const LoadedRun*>& runs, const CaseRules& rules);
// The change points of every series, each with the inventory fields that changed at it.
std::vector<Change> find_changes(const std::vector<Series>& series, const std::vector<const LoadedRun*>& runs,
                                 const std::vector<ConfounderDef>& defs, const NoiseProfile* profile,
                                 const StatOptions& opt);

}  // namespace rigcheck::history_detail

namespace rigcheck {
struct TimelineInput;
struct TimelinePage;
namespace history_detail {
// The text of a run's verdicts.csv: opt.verdicts_text where set (a stored run), else the folder's file; ""
// where there is none.
std::string verdicts_text(const CompareOptions& opt, const std::string& dir);

// Each group's series and change points, already found.
struct Found {
  const std::vector<Series>* series = nullptr;
  const std::vector<Change>* changes = nullptr;
};
// timelines_html with each group's series and change points already found (history's own, so that a
// long history is not searched twice), one per group in the order the groups first appear in time; empty:
// found here.
TimelinePage timelines_with(const TimelineInput& in, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                            const NoiseProfile* profile, const StatOptions& opt, const std::vector<Found>& found);
}  // namespace history_detail
}  // namespace rigcheck
