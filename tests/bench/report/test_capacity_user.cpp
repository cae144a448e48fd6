// bench/report/src/capacity_user.cpp (rigcheck capacity --models): the answer for a model
// the user describes by its shape, its step at the rate of its kind measured in the run, its page
// faults, and the errors of a bad model CSV. SYNTHETIC run folders (capacity_runs.hpp): every figure
// is invented by the tests' author, chosen so the expected answer can be worked out by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "capacity_runs.hpp"

using namespace rigcheck;
using namespace rigcheck::capacity_test;

TEST(Capacity, UserModelByShapeIsAModelBasedEstimate) {
  SyntheticRun s = machine_run();
  s.row("memory_host.csv", "host_memory_training", "light_cnn/b2", "model=light_cnn;batch=2;seq=0;threads=2",
        "baseline_rss_bytes", 0.5 * kGiB, "B");
  const std::string dir = s.write();
  const std::string csv = dir + "/../models-" + std::to_string(getpid()) + ".txt";
  std::ofstream(csv) << "name,params,activation_bytes_per_sample,flops_per_sample\nwide_mlp,1e8,1e8,1e9\n";
  CapacityOptions o;
  o.model_csv = csv;
  CapacityAnswer a = capacity_of(read_run(dir), o);
  const ModelCapacity& u = model_of(a, "wide_mlp");
  EXPECT_EQ(u.basis, "model-based estimate");
  const double fixed = 0.5 * kGiB + 12 * 1e8;
  EXPECT_EQ(u.limit_batch, static_cast<long>(std::floor((18 * kGiB - fixed) / 1e8)));
  // No cpu_gemm rows: the step at the f32 peak (an upper bound of the speed), labelled so.
  EXPECT_NEAR(u.step_s, u.limit_batch * 1e9 / (resnet_peak_gflops() * 1e9), 1e-12);
  EXPECT_NE(u.step_basis.find("upper bound"), std::string::npos) << u.step_basis;
  EXPECT_NE(capacity_md(a).find("| wide_mlp | model-based estimate |"), std::string::npos);
}

// The step of a user model is estimated at the rate a LibTorch training step of its kind reached
// in the run: dense at memory_host's reference MLP (gflops rows, model=mlp), conv at ResNet-50's
// measured step, transformer at BERT-base's; the rate used is named. Synthetic figures.
TEST(Capacity, UserModelStepAtTheMeasuredRateOfItsKind) {
  SyntheticRun s = machine_run();
  for (int r = 0; r < 2; ++r)  // the reference MLP at 50 and 70 GFLOP/s: median 60
    s.row("memory_host.csv", "host_memory_training", "mlp/w1536/d4/b1536",
          "model=mlp;width=1536;depth=4;batch=1536;seq=0;threads=2", "gflops", r ? 70 : 50, "GFLOP/s", r);
  s.row("cpu_gemm.csv", "gemm_sgemm_onednn", "m2048/t2", "dtype=f32;threads=2", "gflops", 400, "GFLOP/s");
  const std::string dir = s.write();
  const std::string csv = dir + "/../kinds-" + std::to_string(getpid()) + ".txt";
  std::ofstream(csv) << "name,params,activation_bytes_per_sample,flops_per_sample,kind\n"
                        "d,1e8,1e8,1e9,dense\nc,1e8,1e8,1e9,conv\nt,1e8,1e8,1e9,transformer\ne,1e8,1e8,1e9,\n";
  CapacityOptions o;
  o.model_csv = csv;
  const RunData run = read_run(dir);
  CapacityAnswer a = capacity_of(run, o);
  const ModelCapacity& d = model_of(a, "d");
  EXPECT_NEAR(d.step_s, d.limit_batch * 1e9 / 60e9, 1e-9);  // not at the GEMM's 400
  EXPECT_NE(d.step_basis.find("at 60.00 GFLOP/s, the measured dense step rate, the training step of memory_host's "
                              "reference MLP (width 1536, depth 4, batch 1536; median of 2 child process(es))"),
            std::string::npos)
      << d.step_basis;
  // The rate is said once (it read "at 60.00 GFLOP/s, the measured dense step rate: 60.00 GFLOP/s").
  EXPECT_EQ(d.step_basis.find("60.00 GFLOP/s", d.step_basis.find("60.00 GFLOP/s") + 1), std::string::npos)
      << d.step_basis;
  EXPECT_NEAR(model_of(a, "e").step_s, d.step_s, 1e-12);  // an empty kind is dense
  // conv: ResNet-50's step at its largest measured batch (b4 in 1.0 s).
  const double rn = zoo::training_flops_per_step(zoo::resnet50(), 4) / 1.0;
  const ModelCapacity& c = model_of(a, "c");
  EXPECT_NEAR(c.step_s, c.limit_batch * 1e9 / rn, 1e-9);
  EXPECT_NE(c.step_basis.find("the measured conv step rate"), std::string::npos) << c.step_basis;
  EXPECT_NE(c.step_basis.find("resnet50's measured training step at batch 4"), std::string::npos) << c.step_basis;
  // transformer: no BERT-base step in this run: the GEMM, labelled an upper bound, saying what is missing.
  const ModelCapacity& t = model_of(a, "t");
  EXPECT_NEAR(t.step_s, t.limit_batch * 1e9 / 400e9, 1e-9);
  EXPECT_NE(t.step_basis.find("upper bound"), std::string::npos) << t.step_basis;
  EXPECT_NE(t.step_basis.find("no bert_base step in this run"), std::string::npos) << t.step_basis;
  EXPECT_TRUE(std::isnan(achieved_rate(run, "transformer", 2).gflops));
  EXPECT_NEAR(achieved_rate(run, "dense", 1).gflops, 60, 1e-12);  // at other threads: said so
  EXPECT_NE(achieved_rate(run, "dense", 1).text.find("measured at 2 threads, not at the step's 1"), std::string::npos);
}

// A run with the reference MLP at 60 GFLOP/s (children at 50 and 70) and, with `thp`, memory_thp's
// 4 KiB first-touch rows: the 1 GiB buffer at 10, 13 and 11 us per page (median 11), a smaller
// buffer at 100 and the 2 MiB pages at 500 (neither to be taken). Synthetic figures.
static std::string fault_run(bool thp) {
  SyntheticRun s = machine_run();
  for (int r = 0; r < 2; ++r)
    s.row("memory_host.csv", "host_memory_training", "mlp/w1536/d4/b1536",
          "model=mlp;width=1536;depth=4;batch=1536;seq=0;threads=2", "gflops", r ? 70 : 50, "GFLOP/s", r);
  if (thp) {
    const double us[] = {10, 13, 11};
    for (int r = 0; r < 3; ++r) {
      s.row("memory_thp.csv", "thp_alloc", "4k/1073741824", "pages=4k;bytes=1073741824;threads=1",
            "first_touch_us_per_page", us[r], "us", r);
      s.row("memory_thp.csv", "thp_alloc", "thp/1073741824", "pages=thp;bytes=1073741824;threads=1",
            "first_touch_us_per_page", 500, "us", r);
    }
    s.row("memory_thp.csv", "thp_alloc", "4k/67108864", "pages=4k;bytes=67108864;threads=1", "first_touch_us_per_page",
          100, "us");
  }
  const std::string dir = s.write();
  // 1000 pages of activations per sample, 1 GFLOP per sample: at the limit the faults are a large
  // part of the step.
  std::ofstream(dir + "-faults.csv") << "name,params,activation_bytes_per_sample,flops_per_sample,kind\n"
                                        "d,1e8,4096000,1e9,dense\nc,1e8,4096000,1e9,conv\n";
  return dir;
}

// A dense user model's step: the flops at the reference MLP's rate PLUS its activations' pages at
// this run's 4 KiB first-touch cost, both parts named; conv: no fault term (its rate is a
// measured zoo step), said so.
TEST(Capacity, DenseUserStepAddsItsPageFaultsAtThisRunsFirstTouchCost) {
  const std::string dir = fault_run(true);
  const RunData run = read_run(dir);
  const FirstTouchCost ft = first_touch_cost(run);
  EXPECT_DOUBLE_EQ(ft.us_per_page, 11);
  EXPECT_NE(ft.text.find("11.00 us per 4 KiB page first touched (1024 MiB buffer, median of 3 repetition(s), 10.00 to "
                         "13.00)"),
            std::string::npos)
      << ft.text;
  CapacityOptions o;
  o.model_csv = dir + "-faults.csv";
  const CapacityAnswer a = capacity_of(run, o);
  const ModelCapacity& d = model_of(a, "d");
  ASSERT_GT(d.limit_batch, 0);
  const double b = static_cast<double>(d.limit_batch);
  const double compute = b * 1e9 / 60e9, faults = b * 1000 * 11e-6;
  EXPECT_NEAR(d.step_s, compute + faults, 1e-9 * d.step_s) << d.step_basis;
  EXPECT_NE(
      d.step_basis.find(fmt::format("model-based estimate: {:.4g} s = {:.4g} s of compute", compute + faults, compute)),
      std::string::npos)
      << d.step_basis;
  EXPECT_NE(
      d.step_basis.find(fmt::format("+ {:.4g} s of page faults ({:.4g} pages of 4 KiB per step", faults, b * 1000)),
      std::string::npos)
      << d.step_basis;
  EXPECT_NE(d.step_basis.find("at memory_thp's 11.00 us per 4 KiB page"), std::string::npos) << d.step_basis;
  const ModelCapacity& c = model_of(a, "c");
  const double rn = zoo::training_flops_per_step(zoo::resnet50(), 4) / 1.0;
  EXPECT_NEAR(c.step_s, c.limit_batch * 1e9 / rn, 1e-9 * c.step_s);
  EXPECT_NE(
      c.step_basis.find("+ 0 s of page faults (none for kind conv: its rate is a measured training step of the zoo, "
                        "which already pays its own page faults)"),
      std::string::npos)
      << c.step_basis;
}

// Without memory_thp's rows the fault term is said to be missing, with the benchmark that gives
// it, and the step is the compute part alone: no figure from elsewhere.
TEST(Capacity, DenseUserStepWithoutMemoryThpSaysTheFaultTermIsMissing) {
  const std::string dir = fault_run(false);
  const RunData run = read_run(dir);
  EXPECT_TRUE(std::isnan(first_touch_cost(run).us_per_page));
  CapacityOptions o;
  o.model_csv = dir + "-faults.csv";
  const CapacityAnswer a = capacity_of(run, o);
  const ModelCapacity& d = model_of(a, "d");
  ASSERT_GT(d.limit_batch, 0);
  EXPECT_NEAR(d.step_s, d.limit_batch * 1e9 / 60e9, 1e-9 * d.step_s) << d.step_basis;
  EXPECT_NE(d.step_basis.find("+ 0 s of page faults (MISSING, not included"), std::string::npos) << d.step_basis;
  EXPECT_NE(d.step_basis.find("no 4 KiB first-touch figure in this run (memory_thp's thp_alloc first_touch_us_per_page "
                              "rows, pages=4k: rigcheck run --select memory_thp)"),
            std::string::npos)
      << d.step_basis;
}

// The InputError that reading `text` as a user-model CSV at `csv` throws (fails the test if none).
static InputError user_models_error(const std::string& csv, const std::string& text) {
  std::ofstream(csv) << text;
  try {
    read_user_models(csv);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << text;
  return InputError(csv, 0, "");
}

TEST(Capacity, BadModelCsvNamesFileAndLine) {
  const std::string csv = ::testing::TempDir() + "/bad-models-" + std::to_string(getpid()) + ".csv";
  const InputError neg = user_models_error(
      csv, "name,params,activation_bytes_per_sample,flops_per_sample\nok,1e6,1e6,1e6\nbad,-5,1e6,1e6\n");
  EXPECT_EQ(neg.file(), csv);
  EXPECT_EQ(neg.line(), 3);
  EXPECT_NE(neg.reason().find("params"), std::string::npos) << neg.reason();
  std::ofstream(csv) << "name,params,flops_per_sample\nx,1,1\n";  // a column missing
  EXPECT_THROW(read_user_models(csv), InputError);
  const InputError kind = user_models_error(
      csv, "name,params,activation_bytes_per_sample,flops_per_sample,kind\nx,1,1,1,dense\ny,1,1,1,rnn\n");
  EXPECT_EQ(kind.line(), 3);
  EXPECT_NE(kind.reason().find("kind must be dense, conv or transformer, got 'rnn'"), std::string::npos)
      << kind.reason();
  EXPECT_EQ(user_models_error(csv, "name,params,activation_bytes_per_sample,flops_per_sample\nx,1,abc,1\n").line(), 2);
}
