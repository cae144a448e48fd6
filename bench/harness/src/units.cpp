#include "rigcheck/harness/units.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rigcheck {

std::string gib(double bytes) { return std::isnan(bytes) ? "-" : fmt::format("{:.2f} GiB", bytes / kGiB); }

}  // namespace rigcheck
