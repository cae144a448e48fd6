#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/runfolder/needs.hpp"
#include "rigcheck/claims/claim.hpp"

namespace rigcheck {

namespace {
std::map<std::string, Registration>& registry() {
  static std::map<std::string, Registration> m;
  return m;
}

// Verdict "not_measurable" naming what is missing when the claim's needs are unmet on this run's
// machine, else none.
bool unmet_needs(const Claim& c, const RunData& run, Verdict& out) {
  if (c.needs.empty()) return false;
  NeedsResult n = evaluate_needs(c.needs, run.facts);
  if (n.met) return false;
  out.claim_id = c.id;
  out.verdict = Outcome::not_measurable;
  out.unit = c.unit;
  out.reason = fmt::format("needs {}: {}", c.needs_text.empty() ? c.needs : c.needs_text, n.missing);
  out.basis = Basis::none;
  return true;
}
}  // namespace

bool register_evaluator(const std::string& claim_id, Evaluator e, UnmetNeedsHook when_unmet) {
  registry()[claim_id] = Registration{std::move(e), std::move(when_unmet), ""};
  return true;
}

bool register_predicting_evaluator(const std::string& claim_id, const std::string& from, Evaluator e) {
  registry()[claim_id] = Registration{std::move(e), {}, from};
  return true;
}

const Registration* registration_of(const std::string& claim_id) {
  auto it = registry().find(claim_id);
  return it == registry().end() ? nullptr : &it->second;
}

Outcome judge(const Claim& c, double low, double high) {
  double lo = -INFINITY, hi = INFINITY;
  if (c.kind == ClaimKind::range) {
    lo = c.low - c.tolerance;
    hi = c.high + c.tolerance;
  } else if (c.kind == ClaimKind::approx) {
    lo = c.low - c.tolerance;
    hi = c.low + c.tolerance;
  } else if (c.kind == ClaimKind::at_least) {
    lo = c.low - c.tolerance;
  } else if (c.kind == ClaimKind::at_most) {
    hi = c.high + c.tolerance;
  } else {
    throw std::logic_error(fmt::format("claim {}: kind {} has no numeric rule", c.id, to_string(c.kind)));
  }
  if (std::isnan(low) || std::isnan(high)) throw std::logic_error("judge() without a measured interval");
  if (low >= lo && high <= hi) return Outcome::confirmed;
  if (high < lo || low > hi) return Outcome::refuted;
  return Outcome::inconclusive;
}

Verdict evaluate_claim(const Claim& c, const RunData& run) {
  const Registration* reg = registration_of(c.id);
  Verdict v;
  if ((!reg || reg->predicts_from.empty()) && unmet_needs(c, run, v)) {
    if (reg && reg->when_unmet) reg->when_unmet(c, run, v);
    v.claim_id = c.id;
    if (v.unit.empty()) v.unit = c.unit;
    return v;
  }
  if (reg) {
    v = reg->evaluate(c, run);
    v.claim_id = c.id;
    if (v.unit.empty()) v.unit = c.unit;
    // What a verdict rests on is the evaluator's to say: nothing here can make a verdict measured.
    // A predicted verdict can rest on nothing but a prediction.
    if (v.verdict == Outcome::predicted && v.basis == Basis::none) v.basis = Basis::predicted;
    if (is_judged(v.verdict) && v.basis == Basis::none)
      throw std::logic_error(
          fmt::format("claim {}: its evaluator judged it {} without saying what the verdict rests on "
                      "(Verdict::basis: measured, emulated, predicted, inventory or datasheet)",
                      c.id, to_string(v.verdict)));
    return v;
  }
  v.claim_id = c.id;
  v.verdict = Outcome::no_benchmark;
  v.unit = c.unit;
  v.reason = "no benchmark for this claim is built yet";
  v.basis = Basis::none;
  return v;
}

bool shows_basis(const Verdict& v) {
  return v.basis != Basis::measured && v.basis != Basis::none && v.verdict != Outcome::predicted;
}

std::string verdict_label(const Verdict& v) {
  std::string s = to_string(v.verdict);
  if (shows_basis(v)) s += fmt::format(" ({})", to_string(v.basis));
  return s;
}

}  // namespace rigcheck
