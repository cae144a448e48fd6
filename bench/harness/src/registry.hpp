// The benchmarks a binary registered (harness.hpp's register_* at namespace scope) and its
// defaults, read by harness_main (harness.cpp): private to the harness.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/session.hpp"

namespace rigcheck::detail {

std::vector<BenchmarkDef>& registry();
std::vector<std::pair<std::string, DeriveRows>>& derivers();
SharedOptions& shared_defaults();

}  // namespace rigcheck::detail
