// GPU area without a GPU: the GEMM error bound and number formats (numerics.hpp), the decoding and
// summarising of power samples (power.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "numerics.hpp"
#include "power.hpp"
#include "rigcheck/harness/nvml.hpp"

namespace {
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
}  // namespace

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
  EXPECT_EQ(e4m3_decode(0x7E), 448.0);                // largest e4m3
  EXPECT_EQ(e4m3_decode(0x01), std::ldexp(1.0, -9));  // smallest subnormal
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
  EXPECT_GT(gemm_error_bound(info(Dtype::tf32), 1023, 10.0, 3.0),
            30 * gemm_error_bound(info(Dtype::f32), 1023, 10.0, 3.0));
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

TEST(GpuPower, RaplCounterText) {
  using namespace rigcheck::gpu;
  EXPECT_DOUBLE_EQ(parse_rapl_uj("123456789\n"), 123.456789);
  EXPECT_THROW(parse_rapl_uj(""), std::invalid_argument);
  EXPECT_THROW(parse_rapl_uj("12 34"), std::invalid_argument);
  EXPECT_THROW(parse_rapl_uj("-5"), std::invalid_argument);
  EXPECT_DOUBLE_EQ(rapl_delta_j(10, 15, 100), 5);
  EXPECT_DOUBLE_EQ(rapl_delta_j(95, 3, 100), 8);  // the counter wrapped
}

// cuBLASLt's split-K: partial sums kept in f32 (the only schemes gpu_gemm
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
        f32_partials = static_cast<float>(f32_partials + part);  // COMPUTE_TYPE: added in f32
        bf16_partials = to_bf16(bf16_partials + to_bf16(part));  // OUTPUT_TYPE: rounded and added in bf16
      }
      for (int k = 0; k < K; ++k) {
        exact += static_cast<double>(a[k]) * b[k];
        sum_abs += std::fabs(static_cast<double>(a[k]) * b[k]);
      }
      ASSERT_LE(std::fabs(to_bf16(f32_partials) - exact), gemm_error_bound(d, K, sum_abs, exact)) << slices;
      ASSERT_LE(std::fabs(bf16_partials - exact), gemm_error_bound_output_partials(d, K, sum_abs, exact, slices))
          << slices;
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

// The peak from the instantaneous field, the mean from the energy counter.
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
