// Per-binary defaults of --reps and --min-time (a header of its own, so that the benchmarks that do
// not use it are not rebuilt when it changes).
#pragma once
#include <array>

namespace rigcheck {

// Optional, once per binary at namespace scope: the defaults of --reps and --min-time for the tiny,
// quick and full profiles where the binary's cases want others than the harness's (3/5/10
// repetitions of 0.01/0.2/0.5 s), e.g. more and shorter repetitions for a median that noise
// cannot move (cpu/cache_fc.cpp). The command line still overrides them. Throws
// std::invalid_argument for reps < 1 or min_time <= 0.
bool register_repetition_defaults(const std::array<int, 3>& reps, const std::array<double, 3>& min_time_s);

}  // namespace rigcheck
