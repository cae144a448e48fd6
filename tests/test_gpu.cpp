// GPU area without a GPU: the datasheet table and its lookup, the GEMM error bound and number
// formats, the decoding and summarising of power samples, and the GPU claims' verdicts on a
// synthetic fixture run (tests/fixtures/runs/gpu_h200_synthetic, labelled NOT a measurement).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "numerics.hpp"
#include "power.hpp"
#include "rigcheck/harness/nvml.hpp"
#include "rigcheck/tool/gpu_datasheet.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/tool/report.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;

namespace {
std::vector<GpuDatasheet> table() { return gpu_datasheets(read_datasheets(data_path("datasheets.csv"))); }

std::string copy_run(const std::string& name) {
  static int n = 0;
  fs::path dst = fs::path(::testing::TempDir()) / ("gpu-run-" + name + "-" + std::to_string(getpid()) + "-" + std::to_string(n++));
  fs::remove_all(dst);
  fs::copy(fs::path(RIGCHECK_FIXTURES) / "runs" / name, dst, fs::copy_options::recursive);
  return dst.string();
}

const Verdict& verdict_of(const std::vector<Verdict>& vs, const std::string& id) {
  for (const Verdict& v : vs)
    if (v.claim_id == id) return v;
  throw std::runtime_error("no verdict for " + id);
}

std::vector<Verdict> report(const std::string& dir) {
  ReportOptions o;
  o.quiet = true;
  return make_report(dir, o);
}
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Appends CSV rows to a file of a copied run.
void append(const std::string& path, const std::string& rows) { std::ofstream(path, std::ios::app) << rows; }
// Replaces text in a file of a copied run.
void replace_in(const std::string& path, const std::string& from, const std::string& to) {
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  std::ofstream(path) << std::regex_replace(ss.str(), std::regex(from), to);
}
}  // namespace

// ------------------------------------------------------------------ datasheets
TEST(GpuDatasheet, EveryCardOfTheIssueWithSourcedFigures) {
  auto t = table();
  for (const char* p : {"NVIDIA Tesla T4", "NVIDIA Tesla V100 SXM2", "NVIDIA A100 PCIe 40GB", "NVIDIA A100 PCIe 80GB",
                        "NVIDIA A100 SXM4 40GB", "NVIDIA A100 SXM4 80GB", "NVIDIA A10", "NVIDIA A40", "NVIDIA L4",
                        "NVIDIA L40S", "NVIDIA H100 PCIe", "NVIDIA H100 SXM", "NVIDIA H200 SXM",
                        "NVIDIA GeForce RTX 2080 Ti", "NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3090",
                        "NVIDIA GeForce RTX 4090"}) {
    const GpuDatasheet* s = find_gpu_product(t, p);
    ASSERT_NE(s, nullptr) << p;
    for (const char* prop : {"fp32_tflops", "f16_tflops", "memory_gb", "tdp_w"}) {
      EXPECT_FALSE(std::isnan(s->num(prop))) << p << " " << prop;
      ASSERT_TRUE(s->has(prop));
      EXPECT_GT(s->props.at(prop).source.size(), 10u) << p << " " << prop << " has no source";
    }
    // Dense tensor figures: f16 tensor at least the plain f32 rate, never the sparse figure.
    EXPECT_GE(s->num("f16_tflops"), s->num("fp32_tflops")) << p;
    if (s->has("f16_tflops_sparse")) {
      EXPECT_DOUBLE_EQ(s->num("f16_tflops_sparse"), 2 * s->num("f16_tflops")) << p;
    }
  }
  EXPECT_DOUBLE_EQ(find_gpu_product(t, "NVIDIA GeForce RTX 3080")->num("memory_gb"), 10);
  EXPECT_DOUBLE_EQ(find_gpu_product(t, "NVIDIA H200 SXM")->num("bf16_tflops"), 989.5);
}

TEST(GpuDatasheet, DeviceNamesFindTheirProduct) {
  auto t = table();
  auto product = [&](const std::string& name) {
    const GpuDatasheet* s = find_gpu_datasheet(t, name);
    return s ? s->product : std::string("none");
  };
  EXPECT_EQ(product("NVIDIA H200"), "NVIDIA H200 SXM");
  EXPECT_EQ(product("NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM");
  EXPECT_EQ(product("NVIDIA H100 PCIe"), "NVIDIA H100 PCIe");
  EXPECT_EQ(product("NVIDIA A100-SXM4-80GB"), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(product("NVIDIA A100-SXM4-40GB"), "NVIDIA A100 SXM4 40GB");
  EXPECT_EQ(product("NVIDIA A100 80GB PCIe"), "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ(product("NVIDIA A100-PCIE-40GB"), "NVIDIA A100 PCIe 40GB");
  EXPECT_EQ(product("NVIDIA A10"), "NVIDIA A10");
  EXPECT_EQ(product("NVIDIA A40"), "NVIDIA A40");
  EXPECT_EQ(product("NVIDIA L4"), "NVIDIA L4");
  EXPECT_EQ(product("NVIDIA L40S"), "NVIDIA L40S");
  EXPECT_EQ(product("Tesla T4"), "NVIDIA Tesla T4");
  EXPECT_EQ(product("Tesla V100-SXM2-32GB"), "NVIDIA Tesla V100 SXM2");
  EXPECT_EQ(product("NVIDIA GeForce RTX 3080"), "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(product("NVIDIA GeForce RTX 3080 Ti"), "none");  // another card, no row
  EXPECT_EQ(product("NVIDIA GeForce RTX 2080 Ti"), "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(product("NVIDIA GeForce RTX 4090"), "NVIDIA GeForce RTX 4090");
  EXPECT_EQ(product("NVIDIA H200 NVL"), "none");
  EXPECT_EQ(product("NVIDIA B200"), "none");
  EXPECT_TRUE(gpu_name_matches("foo|RTX 3090$", "nvidia geforce rtx 3090"));
  EXPECT_FALSE(gpu_name_matches("", "anything"));
}

// ------------------------------------------------------------------ numerics and tolerance
TEST(GpuNumerics, RandomInputsAreExactInTheirFormat) {
  using namespace rigcheck::gpu;
  uint64_t s = 42;
  for (int i = 0; i < 20000; ++i) {
    float x16 = random_input(s, 10), xb = random_input(s, 7), x8 = random_input(s, 3);
    ASSERT_NE(x16, 0.0f);
    ASSERT_LE(std::fabs(x8), 1.0f);
    ASSERT_GE(std::fabs(x8), 1.0f / 64);
    ASSERT_EQ(f16_decode(f16_encode_exact(x16)), x16);
    ASSERT_EQ(bf16_decode(bf16_encode_exact(xb)), xb);
    ASSERT_EQ(e4m3_decode(e4m3_encode_exact(x8)), x8);
  }
  EXPECT_EQ(f16_decode(0x3C00), 1.0);
  EXPECT_EQ(f16_decode(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(f16_decode(0x7C00)));
  EXPECT_EQ(e4m3_decode(0x7E), 448.0);                   // largest e4m3
  EXPECT_EQ(e4m3_decode(0x01), std::ldexp(1.0, -9));     // smallest subnormal
  EXPECT_TRUE(std::isnan(e4m3_decode(0x7F)));
  EXPECT_EQ(bf16_decode(0xBF80), -1.0);
}

TEST(GpuNumerics, ErrorBoundFormula) {
  using namespace rigcheck::gpu;
  EXPECT_DOUBLE_EQ(gamma_n(3, 0x1p-24), 3 * 0x1p-24 / (1 - 3 * 0x1p-24));
  EXPECT_TRUE(std::isinf(gamma_n(2, 0.5)));
  // f32: u_in = u_out = 0, so the bound is gamma_(K+1)(2^-24) sum|a||b|.
  EXPECT_NEAR(gemm_error_bound(info(Dtype::f32), 1023, 10.0, 3.0), gamma_n(1024, 0x1p-24) * 10.0, 1e-15);
  // bf16 output: plus 2^-8 of (|exact| + e1).
  const double e1 = gamma_n(1024, 0x1p-23) * 10.0;
  EXPECT_NEAR(gemm_error_bound(info(Dtype::bf16), 1023, 10.0, 3.0), e1 + 0x1p-8 * (3.0 + e1), 1e-15);
  // tf32 counts the cut inputs: larger than f32's.
  EXPECT_GT(gemm_error_bound(info(Dtype::tf32), 1023, 10.0, 3.0), 30 * gemm_error_bound(info(Dtype::f32), 1023, 10.0, 3.0));
  // fp8: accumulator precision only within chunks of 128, then f32.
  const DtypeInfo& f8 = info(Dtype::fp8_e4m3);
  const double g = gamma_n(129, 0x1p-13) + gamma_n(65, 0x1p-24) * (1 + gamma_n(129, 0x1p-13));
  EXPECT_NEAR(gemm_error_bound(f8, 8192, 1.0, 0.0), g + 0x1p-8 * g, 1e-15);  // bf16 output: + u_out e1
  // Monotonic in K.
  EXPECT_LT(gemm_error_bound(info(Dtype::f16), 100, 1, 1), gemm_error_bound(info(Dtype::f16), 1000, 1, 1));
}

// A host simulation of a bf16 GEMM (bf16 inputs, f32 accumulation, bf16 output) stays within the
// bound; a shifted operand (a layout error) is far outside it.
TEST(GpuNumerics, BoundHoldsForASimulatedGemmAndCatchesAWrongOne) {
  using namespace rigcheck::gpu;
  const DtypeInfo& d = info(Dtype::bf16);
  uint64_t s = 9;
  const int K = 4096;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> a(K), b(K);
    for (int k = 0; k < K; ++k) {
      a[k] = random_input(s, d.mantissa_bits);
      b[k] = random_input(s, d.mantissa_bits);
    }
    float acc = 0;
    double exact = 0, sum_abs = 0;
    for (int k = 0; k < K; ++k) {
      acc += a[k] * b[k];
      exact += static_cast<double>(a[k]) * b[k];
      sum_abs += std::fabs(static_cast<double>(a[k]) * b[k]);
    }
    // Output rounded to bf16 (round to nearest even).
    auto to_bf16 = [](float f) {
      uint32_t u = f32_bits(f);
      u += 0x7FFF + ((u >> 16) & 1);
      return static_cast<double>(bf16_decode(static_cast<uint16_t>(u >> 16)));
    };
    const double bound = gemm_error_bound(d, K, sum_abs, exact);
    EXPECT_LE(std::fabs(to_bf16(acc) - exact), bound);
  }
  // A transposed or shifted operand changes the result by O(sqrt(K)): always caught.
  std::vector<float> a(K), b(K);
  for (int k = 0; k < K; ++k) {
    a[k] = random_input(s, d.mantissa_bits);
    b[k] = random_input(s, d.mantissa_bits);
  }
  double exact = 0, sum_abs = 0, shifted = 0;
  for (int k = 0; k < K; ++k) {
    exact += static_cast<double>(a[k]) * b[k];
    sum_abs += std::fabs(static_cast<double>(a[k]) * b[k]);
    shifted += static_cast<double>(a[k]) * b[(k + 1) % K];
  }
  EXPECT_GT(std::fabs(shifted - exact), gemm_error_bound(d, K, sum_abs, exact) / 100);
}

// cuBLASLt's split-K (item 11 of issue 19): partial sums kept in f32 (the only schemes gpu_gemm
// allows) stay within gemm_error_bound whatever the split; partial sums rounded to a 16-bit output
// type can leave it, and stay within gemm_error_bound_output_partials (the torch peer's bound).
TEST(GpuNumerics, SplitKReductionAndItsBound) {
  using namespace rigcheck::gpu;
  EXPECT_EQ(kAllowedReductionSchemes & (kReduceInplace | kReduceOutputType), 0u);
  EXPECT_NE(kAllowedReductionSchemes & kReduceComputeType, 0u);
  const DtypeInfo& d = info(Dtype::bf16);
  auto to_bf16 = [](double x) {
    uint32_t u = f32_bits(static_cast<float>(x));
    u += 0x7FFF + ((u >> 16) & 1);
    return bf16_decode(static_cast<uint16_t>(u >> 16));
  };
  uint64_t s = 21;
  const int K = 4096;
  for (int slices : {2, 4, 8, 16}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> a(K), b(K);
      for (int k = 0; k < K; ++k) {
        a[k] = random_input(s, d.mantissa_bits);
        b[k] = random_input(s, d.mantissa_bits);
      }
      double exact = 0, sum_abs = 0, f32_partials = 0, bf16_partials = 0;
      for (int sl = 0; sl < slices; ++sl) {
        float part = 0;  // one slice in f32, as each split-K slice is
        for (int k = sl * K / slices; k < (sl + 1) * K / slices; ++k) part += a[k] * b[k];
        f32_partials = static_cast<float>(f32_partials + part);           // COMPUTE_TYPE: added in f32
        bf16_partials = to_bf16(bf16_partials + to_bf16(part));            // OUTPUT_TYPE: rounded and added in bf16
      }
      for (int k = 0; k < K; ++k) {
        exact += static_cast<double>(a[k]) * b[k];
        sum_abs += std::fabs(static_cast<double>(a[k]) * b[k]);
      }
      ASSERT_LE(std::fabs(to_bf16(f32_partials) - exact), gemm_error_bound(d, K, sum_abs, exact)) << slices;
      ASSERT_LE(std::fabs(bf16_partials - exact), gemm_error_bound_output_partials(d, K, sum_abs, exact, slices)) << slices;
    }
  }
  // Two slices whose sums nearly cancel: each rounded to bf16 (spacing 4 at 1000) loses up to 2,
  // far beyond the f32-partials bound of a short K, within the output-partials bound.
  const double p1 = 1000.5, p2 = -1000.25, exact = p1 + p2, sum_abs = 2000.75;
  const double bf16_result = to_bf16(to_bf16(p1) + to_bf16(p2));
  EXPECT_GT(std::fabs(bf16_result - exact), gemm_error_bound(d, 4, sum_abs, exact));
  EXPECT_LE(std::fabs(bf16_result - exact), gemm_error_bound_output_partials(d, 4, sum_abs, exact, 2));
  EXPECT_DOUBLE_EQ(gemm_error_bound_output_partials(d, 4, sum_abs, exact, 1), gemm_error_bound(d, 4, sum_abs, exact));
}

// ------------------------------------------------------------------ power samples
TEST(GpuPower, DecodeRawNvmlSamples) {
  using namespace rigcheck::gpu;
  RawSample r;
  r.t_s = 1.5;
  r.power_mw = 412345;
  r.power_ok = true;
  r.temp_c = 67;
  r.temp_ok = true;
  r.sm_mhz = 1980;
  r.mem_mhz = 2619;
  r.clocks_ok = true;
  r.reasons = 0x4;
  r.reasons_ok = true;
  Sample s = decode(r);
  EXPECT_DOUBLE_EQ(s.power_w, 412.345);
  EXPECT_DOUBLE_EQ(s.temp_c, 67);
  EXPECT_DOUBLE_EQ(s.sm_mhz, 1980);
  EXPECT_TRUE(std::isnan(s.mem_used_bytes));  // NVML did not answer: NaN, never 0
  r.power_ok = false;
  EXPECT_TRUE(std::isnan(decode(r).power_w));
  EXPECT_EQ(throttle_reason_names(0), "none");
  EXPECT_EQ(throttle_reason_names(0x24), "sw_power_cap+sw_thermal_slowdown");
  EXPECT_EQ(throttle_reason_names(0x1000), "other_0x1000");
}

TEST(GpuPower, SummaryOfASampleSeries) {
  using namespace rigcheck::gpu;
  std::vector<RawSample> v;
  for (int i = 0; i < 10; ++i) {
    RawSample r;
    r.t_s = 0.1 * i;
    r.power_mw = 100000 + 10000 * i;  // 100..190 W
    r.power_ok = true;
    r.temp_c = 50 + i;
    r.temp_ok = true;
    r.sm_mhz = i < 5 ? 1980 : 1700;
    r.mem_mhz = 2619;
    r.clocks_ok = true;
    r.reasons = i >= 8 ? 0x40 : (i >= 6 ? 0x4 : 0);
    r.reasons_ok = true;
    r.mem_used = 1000 + i;
    r.mem_ok = true;
    r.cpu_energy_j = 10.0 * i;  // 100 W over 0.1 s steps
    v.push_back(r);
  }
  PowerSummary p = summarize(v);
  EXPECT_EQ(p.samples, 10);
  EXPECT_DOUBLE_EQ(p.power_max_w, 190);
  EXPECT_DOUBLE_EQ(p.power_mean_w, 145);
  EXPECT_DOUBLE_EQ(p.temp_max_c, 59);
  EXPECT_DOUBLE_EQ(p.temp_first_c, 50);
  EXPECT_DOUBLE_EQ(p.sm_mhz_median, (1980 + 1700) / 2.0);
  EXPECT_DOUBLE_EQ(p.sm_mhz_min, 1700);
  EXPECT_DOUBLE_EQ(p.thermal_fraction, 0.2);
  EXPECT_DOUBLE_EQ(p.power_cap_fraction, 0.2);
  EXPECT_EQ(p.reasons_seen, 0x44u);
  EXPECT_DOUBLE_EQ(p.mem_used_max_bytes, 1009);
  EXPECT_NEAR(p.cpu_power_mean_w, 100, 1e-9);
  EXPECT_NEAR(p.cpu_power_max_w, 100, 1e-9);
  // A window.
  PowerSummary w = summarize(v, 0.45, 0.75);
  EXPECT_EQ(w.samples, 3);
  EXPECT_DOUBLE_EQ(w.power_max_w, 170);
  // Nothing readable: NaN everywhere, no invented value.
  PowerSummary none = summarize({RawSample{}});
  EXPECT_TRUE(std::isnan(none.power_max_w));
  EXPECT_TRUE(std::isnan(none.cpu_power_mean_w));
  auto rows = observed_rows(none);
  for (auto& o : rows) EXPECT_NE(o.metric, "power_max_w");
}

// Issue 19 item 9: the peak from the instantaneous field, the mean from the energy counter.
TEST(GpuPower, PeakFromInstantReadingsMeanFromTheEnergyCounter) {
  using namespace rigcheck::gpu;
  std::vector<RawSample> v;
  for (int i = 0; i <= 50; ++i) {  // 1 s at 20 ms
    RawSample r;
    r.t_s = 0.02 * i;
    r.power_ok = true;
    r.power_mw = 500000;  // the 1 s average hides the spike
    r.power_instant_ok = true;
    r.power_instant_mw = i == 25 ? 712000 : 480000 + 1000 * (i % 3);
    r.energy_ok = true;
    r.energy_mj = 1000000 + static_cast<unsigned long long>(500.0 * 20 * i);  // 500 W: 10 J per 20 ms
    v.push_back(r);
  }
  PowerSummary p = summarize(v);
  EXPECT_DOUBLE_EQ(p.power_max_w, 712);  // not 500: the average's maximum
  EXPECT_EQ(p.instant_samples, 51);
  EXPECT_TRUE(has(p.power_max_method, "NVML_FI_DEV_POWER_INSTANT"));
  EXPECT_NEAR(p.power_mean_w, 500, 1e-9);  // 500 J over 1 s
  EXPECT_NEAR(p.energy_j, 500, 1e-9);
  EXPECT_NEAR(p.energy_window_s, 1.0, 1e-12);
  EXPECT_TRUE(has(p.power_mean_method, "nvmlDeviceGetTotalEnergyConsumption"));
  // A counter that starts again (driver reload) loses that step, not the whole window.
  std::vector<RawSample> reset = v;
  for (size_t i = 30; i < reset.size(); ++i) reset[i].energy_mj = 5000 + 10000ull * (i - 30);  // from 5 J again
  PowerSummary pr = summarize(reset);
  EXPECT_NEAR(pr.energy_j, 500 - 10, 1e-9);  // the 10 J of the step across the reset are dropped
  // Under 0.5 s of counter readings: the mean of the instantaneous readings.
  PowerSummary shrt = summarize(v, 0, 0.3);
  EXPECT_TRUE(std::isnan(shrt.energy_j));
  EXPECT_TRUE(has(shrt.power_mean_method, "mean of 16 instantaneous readings"));
  // No instantaneous field (an older driver): the averages stand in, and the note says what they are.
  for (RawSample& r : v) r.power_instant_ok = false;
  PowerSummary avg = summarize(v);
  EXPECT_DOUBLE_EQ(avg.power_max_w, 500);
  EXPECT_TRUE(has(avg.power_max_method, "1-second average"));
  auto rows = observed_rows(avg);
  bool seen = false;
  for (auto& o : rows)
    if (o.metric == "power_max_w") {
      seen = true;
      EXPECT_TRUE(has(o.note, "understated"));
    }
  EXPECT_TRUE(seen);
}

// NVML's field values are read by their value type (the driver chooses it per field).
TEST(GpuPower, NvmlFieldValueByType) {
  using rigcheck::nvml::FieldValue;
  FieldValue f;
  f.nvml_return = 0;
  f.value_type = 1;  // unsigned int
  const unsigned mw = 688123;
  std::memcpy(f.value, &mw, sizeof mw);
  EXPECT_DOUBLE_EQ(rigcheck::nvml::field_as_double(f), 688123);
  f.value_type = 0;  // double
  const double d = 412.5;
  std::memcpy(f.value, &d, sizeof d);
  EXPECT_DOUBLE_EQ(rigcheck::nvml::field_as_double(f), 412.5);
  f.value_type = 3;  // unsigned long long
  const unsigned long long ull = 1ull << 40;
  std::memcpy(f.value, &ull, sizeof ull);
  EXPECT_DOUBLE_EQ(rigcheck::nvml::field_as_double(f), static_cast<double>(ull));
  f.value_type = 5;  // signed int
  const int si = -3;
  std::memcpy(f.value, &si, sizeof si);
  EXPECT_DOUBLE_EQ(rigcheck::nvml::field_as_double(f), -3);
  f.value_type = 42;  // unknown
  EXPECT_TRUE(std::isnan(rigcheck::nvml::field_as_double(f)));
  f.value_type = 1;
  f.nvml_return = 3;  // NVML_ERROR_NOT_SUPPORTED for this field
  EXPECT_TRUE(std::isnan(rigcheck::nvml::field_as_double(f)));
  EXPECT_EQ(rigcheck::nvml::clock_event_reason_names(0x22), "applications_clocks_setting+sw_thermal_slowdown");
}

TEST(GpuPower, RaplCounterText) {
  using namespace rigcheck::gpu;
  EXPECT_DOUBLE_EQ(parse_rapl_uj("123456789\n"), 123.456789);
  EXPECT_THROW(parse_rapl_uj(""), std::invalid_argument);
  EXPECT_THROW(parse_rapl_uj("12 34"), std::invalid_argument);
  EXPECT_THROW(parse_rapl_uj("-5"), std::invalid_argument);
  EXPECT_DOUBLE_EQ(rapl_delta_j(10, 15, 100), 5);
  EXPECT_DOUBLE_EQ(rapl_delta_j(95, 3, 100), 8);  // the counter wrapped
}

// ------------------------------------------------------------------ verdicts
TEST(GpuVerdicts, NoGpuSaysWhatIsMissingExceptTheGuideError) {
  auto vs = report(copy_run("good"));
  for (const char* id : {"GPU-1", "GPU-3", "GPU-4", "GPU-5", "PWR-1", "PWR-2", "THM-1"}) {
    const Verdict& v = verdict_of(vs, id);
    EXPECT_EQ(v.verdict, Outcome::not_measurable) << id;
    EXPECT_TRUE(has(v.reason, "gpu_count>=1 (this machine: 0)")) << id << ": " << v.reason;
  }
  const Verdict& gpu2 = verdict_of(vs, "GPU-2");
  EXPECT_EQ(gpu2.verdict, Outcome::refuted);
  EXPECT_TRUE(has(gpu2.reason, "no NVIDIA T100"));
  EXPECT_TRUE(has(gpu2.evidence, "memory_gb = 10"));
  EXPECT_FALSE(gpu2.measured.ok());  // a datasheet figure is never shown as measured
  EXPECT_TRUE(has(verdict_of(vs, "GPU-3").evidence, "NVIDIA GeForce RTX 3090 71.00 / NVIDIA GeForce RTX 2080 Ti 53.80"));
  EXPECT_TRUE(has(verdict_of(vs, "THM-1").reason, "room temperature"));
}

TEST(GpuVerdicts, SyntheticH200Run) {
  auto vs = report(copy_run("gpu_h200_synthetic"));
  const Verdict& g3 = verdict_of(vs, "GPU-3");
  EXPECT_EQ(g3.verdict, Outcome::refuted) << g3.reason;  // same-tier datasheet ratios 1.1x..1.9x, not 3x
  EXPECT_TRUE(has(g3.reason, "judged from the datasheets"));
  EXPECT_TRUE(has(g3.evidence, "f16 GEMM n=8192 760.0 TFLOP/s measured = 76.8% of its datasheet 989.5"));
  const Verdict& g4 = verdict_of(vs, "GPU-4");
  EXPECT_EQ(g4.verdict, Outcome::not_measurable);
  EXPECT_TRUE(has(g4.evidence, "bf16 n=8192 765.0 TFLOP/s = 77.3% of datasheet 989.5")) << g4.evidence;
  EXPECT_TRUE(has(g4.evidence, "fp8_e4m3 n=8192 1300 TFLOP/s = 65.7% of datasheet 1979"));
  EXPECT_EQ(verdict_of(vs, "GPU-5").verdict, Outcome::confirmed);
  const Verdict& p1 = verdict_of(vs, "PWR-1");
  EXPECT_EQ(p1.verdict, Outcome::not_measurable);  // an H200, not an A100
  EXPECT_DOUBLE_EQ(p1.measured.value, 688);
  EXPECT_TRUE(has(p1.evidence, "tdp_w = 700"));
  const Verdict& p2 = verdict_of(vs, "PWR-2");
  EXPECT_EQ(p2.verdict, Outcome::refuted);
  EXPECT_DOUBLE_EQ(p2.measured.value, 4 * 688 + 240);
  EXPECT_EQ(verdict_label(p2), "refuted (predicted)");  // four GPUs from one: an extrapolation
  EXPECT_EQ(verdict_label(g3), "refuted (datasheet)");
  EXPECT_EQ(verdict_label(verdict_of(vs, "GPU-5")), "confirmed (datasheet)");
  EXPECT_EQ(verdict_label(verdict_of(vs, "GPU-2")), "refuted (datasheet)");
  const Verdict& t1 = verdict_of(vs, "THM-1");
  EXPECT_EQ(t1.verdict, Outcome::not_measurable);
  EXPECT_DOUBLE_EQ(t1.measured.value, 61);
  EXPECT_TRUE(has(t1.evidence, "thermal slowdown in 0% of samples"));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;  // light CNN 1.2 GB is not within 25% of 2 GB
  EXPECT_TRUE(has(g1.evidence, "resnet50: guide 8 GB, peak reserved amp 5.1 GB"));
  EXPECT_TRUE(has(g1.reason, "gpt2_xl (not measured"));
  EXPECT_EQ(verdict_of(vs, "GPU-2").verdict, Outcome::refuted);
}

TEST(GpuVerdicts, PowerOfAnA100SystemAgainst500W) {
  std::string dir = copy_run("gpu_h200_synthetic");
  std::string inv = dir + "/inventory.csv";
  std::stringstream ss;
  ss << std::ifstream(inv).rdbuf();
  std::ofstream(inv) << std::regex_replace(ss.str(), std::regex("gpu0_name,NVIDIA H200"), "gpu0_name,NVIDIA A100-SXM4-80GB");
  auto vs = report(dir);
  const Verdict& p1 = verdict_of(vs, "PWR-1");
  EXPECT_EQ(p1.verdict, Outcome::refuted) << p1.reason;  // 688 + 240 W > 500 W
  EXPECT_TRUE(has(p1.reason, "= 928.0 W"));
  EXPECT_TRUE(has(p1.evidence, "NVIDIA A100 SXM4 80GB tdp_w = 400"));
}

// ------------------------------------------------------------------ GPU-1 with models that do not fit
namespace {
// The synthetic H200 run with every measured model within 25% of the guide, and GPT-2 XL as given.
std::string gpu1_run(const std::string& gpt2_rows) {
  std::string dir = copy_run("gpu_h200_synthetic");
  const std::string f = dir + "/gpu_model_memory.csv";
  replace_in(f, "light_cnn;precision=fp32;batch=16,peak_reserved_bytes,1.2e9", "light_cnn;precision=fp32;batch=16,peak_reserved_bytes,1.9e9");
  replace_in(f, "\n1,synthetic,model_memory,gpt2_xl/fp32/b16,[^\n]*\n", "\n");
  append(f, gpt2_rows);
  return dir;
}
const char* kGpt2Skip = "1,synthetic,model_memory,gpt2_xl/{p}/b16,model=gpt2_xl;precision={p};batch=16,,,,-1,skipped,synthetic: does not fit\n";
std::string gpt2(const std::string& precision, const std::string& metric, double value) {
  std::string skip = std::regex_replace(kGpt2Skip, std::regex("\\{p\\}"), precision);
  return skip + fmt::format("1,synthetic,model_memory,gpt2_xl/{0}/b16,model=gpt2_xl;precision={0};batch=16,{1},{2},bytes,-1,skipped,synthetic\n",
                            precision, metric, value);
}
}  // namespace

TEST(GpuVerdicts, Gpu1ModelThatDoesNotFitIsAMeasuredLowerBound) {
  // A real out-of-memory failure in mixed precision after 139 GB allocated: the step needs more than
  // the guide's 24 GB + 25%, measured.
  auto vs = report(gpu1_run(gpt2("fp32", "estimate_bytes", 296e9) + gpt2("amp", "oom_lower_bound_bytes", 139e9) +
                            gpt2("amp", "device_memory_bytes", 143.8e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::measured);
  EXPECT_TRUE(has(g1.evidence, "gpt2_xl: guide 24.00 GB, out of memory at batch 16 (amp) after 139.0 GB allocated of the device's 143.8 GB")) << g1.evidence;
  EXPECT_TRUE(has(g1.reason, "3 of 4 model(s) within, 1 beyond by measurement, 0 beyond by the estimate alone")) << g1.reason;
}

TEST(GpuVerdicts, Gpu1EstimateAloneIsPredicted) {
  // Not tried: the zoo's estimate (296 GB) is over 1.5x the device. The refutation rests on it alone.
  auto vs = report(gpu1_run(gpt2("fp32", "estimate_bytes", 296e9) + gpt2("fp32", "device_memory_bytes", 143.8e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::refuted) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::predicted);
  EXPECT_EQ(verdict_label(g1), "refuted (predicted)");
  EXPECT_TRUE(has(g1.evidence, "not tried (fp32): the zoo's estimate 296.0 GB is over 1.5x the device's 143.8 GB (predicted)")) << g1.evidence;
}

TEST(GpuVerdicts, Gpu1LowerBoundBelowTheGuideDecidesNothing) {
  // A 16 GB GPU runs out after 15 GB: the step needs more than 15 GB, which does not contradict 24 GB.
  auto vs = report(gpu1_run(gpt2("amp", "oom_lower_bound_bytes", 15e9)));
  const Verdict& g1 = verdict_of(vs, "GPU-1");
  EXPECT_EQ(g1.verdict, Outcome::inconclusive) << g1.reason;
  EXPECT_EQ(g1.basis, Basis::measured);
  EXPECT_TRUE(has(g1.reason, "1 undecided"));
}

// ------------------------------------------------------------------ what each verdict rests on
// Issue 19 item 8: every evaluator over every fixture run says what a judged verdict rests on
// (evaluate_claim would throw otherwise), and the GPU claims that rest on datasheets or on an
// extrapolation say so.
TEST(GpuVerdicts, EveryJudgedVerdictOfEveryFixtureRunStatesItsBasis) {
  int runs = 0, judged = 0;
  for (const auto& e : fs::directory_iterator(fs::path(RIGCHECK_FIXTURES) / "runs")) {
    if (!e.is_directory()) continue;
    ++runs;
    std::vector<Verdict> vs;
    ASSERT_NO_THROW(vs = report(copy_run(e.path().filename().string()))) << e.path();
    for (const Verdict& v : vs) {
      if (!is_judged(v.verdict)) continue;
      ++judged;
      EXPECT_NE(v.basis, Basis::none) << e.path().filename() << " " << v.claim_id;
    }
    for (const Verdict& v : vs) {
      if (!is_judged(v.verdict)) continue;
      if (v.claim_id == "GPU-2" || v.claim_id == "GPU-3" || v.claim_id == "GPU-5") {
        EXPECT_EQ(v.basis, Basis::datasheet) << e.path().filename() << " " << v.claim_id;
      } else if (v.claim_id == "PWR-2") {
        EXPECT_EQ(v.basis, Basis::predicted) << e.path().filename();
      } else if (v.claim_id == "PWR-1") {
        EXPECT_EQ(v.basis, Basis::measured) << e.path().filename();
      }
    }
  }
  EXPECT_GE(runs, 5);
  EXPECT_GT(judged, 10);
}

TEST(GpuVerdicts, AJudgedVerdictWithoutABasisIsAnError) {
  register_evaluator("TEST-NO-BASIS", [](const Claim&, const RunData&) {
    Verdict v;
    v.verdict = Outcome::confirmed;  // and no basis
    return v;
  });
  register_evaluator("TEST-PREDICTED", [](const Claim&, const RunData&) {
    Verdict v;
    v.verdict = Outcome::predicted;
    return v;
  });
  Claim c;
  c.id = "TEST-NO-BASIS";
  RunData run;
  EXPECT_THROW(evaluate_claim(c, run), std::logic_error);
  c.id = "TEST-PREDICTED";
  EXPECT_EQ(evaluate_claim(c, run).basis, Basis::predicted);
}
