// Binary units of bytes, for what the suite prints and sizes (one definition for the benchmarks
// and the tool).
#pragma once
#include <string>

namespace rigcheck {

inline constexpr double kGiB = 1073741824.0;

// "3.43 GiB" (two decimals), or "-" for NaN (a size that was not measured).
std::string gib(double bytes);

}  // namespace rigcheck
