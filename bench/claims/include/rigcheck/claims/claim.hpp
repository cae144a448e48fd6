// A claim of the guide (data/claims.csv), the verdict on it, and the registry of evaluators: each
// claim's logic is a small function registered by claim id (evaluators_*.cpp); a claim without one
// gets not_measurable (hardware missing) or no_benchmark.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "rigcheck/claims/verdict.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

struct Claim {
  std::string id, section, text_zh, text_en, guide_figure;
  ClaimKind kind = ClaimKind::fact;
  double low = kNaN, high = kNaN, tolerance = 0;
  std::string unit, needs, needs_text, guide_error;
};
// Reads claims.csv strictly (fast-cpp-csv-parser); throws InputError naming file and line.
std::vector<Claim> read_claims(const std::string& path);

struct Verdict {
  std::string claim_id;
  Outcome verdict = Outcome::no_benchmark;
  Measured measured;
  double predicted = kNaN;
  std::string unit, evidence, reason;
  // What the verdict rests on (verdict.hpp), set by the evaluator for every judged verdict
  // (evaluate_claim throws std::logic_error when it is left at none; a predicted verdict left at
  // none becomes predicted).
  Basis basis = Basis::none;
};

// confirmed / refuted / inconclusive for a measured interval against the claim's figure
// widened by its tolerance (docs/methodology.md).
Outcome judge(const Claim& c, double low, double high);
// Whether the basis is shown beside the verdict (not for measured, none, or a predicted verdict),
// and "refuted" or "refuted (datasheet)": the verdict with its basis where shown.
bool shows_basis(const Verdict& v);
std::string verdict_label(const Verdict& v);

using Evaluator = std::function<Verdict(const Claim&, const RunData&)>;
// Adds a claim's own context to the framework's verdict on unmet needs, which arrives not_measurable
// with the reason "needs TEXT: WHAT IS MISSING" set.
using UnmetNeedsHook = std::function<void(const Claim&, const RunData&, Verdict&)>;

// What a claim's registration declares: its evaluator, and what happens where the claim's needs
// (claims.csv `needs`) are unmet on the run's machine.
struct Registration {
  Evaluator evaluate;
  UnmetNeedsHook when_unmet;  // empty: the framework's verdict as it is
  // Not empty: the evaluator runs with its needs unmet too, and predicts the figure from this
  // (e.g. "an Amdahl fit ..."): a claim about a bigger machine than the one measured.
  std::string predicts_from;
};

// evaluate_claim checks a claim's needs before its evaluator runs: where they are unmet the verdict
// is not_measurable, then `when_unmet` adds the claim's context to it.
bool register_evaluator(const std::string& claim_id, Evaluator e, UnmetNeedsHook when_unmet = {});
// A claim whose evaluator runs whether its needs are met or not, predicting from `from` where they are not.
bool register_predicting_evaluator(const std::string& claim_id, const std::string& from, Evaluator e);
// The registration of a claim id (nullptr for none): docs/claims.md's tables are checked against it.
const Registration* registration_of(const std::string& claim_id);
Verdict evaluate_claim(const Claim& c, const RunData& run);

}  // namespace rigcheck
