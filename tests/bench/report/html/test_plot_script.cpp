// bench/report/src/html/plot_script.cpp: a plot's gnuplot script only when the run has its data; the
// Amdahl fit labelled predicted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rigcheck/harness/paths.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(Plots, ScriptOnlyWhenDataAndAmdahlLabelledPredicted) {
  LoadedRun a = load_run(kRuns + "compare_a");
  auto specs = read_plot_specs(data_path("plots.csv"));
  std::vector<PlotRun> runs{{a.label, &a.data}};
  int with_data = 0;
  for (const PlotSpec& s : specs) {
    std::string cap;
    std::string script = plot_script(s, runs, data_path("datasheets.csv"), &cap);
    if (s.id == "memory_latency" || s.id == "fio_iops" || s.id == "gpu_tflops") {
      EXPECT_TRUE(script.empty()) << s.id;
    }
    if (s.id == "gemm_scaling") {
      ASSERT_FALSE(script.empty());
      EXPECT_NE(script.find("Amdahl fit"), std::string::npos);
      EXPECT_NE(script.find("PREDICTED by the fit, not measured"), std::string::npos);
      EXPECT_NE(script.find("dt 2"), std::string::npos);  // the fit is dashed
    }
    with_data += !script.empty();
  }
  EXPECT_GE(with_data, 3);
}
