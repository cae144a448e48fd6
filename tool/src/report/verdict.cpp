#include <cmath>

#include <fmt/format.h>

#include "rigcheck/tool/needs.hpp"
#include "rigcheck/tool/report.hpp"

namespace rigcheck {

namespace {
std::map<std::string, Evaluator>& evaluators() {
  static std::map<std::string, Evaluator> m;
  return m;
}
}  // namespace

bool register_evaluator(const std::string& claim_id, Evaluator e) {
  evaluators()[claim_id] = std::move(e);
  return true;
}

std::string judge(const Claim& c, double low, double high) {
  double lo = -INFINITY, hi = INFINITY;
  if (c.kind == "range") {
    lo = c.low - c.tolerance;
    hi = c.high + c.tolerance;
  } else if (c.kind == "approx") {
    lo = c.low - c.tolerance;
    hi = c.low + c.tolerance;
  } else if (c.kind == "at_least") {
    lo = c.low - c.tolerance;
  } else if (c.kind == "at_most") {
    hi = c.high + c.tolerance;
  } else {
    throw std::logic_error(fmt::format("claim {}: kind {} has no numeric rule", c.id, c.kind));
  }
  if (std::isnan(low) || std::isnan(high)) throw std::logic_error("judge() without a measured interval");
  if (low >= lo && high <= hi) return "confirmed";
  if (high < lo || low > hi) return "refuted";
  return "inconclusive";
}

bool unmet_needs(const Claim& c, const RunData& run, Verdict& out) {
  if (c.needs.empty()) return false;
  NeedsResult n = evaluate_needs(c.needs, run.facts);
  if (n.met) return false;
  out.claim_id = c.id;
  out.verdict = "not_measurable";
  out.unit = c.unit;
  out.reason = fmt::format("needs {}: {}", c.needs_text.empty() ? c.needs : c.needs_text, n.missing);
  out.basis = "none";
  return true;
}

Verdict evaluate_claim(const Claim& c, const RunData& run) {
  auto it = evaluators().find(c.id);
  if (it != evaluators().end()) {
    Verdict v = it->second(c, run);
    v.claim_id = c.id;
    if (v.unit.empty()) v.unit = c.unit;
    if (v.basis.empty()) {
      if (v.verdict == "predicted") v.basis = "predicted";
      else if (v.verdict == "confirmed" || v.verdict == "refuted" || v.verdict == "inconclusive") v.basis = "measured";
      else v.basis = "none";
    }
    return v;
  }
  Verdict v;
  if (unmet_needs(c, run, v)) return v;
  v.claim_id = c.id;
  v.verdict = "no_benchmark";
  v.unit = c.unit;
  v.reason = "no benchmark for this claim is built yet";
  v.basis = "none";
  return v;
}

}  // namespace rigcheck
