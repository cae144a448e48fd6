#include <ostream>
#include <utility>

#include "rigcheck/claims/verdict.hpp"
#include "rigcheck/enum_name.hpp"

namespace rigcheck {

namespace {
constexpr std::pair<Outcome, const char*> kOutcomes[] = {
    {Outcome::confirmed, "confirmed"},       {Outcome::refuted, "refuted"},
    {Outcome::inconclusive, "inconclusive"}, {Outcome::not_measurable, "not_measurable"},
    {Outcome::predicted, "predicted"},       {Outcome::no_benchmark, "no_benchmark"},
};
constexpr std::pair<Basis, const char*> kBases[] = {
    {Basis::measured, "measured"},   {Basis::emulated, "emulated"},   {Basis::predicted, "predicted"},
    {Basis::inventory, "inventory"}, {Basis::datasheet, "datasheet"}, {Basis::none, "none"},
};
constexpr std::pair<ClaimKind, const char*> kKinds[] = {
    {ClaimKind::range, "range"},     {ClaimKind::at_least, "at_least"},
    {ClaimKind::at_most, "at_most"}, {ClaimKind::approx, "approx"},
    {ClaimKind::fact, "fact"},       {ClaimKind::threshold_by_class, "threshold_by_class"},
};
}  // namespace

const char* to_string(Outcome o) { return enum_name(o, kOutcomes); }
std::optional<Outcome> outcome_from_string(const std::string& s) { return enum_from_name(s, kOutcomes); }
bool is_judged(Outcome o) { return o == Outcome::confirmed || o == Outcome::refuted || o == Outcome::inconclusive; }

const char* to_string(Basis b) { return enum_name(b, kBases); }
std::optional<Basis> basis_from_string(const std::string& s) { return enum_from_name(s, kBases); }

const char* to_string(ClaimKind k) { return enum_name(k, kKinds); }
std::optional<ClaimKind> claim_kind_from_string(const std::string& s) { return enum_from_name(s, kKinds); }

std::ostream& operator<<(std::ostream& os, Outcome o) { return os << to_string(o); }
std::ostream& operator<<(std::ostream& os, Basis b) { return os << to_string(b); }
std::ostream& operator<<(std::ostream& os, ClaimKind k) { return os << to_string(k); }

}  // namespace rigcheck
