// Repetitions that two cases (or two processes) took in turns, read back for a ratio per pair
// (Case::interleave, bench/harness/src/alternate.hpp): shared by the evaluator files (bench/claims/src only).
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "rigcheck/harness/schema.hpp"

namespace rigcheck::interleaved {

// The values of `rows` by repetition index when every row says it ran interleaved with the same
// key (`key` empty: any, then set to it; else that one); empty when one does not, or a repetition
// index is negative or repeated.
inline std::map<int, double> reps(const std::vector<const ResultRow*>& rows, std::string& key) {
  std::map<int, double> out;
  for (const ResultRow* r : rows) {
    const std::string k = param_value(r->params, "interleaved");
    if (k.empty() || (!key.empty() && k != key) || r->repetition < 0 || out.count(r->repetition)) return {};
    key = k;
    out[r->repetition] = r->value;
  }
  return out;
}

// b_i / a_i per pair of repetitions taken in turns (same key, same index; a_i > 0, finite
// ratios only); empty when the two sides were not interleaved with each other.
inline std::vector<double> ratios(const std::vector<const ResultRow*>& a, const std::vector<const ResultRow*>& b) {
  std::string key;
  const std::map<int, double> x = reps(a, key);
  std::vector<double> out;
  if (x.empty()) return out;
  for (auto& [rep, v] : reps(b, key))
    if (x.count(rep) && x.at(rep) > 0 && std::isfinite(v / x.at(rep))) out.push_back(v / x.at(rep));
  return out;
}

}  // namespace rigcheck::interleaved
