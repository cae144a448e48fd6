// check_gemm (kernels.hpp): every element of a GEMM against OpenBLAS dgemm in double, with the
// reference kept for the next check of the same inputs.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kernels.hpp"

extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

namespace rigcheck::cpu {

namespace {
// The double-precision reference of check_gemm (A*op(B) and |A|*|op(B)|), kept for the next check
// of the same inputs: cases that differ only in threads or in the library that computes them share
// their inputs (same seeds), and two dgemm of 2048^3 in double with their copies are about a second
// per check on 2 vCPUs. Kept with a copy of its inputs, compared with the next check's element by element.
struct GemmReference {
  int64_t m = 0, n = 0, k = 0;
  bool b_transposed = false;
  std::vector<float> a, b;  // the inputs it was computed from, compared element by element
  std::vector<double> ref, mag;
};

// `reused`: whether the reference kept from an earlier check was returned.
const GemmReference& gemm_reference(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                                    int64_t k, bool b_transposed, bool& reused) {
  static GemmReference kept;
  reused = kept.m == m && kept.n == n && kept.k == k && kept.b_transposed == b_transposed && kept.a == a && kept.b == b;
  if (reused) return kept;
  kept = GemmReference{};  // the previous one's memory first
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
  std::vector<double> aa(ad.size()), ba(bd.size());
  std::transform(ad.begin(), ad.end(), aa.begin(), [](double x) { return std::fabs(x); });
  std::transform(bd.begin(), bd.end(), ba.begin(), [](double x) { return std::fabs(x); });
  std::vector<double> ref(static_cast<size_t>(m * n)), mag(static_cast<size_t>(m * n));
  const int saved = openblas_get_num_threads();
  openblas_set_num_threads(omp_get_num_procs());
  auto tb = b_transposed ? CblasTrans : CblasNoTrans;
  const int64_t ldb = b_transposed ? k : n;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, tb, m, n, k, 1.0, ad.data(), k, bd.data(), ldb, 0.0, ref.data(), n);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, tb, m, n, k, 1.0, aa.data(), k, ba.data(), ldb, 0.0, mag.data(), n);
  openblas_set_num_threads(saved);
  kept = GemmReference{m, n, k, b_transposed, a, b, std::move(ref), std::move(mag)};
  return kept;
}
}  // namespace

CheckResult check_gemm(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c, int64_t m,
                       int64_t n, int64_t k, bool b_transposed, const std::vector<float>* bias, double u) {
  bool reused = false;
  const GemmReference& gr = gemm_reference(a, b, m, n, k, b_transposed, reused);
  const std::vector<double>&ref = gr.ref, &mag = gr.mag;
  const double gamma = (k + 1) * u / (1 - (k + 1) * u);  // +1: the bias addition
  CheckResult r;
  r.method =
      fmt::format("every element vs OpenBLAS dgemm in double, tolerance (K+1)u/(1-(K+1)u)*(|A||B|+|bias|), u=2^{}",
                  static_cast<int>(std::lround(std::log2(u))));
  if (reused) r.method += " (the dgemm of an earlier case whose A and B equal these element by element)";
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      size_t idx = static_cast<size_t>(i * n + j);
      double expect = ref[idx], bound = mag[idx];
      if (bias) {
        expect += (*bias)[static_cast<size_t>(j)];
        bound += std::fabs((*bias)[static_cast<size_t>(j)]);
      }
      double tol = gamma * bound + 1e-30;
      double err = std::fabs(static_cast<double>(c[idx]) - expect);
      if (!std::isfinite(c[idx])) err = INFINITY;
      r.add(err / tol);
    }
  return r;
}

}  // namespace rigcheck::cpu
