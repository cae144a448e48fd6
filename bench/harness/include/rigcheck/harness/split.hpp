// Lists given as one string ("1,2,4", "a>=2;b=yes", "10.0.0.0/24,eth1"): its non-empty fields.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

// The fields of `s` between `sep`s, in order, empty fields left out (no trimming).
std::vector<std::string> split_fields(const std::string& s, char sep);

}  // namespace rigcheck
