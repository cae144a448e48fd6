// Per-binary defaults of --reps and --min-time, and the adaptive repetitions every binary gets
// (a header of its own, so that the benchmarks that do not use it are not rebuilt when it changes).
#pragma once
#include <array>
#include <vector>

namespace rigcheck {

// Optional, once per binary at namespace scope: the defaults of --reps and --min-time for the tiny,
// quick and full profiles where the binary's cases want others than the harness's (3/5/10
// repetitions of 0.01/0.2/0.5 s), e.g. more and shorter repetitions for a median that noise
// cannot move (cpu/cache_fc.cpp). The command line still overrides them. Throws
// std::invalid_argument for reps < 1 or min_time <= 0.
bool register_repetition_defaults(const std::array<int, 3>& reps, const std::array<double, 3>& min_time_s);
// The harness's defaults but repetitions of at least 0.1 s in quick, not 0.2 (under the
// quick profile's time budget each case keeps its floor of 3 repetitions; cpu_peak, cpu_gemm,
// cpu_isa; docs/methodology.md, "Timing and noise").
inline constexpr std::array<double, 3> kShortQuickMinTimeS{0.01, 0.1, 0.5};

// Adaptive repetitions (docs/methodology.md): after a case's --reps repetitions, while the relative
// IQR of its time per iteration ((q75 - q25) / median) is above --reps-target, the harness adds one
// repetition (a whole round of every case of an interleaved group, so that pairs stay pairs) until
// the target is met, --reps-cap repetitions are reached, or the time spent on added repetitions
// would exceed kAddedRepsBudget of the time the binary's own repetitions took so far. Defaults:
// off in tiny, 5% in quick, 3% in full; cap twice --reps.
inline constexpr std::array<double, 3> kRepsTargetDefault = {0, 0.05, 0.03};
inline constexpr double kAddedRepsBudget = 0.15;

// The rows (repetition -1) a case gets when adaptive repetitions are on: the final spread, and
// whether the cap (or the time budget) stopped the repetitions before the target was met (1) or not (0).
inline constexpr const char* kRepsSpread = "reps_spread";
inline constexpr const char* kRepsCapHit = "reps_cap_hit";
// Their descriptions, for `rigcheck schema` (docs/csv-schema.md): metric, unit, meaning.
inline constexpr std::array<std::array<const char*, 3>, 2> kAdaptiveRepsRows = {{
    {kRepsSpread, "fraction",
     "relative IQR ((q75 - q25) / median) of the case's time_per_iter over all its repetitions, added ones included"},
    {kRepsCapHit, "count",
     "1: the repetitions stopped at --reps-cap or the time budget with reps_spread above --reps-target (which, in the "
     "note); 0: the target was met"},
}};

// (q75 - q25) / median of `values`; 0 for fewer than 2 values or a zero median.
double relative_iqr(const std::vector<double>& values);

}  // namespace rigcheck
