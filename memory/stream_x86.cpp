// memory_bandwidth's kernels on x86-64 (stream_kernels.hpp): AVX-512F and AVX2, plain and
// non-temporal (_mm*_stream_pd + sfence) stores, each compiled for its ISA with a target attribute
// and run only where cpuid says the CPU has it.
#include <immintrin.h>

#include "stream_kernels.hpp"

namespace rigcheck::mem {
namespace {

template <bool NT>
__attribute__((target("avx512f"), always_inline)) inline void st(double* p, __m512d v) {
  if constexpr (NT)
    _mm512_stream_pd(p, v);
  else
    _mm512_store_pd(p, v);
}
template <bool NT>
__attribute__((target("avx2"), always_inline)) inline void st(double* p, __m256d v) {
  if constexpr (NT)
    _mm256_stream_pd(p, v);
  else
    _mm256_store_pd(p, v);
}

template <bool NT>
__attribute__((target("avx512f"))) void k512(Op op, double* a, double* b, double* c, double s, size_t i0, size_t i1) {
  const __m512d vs = _mm512_set1_pd(s);
  size_t i = i0;
  const size_t vend = i0 + (i1 - i0) / 32 * 32;
  switch (op) {
    case Op::copy:
      for (; i < vend; i += 32)
        for (int u = 0; u < 32; u += 8) st<NT>(c + i + u, _mm512_load_pd(a + i + u));
      for (; i < i1; ++i) c[i] = a[i];
      break;
    case Op::scale:
      for (; i < vend; i += 32)
        for (int u = 0; u < 32; u += 8) st<NT>(b + i + u, _mm512_mul_pd(vs, _mm512_load_pd(c + i + u)));
      for (; i < i1; ++i) b[i] = s * c[i];
      break;
    case Op::add:
      for (; i < vend; i += 32)
        for (int u = 0; u < 32; u += 8)
          st<NT>(c + i + u, _mm512_add_pd(_mm512_load_pd(a + i + u), _mm512_load_pd(b + i + u)));
      for (; i < i1; ++i) c[i] = a[i] + b[i];
      break;
    case Op::triad:
      for (; i < vend; i += 32)
        for (int u = 0; u < 32; u += 8)
          st<NT>(a + i + u, _mm512_add_pd(_mm512_load_pd(b + i + u), _mm512_mul_pd(vs, _mm512_load_pd(c + i + u))));
      for (; i < i1; ++i) a[i] = b[i] + s * c[i];
      break;
  }
  if constexpr (NT) _mm_sfence();
}

template <bool NT>
__attribute__((target("avx2"))) void k256(Op op, double* a, double* b, double* c, double s, size_t i0, size_t i1) {
  const __m256d vs = _mm256_set1_pd(s);
  size_t i = i0;
  const size_t vend = i0 + (i1 - i0) / 16 * 16;
  switch (op) {
    case Op::copy:
      for (; i < vend; i += 16)
        for (int u = 0; u < 16; u += 4) st<NT>(c + i + u, _mm256_load_pd(a + i + u));
      for (; i < i1; ++i) c[i] = a[i];
      break;
    case Op::scale:
      for (; i < vend; i += 16)
        for (int u = 0; u < 16; u += 4) st<NT>(b + i + u, _mm256_mul_pd(vs, _mm256_load_pd(c + i + u)));
      for (; i < i1; ++i) b[i] = s * c[i];
      break;
    case Op::add:
      for (; i < vend; i += 16)
        for (int u = 0; u < 16; u += 4)
          st<NT>(c + i + u, _mm256_add_pd(_mm256_load_pd(a + i + u), _mm256_load_pd(b + i + u)));
      for (; i < i1; ++i) c[i] = a[i] + b[i];
      break;
    case Op::triad:
      for (; i < vend; i += 16)
        for (int u = 0; u < 16; u += 4)
          st<NT>(a + i + u, _mm256_add_pd(_mm256_load_pd(b + i + u), _mm256_mul_pd(vs, _mm256_load_pd(c + i + u))));
      for (; i < i1; ++i) a[i] = b[i] + s * c[i];
      break;
  }
  if constexpr (NT) _mm_sfence();
}

}  // namespace

const std::vector<StreamIsa>& stream_isas() {
  static const std::vector<StreamIsa> isas = {
      {"avx512", k512<false>, k512<true>, [] { return static_cast<bool>(__builtin_cpu_supports("avx512f")); }, "cpuid"},
      {"avx2", k256<false>, k256<true>, [] { return static_cast<bool>(__builtin_cpu_supports("avx2")); }, "cpuid"},
  };
  return isas;
}

}  // namespace rigcheck::mem
