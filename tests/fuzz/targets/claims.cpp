// The claims registry (data/claims.csv, or `--claims FILE`): read_claims, then judge() on
// every numeric claim it accepted, over a few measured intervals (the report's only use of the
// figures), and the claims' needs expression over an empty machine.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "fuzz.hpp"
#include "rigcheck/report/report.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(claims) {
  std::vector<Claim> claims;
  if (!accepted(data, size, "claims.csv", claims, [](const std::string& p) { return read_claims(p); })) return 0;
  RunData empty;
  for (const Claim& c : claims) {
    check(!c.id.empty(), "accepted an empty claim id");
    if (c.kind == ClaimKind::range || c.kind == ClaimKind::approx || c.kind == ClaimKind::at_least ||
        c.kind == ClaimKind::at_most) {
      for (auto [lo, hi] : {std::pair{0.0, 1.0}, std::pair{-1e300, 1e300}, std::pair{c.low, c.low}}) {
        if (std::isnan(lo) || std::isnan(hi)) continue;
        const Outcome v = judge(c, lo, hi);
        check(is_judged(v), std::string("judge() said ") + to_string(v));
      }
    }
    evaluate_claim(c, empty);  // checks the needs expression, registry text too, before any evaluator
  }
  return 0;
}
