// An enumeration's names for its to_string: each enumerator beside its name, so neither their order
// nor their values can drift apart. Header-only, shared by the zoo and the bench layers.
#pragma once
#include <cstddef>
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

}  // namespace rigcheck
