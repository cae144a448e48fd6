// Test helpers for the fixture run folders (tests/fixtures/runs/): copies to judge, the verdict of
// one claim, the comparison's confounders. For the tests of the rigcheck tool (RIGCHECK_FIXTURES:
// support/paths.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rigcheck/harness/paths.hpp"
#include "support/paths.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/report.hpp"

namespace rigcheck::testsupport {

// The fixture run folders.
inline const std::string kRuns = std::string(RIGCHECK_FIXTURES) + "/runs/";

// A fresh copy of the fixture run NAME under gtest's temporary folder, for make_report to write in.
inline std::string copy_fixture(const std::string& name) {
  namespace fs = std::filesystem;
  static int n = 0;
  fs::path dst =
      fs::path(::testing::TempDir()) / ("run-" + name + "-" + std::to_string(getpid()) + "-" + std::to_string(n++));
  fs::remove_all(dst);
  fs::copy(fs::path(RIGCHECK_FIXTURES) / "runs" / name, dst, fs::copy_options::recursive);
  return dst.string();
}

// The verdict of claim ID (throws when there is none).
inline const Verdict& verdict_of(const std::vector<Verdict>& vs, std::string_view id) {
  for (const Verdict& v : vs)
    if (v.claim_id == id) return v;
  throw std::runtime_error("no verdict for " + std::string(id));
}

// Report options that print nothing.
inline ReportOptions quiet() {
  ReportOptions o;
  o.quiet = true;
  return o;
}

// Fixture run NAME as compare loads it with RULES, labelled LABEL, its rows changed by EDIT (a
// callable taking RunData&) and its cases built again from them.
template <class Edit>
LoadedRun edited_run(const std::string& name, const std::string& label, const CaseRules& rules, Edit edit) {
  LoadedRun r = load_run(kRuns + name, rules);
  r.label = label;
  edit(r.data);
  r.cases.clear();
  r.not_working.clear();
  r.not_working_by_name.clear();
  build_cases(r, rules);
  return r;
}

// The confounders of data/confounders.csv.
inline std::vector<ConfounderDef> defs() { return read_confounders(data_path("confounders.csv")); }

}  // namespace rigcheck::testsupport
