// bench/report/src/html/plot_specs.cpp: the plot registry (data/plots.csv) reads and is checked, beside
// the confounders registry of rigcheck compare (data/confounders.csv).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "support/files.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(Registries, PlotsAndConfoundersReadAndCheck) {
  auto specs = read_plot_specs(data_path("plots.csv"));
  ASSERT_GE(specs.size(), 11u);
  std::set<std::string> ids;
  for (const PlotSpec& s : specs) ids.insert(s.id);
  for (const char* id : {"gemm_scaling", "fc_working_set", "memory_latency", "memory_bandwidth", "fio_iops",
                         "fio_latency", "io_wait", "allreduce_busbw", "gpu_tflops"})
    EXPECT_TRUE(ids.count(id)) << id;
  auto d = defs();
  EXPECT_GE(d.size(), 20u);

  std::string bad =
      temp_file("plots_bad.csv",
                "id,title,benchmark,metric,where,x,x_scale,x_label,series,y_label,x_log,y_log,style,marks,"
                "status,note\np,P,b,m,,x,1,,,,no,no,lines,,live,\nq,Q,b,m,,x,1,,,,no,no,bars,,live,\n");
  expect_refused_at([&] { read_plot_specs(bad); }, 3, "style 'bars'");
  std::string badmark = temp_file("plots_badmark.csv",
                                  "id,title,benchmark,metric,where,x,x_scale,x_label,series,y_label,x_log,y_log,style,"
                                  "marks,status,note\np,P,b,m,,x,1,,,,no,no,lines,vline=cache:L3,live,\n");
  EXPECT_THROW(read_plot_specs(badmark), InputError);
}
