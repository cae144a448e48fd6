// The synthetic run folders of the capacity tests (test_capacity.cpp, test_capacity_user.cpp): every
// row is invented by the tests' author (note "synthetic"), chosen so the expected answer can be worked
// out by hand; none describes a machine.
#pragma once
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/models/zoo.hpp"
#include "rigcheck/report/capacity.hpp"

namespace rigcheck::capacity_test {
inline constexpr double kGiB = 1073741824.0;

// A synthetic run folder: inventory plus result files of the given rows.
struct SyntheticRun {
  std::string dir;
  std::map<std::string, std::string> files;  // file name -> rows

  explicit SyntheticRun(const std::string& inventory_extra = "gpu_count,0\ngpu_note,synthetic: no GPU\n") {
    static int n = 0;
    dir = (std::filesystem::path(::testing::TempDir()) /
           ("capacity-" + std::to_string(getpid()) + "-" + std::to_string(n++)))
              .string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/inventory.csv") << "key,value\nhostname,synthetic\nmemory_total_bytes,"
                                          << std::to_string(static_cast<long long>(20 * kGiB)) << "\n"
                                          << inventory_extra;
  }
  void row(const std::string& file, const std::string& bench, const std::string& cs, const std::string& params,
           const std::string& metric, double value, const std::string& unit, int rep = 0) {
    files[file] += csv_line({"1", "synthetic", bench, cs, params, metric, format_double(value), unit,
                             std::to_string(rep), "ok", "synthetic"}) +
                   "\n";
  }
  // memory_host: a peak (two child processes, the same value) and optionally a step time.
  void host(const std::string& model, int batch, int seq, double peak_gib, double step_s = NAN) {
    const std::string params =
        "model=" + model + ";batch=" + std::to_string(batch) + ";seq=" + std::to_string(seq) + ";threads=2";
    const std::string cs = model + "/b" + std::to_string(batch);
    for (int r = 0; r < 2; ++r) {
      row("memory_host.csv", "host_memory_training", cs, params, "peak_rss_bytes", peak_gib * kGiB, "B", r);
      if (!std::isnan(step_s)) row("memory_host.csv", "host_memory_training", cs, params, "step_time", step_s, "s", r);
    }
  }
  std::string write() {
    for (auto& [f, rows] : files)
      std::ofstream(dir + "/" + f)
          << "schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status,note\n"
          << rows;
    return dir;
  }
};

inline const ModelCapacity& model_of(const CapacityAnswer& a, std::string_view name) {
  for (const ModelCapacity& m : a.models)
    if (m.model == name) return m;
  throw std::runtime_error("no model " + std::string(name));
}

inline const LimitFigure& limit_of(const ModelCapacity& m, std::string_view what) {
  for (const LimitFigure& l : m.limits)
    if (l.what == what) return l;
  throw std::runtime_error("no limit " + std::string(what));
}

// ResNet-50's step at batch 4 takes 1 s; the f32 peak is set so that this is 90% of it.
// The zoo's analytic activations per sample (SGD momentum, fp32): the slope capacity falls back to.
inline double analytic_per_sample(const zoo::ModelConfig& cfg, int seq = 0) {
  zoo::MemoryOptions mo;
  mo.optimizer = zoo::Optimizer::sgd_momentum;
  mo.seq_len = seq;
  return zoo::estimate_training_memory(cfg, 2, mo).total() - zoo::estimate_training_memory(cfg, 1, mo).total();
}

inline double resnet_peak_gflops() { return zoo::training_flops_per_step(zoo::resnet50(), 4) / 1e9 / 0.9; }

inline SyntheticRun machine_run(const std::string& inv = "gpu_count,0\ngpu_note,synthetic: no GPU\n") {
  SyntheticRun s(inv);
  // light_cnn: three batches, the largest 0.1 GiB above the line of the other two.
  s.host("light_cnn", 2, 0, 1.2);
  s.host("light_cnn", 4, 0, 1.4);
  s.host("light_cnn", 8, 0, 1.9, 0.5);
  // resnet50: exactly two batches.
  s.host("resnet50", 2, 0, 1.0);
  s.host("resnet50", 4, 0, 1.5, 1.0);
  // bert_large: batch 1 already above the usable 18 GiB.
  s.host("bert_large", 1, 128, 19.0);
  s.host("bert_large", 2, 128, 20.0);
  s.row("cpu_peak.csv", "fma_peak_f32", "avx2/t2", "isa=avx2;threads=2", "gflops", resnet_peak_gflops(), "GFLOP/s");
  s.row("memory_bandwidth.csv", "memory_bandwidth", "triad/t2", "kernel=triad;threads=2", "gbps", 1e6, "GB/s");
  // The pipeline delivers 10 samples/s: light_cnn's step (8 samples in 0.5 s) wants 16.
  s.row("io_dataloader.csv", "dataloader_io_wait", "r1/w0", "sample_bytes=1000;device_class=synthetic", "samples_per_s",
        10, "samples/s");
  return s;
}

// The machine of machine_run with no result rows: each test adds its own.
inline SyntheticRun bare_machine_run() {
  SyntheticRun s = machine_run();
  s.files.clear();
  return s;
}
}  // namespace rigcheck::capacity_test
