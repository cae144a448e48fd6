// What a claim or a benchmark needs of the machine, as data: "physical_cores>=8;isa_avx512f=yes".
// Each term compares one inventory key with a number (>=, >, <=, <) or a word (=, !=).
#pragma once
#include <map>
#include <string>

namespace rigcheck {

struct NeedsResult {
  bool met = true;
  std::string missing;  // e.g. "physical_cores>=8 (this machine: 2)"; empty when met
};

// Throws std::invalid_argument for a malformed expression. An absent key is unmet.
NeedsResult evaluate_needs(const std::string& expr, const std::map<std::string, std::string>& facts);

// Why the expression is malformed ("" when it is not): registry readers check it up front, so that a
// bad registry is refused with its file and line before anything runs.
std::string needs_syntax_error(const std::string& expr);

}  // namespace rigcheck
