// The start both all-reduce binaries share: the session's options and the binary's own parsed,
// checked and turned into the plan of cases. A header of templates (the Options and Plan types are
// each binary's own); comm_common stays free of the harness so that its unit tests link it alone.
#pragma once
#include <optional>
#include <vector>

#include "rigcheck/harness/session.hpp"

namespace rigcheck::comm {

// Adds the binary's options (its add_options), parses the command line, checks the values (its
// validate, which throws CLI::ValidationError) and makes the plan (its make_plan), all found by
// argument-dependent lookup on Options. An exit code when the binary is done (help, a bad option).
template <class Options, class Plan>
std::optional<int> parse_plan(Session& s, int argc, char** argv, Options& o, std::vector<Plan>& plan) {
  add_options(s.app(), o);
  return s.parse(argc, argv, [&] {
    validate(o);
    plan = make_plan(s, o);
  });
}

}  // namespace rigcheck::comm
