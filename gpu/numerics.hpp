// Number formats of the GPU GEMM benchmark, host side only (no CUDA): random inputs exactly
// representable in each format, encoders/decoders of their bits, and the error bound each
// output is checked against (docs/methodology.md, section gpu). Unit-tested without a GPU.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace rigcheck::gpu {

enum class Dtype { f32, tf32, f16, bf16, fp8_e4m3 };

struct DtypeInfo {
  Dtype dtype;
  const char* name;
  int in_bytes;   // bytes of one A or B element in memory
  int out_bytes;  // bytes of one output element
  const char* out_name;
  int mantissa_bits;  // stored mantissa bits of the inputs (the generator keeps only these)
  double u_in;        // relative rounding of the inputs by the unit itself (tf32: f32 data cut to 10 bits)
  double u_acc;       // unit roundoff of the accumulator
  int acc_chunk;      // > 0: the accumulator has u_acc only within chunks of this many products,
                      // which are then added in f32 (fp8 on Hopper, cuBLASLt's default slow accumulation)
  double u_out;       // rounding of the output to its format (0: the output is the f32 accumulator)
};

inline const DtypeInfo& info(Dtype d) {
  // Tensor-core adders are not IEEE round-to-nearest: 2^-23 (truncation) instead of 2^-24.
  static const DtypeInfo t[] = {
      {Dtype::f32, "f32", 4, 4, "f32", 23, 0.0, 0x1p-24, 0, 0.0},
      {Dtype::tf32, "tf32", 4, 4, "f32", 23, 0x1p-10, 0x1p-23, 0, 0.0},
      {Dtype::f16, "f16", 2, 2, "f16", 10, 0.0, 0x1p-23, 0, 0x1p-11},
      {Dtype::bf16, "bf16", 2, 2, "bf16", 7, 0.0, 0x1p-23, 0, 0x1p-8},
      {Dtype::fp8_e4m3, "fp8_e4m3", 1, 2, "bf16", 3, 0.0, 0x1p-13, 128, 0x1p-8},
  };
  return t[static_cast<int>(d)];
}

// gamma_n = n u / (1 - n u): the worst-case relative error of n floating-point operations.
inline double gamma_n(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : INFINITY; }

// Bound on |computed - exact| of one output C_ij = sum_k A_ik B_kj of length K, given
// sum_abs = sum_k |A_ik| |B_kj| and the exact value (both in double, from the inputs as stored):
//   e1 = ((1 + u_in)^2 (1 + g) - 1) sum_abs,  g = gamma_(K+1)(u_acc)
//        (chunked: g = gamma_(chunk+1)(u_acc) + gamma_(K/chunk+1)(2^-24))
//   bound = e1 + u_out (|exact| + e1)
inline double gemm_error_bound(const DtypeInfo& d, int64_t K, double sum_abs, double exact) {
  double g;
  if (d.acc_chunk > 0 && K > d.acc_chunk) {
    double chunks = std::ceil(static_cast<double>(K) / d.acc_chunk);
    g = gamma_n(d.acc_chunk + 1, d.u_acc) + gamma_n(chunks + 1, 0x1p-24) * (1 + gamma_n(d.acc_chunk + 1, d.u_acc));
  } else {
    g = gamma_n(static_cast<double>(K) + 1, d.u_acc);
  }
  const double e1 = ((1 + d.u_in) * (1 + d.u_in) * (1 + g) - 1) * sum_abs;
  return e1 + d.u_out * (std::fabs(exact) + e1);
}

// cuBLASLt's split-K reduction schemes (cublasLtReductionScheme_t; gemm.cu checks the values):
// where the partial sums of a K split into S slices are added. NONE: no split; COMPUTE_TYPE: in a
// workspace of the f32 compute type; INPLACE and OUTPUT_TYPE: rounded to the output type (bf16,
// f16) and added in it.
inline constexpr uint32_t kReduceNone = 0, kReduceInplace = 1, kReduceComputeType = 2, kReduceOutputType = 4;
// The schemes gpu_gemm lets cuBLASLt choose (CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK): partial
// sums in f32 only, for which gemm_error_bound holds whatever the split (its gamma_(K+1) covers any
// order of the K additions). INPLACE and OUTPUT_TYPE round each partial sum to the output type,
// which gemm_error_bound does not count (gemm_error_bound_output_partials does).
inline constexpr uint32_t kAllowedReductionSchemes = kReduceNone | kReduceComputeType;

// The bound when the K products are split into S slices, each slice's sum (f32, as above) rounded
// to the output type and the S results added in the output type (cuBLAS's reduced-precision
// split-K, which LibTorch allows for 16-bit types by default):
//   e1 + gamma_S(u_out) (1 + u_in)^2 (1 + g) sum_abs
// (each of the S roundings of a partial and the S - 1 additions costs at most u_out of the
// magnitudes summed, and sum |partial| <= (1 + u_in)^2 (1 + g) sum_abs). S <= 1: gemm_error_bound.
inline double gemm_error_bound_output_partials(const DtypeInfo& d, int64_t K, double sum_abs, double exact,
                                               int slices) {
  if (slices <= 1) return gemm_error_bound(d, K, sum_abs, exact);
  const double g = gamma_n(static_cast<double>(K) + 1, d.u_acc);
  const double e1 = ((1 + d.u_in) * (1 + d.u_in) * (1 + g) - 1) * sum_abs;
  return e1 + gamma_n(slices, d.u_out) * (1 + d.u_in) * (1 + d.u_in) * (1 + g) * sum_abs;
}

// splitmix64: a fast, reproducible stream for large inputs.
inline uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

inline uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
inline float f32_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// A random value, uniform in magnitude over [1/64, 1), random sign (never 0), with only
// `mantissa_bits` mantissa bits kept (cut, not rounded): exactly representable in f32, f16,
// bf16 and fp8 e4m3 alike when mantissa_bits is theirs (no subnormals: 1/64 = 2^-6 is e4m3's
// smallest normal).
inline float random_input(uint64_t& state, int mantissa_bits) {
  const uint64_t r = splitmix64(state);
  const double u = (r >> 11) * 0x1p-53;  // [0, 1)
  float x = static_cast<float>(1.0 / 64 + (1 - 1.0 / 64) * u);
  if (x >= 1.0f) x = std::nextafter(1.0f, 0.0f);
  uint32_t b = f32_bits(x) & ~((1u << (23 - mantissa_bits)) - 1u);
  if (r & 1) b |= 0x80000000u;
  return f32_from_bits(b);
}

// Exact encoders for values made by random_input (normal, |x| in [2^-6, 1), mantissa cut).
inline uint16_t bf16_encode_exact(float x) { return static_cast<uint16_t>(f32_bits(x) >> 16); }
inline uint16_t f16_encode_exact(float x) {
  const uint32_t b = f32_bits(x);
  const uint32_t sign = (b >> 31) & 1, exp = (b >> 23) & 0xFF, man = b & 0x7FFFFF;
  return static_cast<uint16_t>((sign << 15) | ((exp - 127 + 15) << 10) | (man >> 13));
}
inline uint8_t e4m3_encode_exact(float x) {
  const uint32_t b = f32_bits(x);
  const uint32_t sign = (b >> 31) & 1, exp = (b >> 23) & 0xFF, man = b & 0x7FFFFF;
  return static_cast<uint8_t>((sign << 7) | ((exp - 127 + 7) << 3) | (man >> 20));
}

// Decoders of any bit pattern (subnormals, infinities and NaN included).
inline double bf16_decode(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }
inline double f16_decode(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(man, -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(1024 + man, exp - 25);
  return sign ? -v : v;
}
inline double e4m3_decode(uint8_t q) {
  const int sign = q >> 7, exp = (q >> 3) & 0xF, man = q & 7;
  double v;
  if (exp == 15 && man == 7)
    v = NAN;  // e4m3 (OCP "fn"): no infinities, one NaN per sign
  else if (exp == 0)
    v = std::ldexp(man, -9);
  else
    v = std::ldexp(8 + man, exp - 10);
  return sign ? -v : v;
}

// Decodes one stored element of the given width and format name ("f32", "f16", "bf16", "fp8_e4m3").
inline double decode(const std::string& fmt, const void* p) {
  if (fmt == "f32" || fmt == "tf32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h = 0;
  if (fmt == "f16" || fmt == "bf16") std::memcpy(&h, p, 2);
  if (fmt == "f16") return f16_decode(h);
  if (fmt == "bf16") return bf16_decode(h);
  return e4m3_decode(*static_cast<const uint8_t*>(p));
}

}  // namespace rigcheck::gpu
