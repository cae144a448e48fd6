// tool/src/compare/history.cpp: one machine's runs in time order; a change of a library version
// between two runs is named beside the rows it slowed (tests/fixtures/runs/history_onednn).
#include <gtest/gtest.h>

#include <vector>

#include "rigcheck/tool/compare.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(History, LibraryVersionChangeIsAttributed) {
  std::vector<LoadedRun> runs{load_run(kRuns + "compare_a"), load_run(kRuns + "compare_a2"),
                              load_run(kRuns + "history_onednn")};
  auto d = defs();
  auto diffs = differing_fields({&runs[1], &runs[2]}, d);
  bool onednn = false;
  for (const FieldDiff& f : diffs) onednn |= f.key == "onednn_version";
  EXPECT_TRUE(onednn);
  auto rows = compare_pair(runs[1], runs[2], d, CompareOptions{});
  int flagged = 0;
  for (const RowComparison& r : rows)
    if (r.flag == "regression") {
      EXPECT_EQ(r.benchmark, "gemm_matmul_f32");
      ++flagged;
    }
  EXPECT_GT(flagged, 0);
}
