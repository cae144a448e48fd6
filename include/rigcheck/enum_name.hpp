// An enumeration's names for its to_string and its parser: each enumerator beside its name, so neither
// their order nor their values can drift apart. Header-only, shared by the zoo and the bench layers.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace rigcheck {

// The name paired with `e` in `names`, or "?" for a value not listed.
//   return enum_name(p, {{Profile::tiny, "tiny"}, {Profile::quick, "quick"}});
template <class E, std::size_t N>
constexpr const char* enum_name(E e, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [value, name] : names)
    if (value == e) return name;
  return "?";
}

// The enumerator named `s` in `names`; none for a name not listed.
template <class E, std::size_t N>
constexpr std::optional<E> enum_from_name(std::string_view s, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [value, name] : names)
    if (s == name) return value;
  return std::nullopt;
}

}  // namespace rigcheck
