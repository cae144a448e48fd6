#include <array>
#include <ostream>
#include <utility>

#include "rigcheck/claims/verdict.hpp"

namespace rigcheck {

namespace {
template <typename E, size_t N>
std::optional<E> from_string(const std::array<std::pair<E, const char*>, N>& names, const std::string& s) {
  for (const auto& [e, n] : names)
    if (s == n) return e;
  return std::nullopt;
}
template <typename E, size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& names, E e) {
  for (const auto& [x, n] : names)
    if (x == e) return n;
  return "?";
}

constexpr std::array<std::pair<Outcome, const char*>, 6> kOutcomes{{
    {Outcome::confirmed, "confirmed"},
    {Outcome::refuted, "refuted"},
    {Outcome::inconclusive, "inconclusive"},
    {Outcome::not_measurable, "not_measurable"},
    {Outcome::predicted, "predicted"},
    {Outcome::no_benchmark, "no_benchmark"},
}};
constexpr std::array<std::pair<Basis, const char*>, 6> kBases{{
    {Basis::measured, "measured"},
    {Basis::emulated, "emulated"},
    {Basis::predicted, "predicted"},
    {Basis::inventory, "inventory"},
    {Basis::datasheet, "datasheet"},
    {Basis::none, "none"},
}};
constexpr std::array<std::pair<ClaimKind, const char*>, 6> kKinds{{
    {ClaimKind::range, "range"},
    {ClaimKind::at_least, "at_least"},
    {ClaimKind::at_most, "at_most"},
    {ClaimKind::approx, "approx"},
    {ClaimKind::fact, "fact"},
    {ClaimKind::threshold_by_class, "threshold_by_class"},
}};
}  // namespace

const char* to_string(Outcome o) { return name_of(kOutcomes, o); }
std::optional<Outcome> outcome_from_string(const std::string& s) { return from_string(kOutcomes, s); }
bool is_judged(Outcome o) { return o == Outcome::confirmed || o == Outcome::refuted || o == Outcome::inconclusive; }

const char* to_string(Basis b) { return name_of(kBases, b); }
std::optional<Basis> basis_from_string(const std::string& s) { return from_string(kBases, s); }

const char* to_string(ClaimKind k) { return name_of(kKinds, k); }
std::optional<ClaimKind> claim_kind_from_string(const std::string& s) { return from_string(kKinds, s); }

std::ostream& operator<<(std::ostream& os, Outcome o) { return os << to_string(o); }
std::ostream& operator<<(std::ostream& os, Basis b) { return os << to_string(b); }
std::ostream& operator<<(std::ostream& os, ClaimKind k) { return os << to_string(k); }

}  // namespace rigcheck
