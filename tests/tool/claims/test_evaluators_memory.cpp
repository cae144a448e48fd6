// tool/src/claims/evaluators_memory.cpp: MEM-4's evidence names what drives its figure, the
// first-touch cost per 4 KiB and per 2 MiB page (issue 18): from thp_alloc's derived
// first_touch_us_per_page rows, and from time_per_iter in the recorded quick run of the 2-core VM
// (tests/fixtures/runs/quick_vm, made before those rows existed).
#include <gtest/gtest.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/tool/report.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {

Claim claim(const std::string& id) {
  for (const Claim& c : read_claims(data_path("claims.csv")))
    if (c.id == id) return c;
  throw std::runtime_error("no claim " + id);
}

ResultRow row(const std::string& pages, const std::string& metric, double value, int rep) {
  ResultRow r;
  r.run_id = "t";
  r.benchmark = names::kThpAlloc;
  r.case_name = pages + "/1073741824";
  r.params = "pages=" + pages + ";bytes=1073741824;threads=1;anon_huge_bytes=" + (pages == "thp" ? "1073741824" : "0");
  r.metric = metric;
  r.value = value;
  r.unit = "x";
  r.repetition = rep;
  return r;
}

}  // namespace

TEST(MemoryVerdicts, Mem4EvidenceNamesTheFirstTouchCostFromTheRecordedRun) {
  auto vs = make_report(copy_fixture("quick_vm"), quiet());
  const Verdict& v = verdict_of(vs, "MEM-4");
  ASSERT_EQ(v.basis, Basis::measured);
  // 4 KiB: 2.90-2.96 s per 1 GiB cycle / 262144 pages; 2 MiB: 61.2-62.5 ms / 512 pages.
  EXPECT_NE(v.evidence.find("costs 11.08 us [11.05 to 11.30], n=3 per 4 KiB page"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("120.0 us [119.6 to 122.0], n=3 per 2 MiB page"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("virtualization: bhyve"), std::string::npos) << v.evidence;
}

TEST(MemoryVerdicts, Mem4PrefersTheDerivedRowsAndSaysWhenAbsent) {
  RunData run;
  run.facts["thp_available"] = "yes";
  run.facts["virtualization"] = "none";
  for (int rep = 0; rep < 3; ++rep) {
    run.results.push_back(row("thp", names::kGbps, 16 + rep, rep));
    run.results.push_back(row("4k", names::kGbps, 0.3 + 0.01 * rep, rep));
    run.results.push_back(row("thp", names::kTimePerIter, 1.0, rep));  // would say 1953 us per 2 MiB page
    run.results.push_back(row("4k", names::kTimePerIter, 1.0, rep));
    run.results.push_back(row("thp", names::kFirstTouchUsPerPage, 128 + rep, rep));
    run.results.push_back(row("4k", names::kFirstTouchUsPerPage, 15 + rep, rep));
  }
  Verdict v = evaluate_claim(claim("MEM-4"), run);
  EXPECT_NE(v.evidence.find("costs 16.00 us [15.00 to 17.00], n=3 per 4 KiB page and 129.0 us [128.0 to 130.0], n=3 per 2 MiB page"),
            std::string::npos)
      << v.evidence;
  EXPECT_EQ(v.evidence.find("virtualization"), std::string::npos) << v.evidence;

  RunData none;
  none.facts["thp_available"] = "yes";
  for (int rep = 0; rep < 3; ++rep) {
    none.results.push_back(row("thp", names::kGbps, 16, rep));
    none.results.push_back(row("4k", names::kGbps, 0.3, rep));
  }
  Verdict w = evaluate_claim(claim("MEM-4"), none);
  EXPECT_NE(w.evidence.find("first-touch cost per page: not measured"), std::string::npos) << w.evidence;
}
