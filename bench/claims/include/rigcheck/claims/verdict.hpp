// The closed vocabularies of a claim and its verdict, as enums: a misspelt verdict, basis or kind
// fails to compile instead of turning into an unknown string. Their text (to_string) is what
// claims.csv holds and verdicts.csv, report.md and report.html show.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>

namespace rigcheck {

// The verdict on one claim.
enum class Outcome {
  confirmed,       // the measured interval lies within the guide's figure and its tolerance
  refuted,         // the measured interval lies wholly outside it
  inconclusive,    // the interval straddles a bound, or the evidence disagrees with itself
  not_measurable,  // this machine lacks what the claim needs (named in the reason)
  predicted,       // a model's extrapolation with no guide figure to judge it against
  no_benchmark,    // no benchmark for the claim is built yet
};
const char* to_string(Outcome o);
std::optional<Outcome> outcome_from_string(const std::string& s);
// confirmed, refuted or inconclusive: a verdict judged against the guide's figure.
bool is_judged(Outcome o);

// What a verdict rests on.
enum class Basis {
  measured,   // this run's timings and counts
  emulated,   // a model of hardware this machine lacks, built from this run's measurements
  predicted,  // an extrapolation beyond what was measured (e.g. more cores than this machine has)
  inventory,  // facts of this machine (CPU model, flags, sizes), not timings
  datasheet,  // vendors' figures (data/datasheets.csv)
  none,       // nothing: not_measurable, no_benchmark
};
const char* to_string(Basis b);
std::optional<Basis> basis_from_string(const std::string& s);

// How a claim's figure is judged (claims.csv `kind`).
enum class ClaimKind {
  range,               // low..high, each widened by the tolerance
  at_least,            // >= low - tolerance
  at_most,             // <= high + tolerance
  approx,              // low +- tolerance
  fact,                // a statement of fact, judged by its evaluator (no numeric rule)
  threshold_by_class,  // a figure per class (storage classes), judged by its evaluator
};
const char* to_string(ClaimKind k);
std::optional<ClaimKind> claim_kind_from_string(const std::string& s);

// For test failure messages and logs: the same text as to_string.
std::ostream& operator<<(std::ostream& os, Outcome o);
std::ostream& operator<<(std::ostream& os, Basis b);
std::ostream& operator<<(std::ostream& os, ClaimKind k);

}  // namespace rigcheck
