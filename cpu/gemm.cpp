// cpu_gemm: thread scaling of f32 GEMM (claim CPU-1). oneDNN matmul and inner product (a fully
// connected layer), plus oneDNN's and OpenBLAS's sgemm so the report can name the fastest GEMM
// this machine offers. Parallel efficiency E(n) = X(n) / (n X(1)) is derived in the report from
// each side's fastest repetition: the thread counts of one size alternate (Case::interleave).
#include <fmt/format.h>

#include "kernels.hpp"
#include "rigcheck/harness/repetitions.hpp"

namespace rigcheck::cpu {
namespace {

std::vector<int64_t> gemm_sizes(const CommonOptions& o) {
  if (!o.sizes.empty()) return o.sizes;
  switch (o.profile) {
    case Profile::tiny: return {256};
    case Profile::quick: return {2048};
    case Profile::full: return {1024, 2048, 4096};
  }
  return {2048};
}

// One case per thread count of one f32 GEMM shape: `shape` names it ("m2048n2048k2048"), `dims` are its
// sizes as params, make(threads) builds its kernel; the thread counts alternate per repetition under
// `interleave` (E(n) from the fastest repetition of each).
template <typename Make>
void add_thread_cases(std::vector<Case>& cs, const CommonOptions& o, const std::string& shape, const Params& dims,
                      const Work& work, const std::string& interleave, Make make) {
  for (int64_t t : default_threads(o)) {
    Case c;
    c.name = fmt::format("{}/t{}", shape, t);
    c.params = dims;
    c.params.insert(c.params.end(), {{"dtype", "f32"}, {"threads", std::to_string(t)}});
    c.work = work;
    c.threads = static_cast<int>(t);
    c.make = [t, make] { return make(static_cast<int>(t)); };
    c.interleave = interleave;
    cs.push_back(std::move(c));
  }
}

// The cases of a square GEMM (M = N = K, each size of the profile) made by make(size, threads).
template <typename Make>
std::vector<Case> square_cases(const CommonOptions& o, Make make) {
  std::vector<Case> cs;
  for (int64_t s : gemm_sizes(o)) {
    const std::string n = std::to_string(s);
    Work w;
    w.flops = 2.0 * s * s * s;
    w.bytes = 4.0 * 3 * s * s;  // compulsory traffic: A, B read and C written once
    add_thread_cases(cs, o, fmt::format("m{}n{}k{}", s, s, s), {{"m", n}, {"n", n}, {"k", n}}, w, fmt::format("m{}", s),
                     [s, make](int t) { return make(s, t); });
  }
  return cs;
}

const bool reps_defaults = register_repetition_defaults({3, 5, 10}, kShortQuickMinTimeS);

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_cpu_gemm =
    declare_entry({"cpu_gemm", "cpu", "", "", "", 120, 300, 3600,
                   "GEMM thread scaling: oneDNN matmul, inner product, dnnl_sgemm, OpenBLAS sgemm (CPU-1)", true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row =
    declare_doc({"",
                 R"(f32 GEMM thread scaling 1..cores: oneDNN matmul (2048^3), oneDNN inner product (fully connected
64x4096x4096), oneDNN `dnnl_sgemm`, OpenBLAS `cblas_sgemm`; the thread counts of a size interleaved
repetition by repetition in one process, parallel efficiency E(n) from the fastest interleaved
repetitions)",
                 "CPU-1"});

const bool matmul = register_benchmark(
    {names::kGemmMatmul, "oneDNN matmul f32, square M=N=K, threads 1..cores", [](const CommonOptions& o) {
       return square_cases(o, [](int64_t s, int) { return make_onednn_matmul(s, s, s, DType::f32); });
     }});

const bool sgemm_onednn = register_benchmark(
    {names::kGemmSgemmOnednn, "oneDNN dnnl_sgemm (its BLAS-style GEMM), square", [](const CommonOptions& o) {
       return square_cases(o, [](int64_t s, int) { return make_onednn_sgemm(s, s, s); });
     }});

const bool sgemm_openblas =
    register_benchmark({names::kGemmSgemmOpenblas, "OpenBLAS cblas_sgemm, square (kernel per OPENBLAS_CORETYPE)",
                        [](const CommonOptions& o) {
                          return square_cases(o, [](int64_t s, int) { return make_openblas_sgemm(s, s, s); });
                        }});

const bool fc = register_benchmark(
    {names::kFcInnerProduct, "oneDNN inner product (fully connected layer) f32, batch x in -> out",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int64_t batch = 64, features = o.profile == Profile::tiny ? 256 : 4096;
       Work w;
       w.flops = 2.0 * batch * features * features;
       w.bytes = 4.0 * (batch * features * 2 + features * features);
       const std::string f = std::to_string(features);
       add_thread_cases(cs, o, fmt::format("b{}i{}o{}", batch, features, features),
                        {{"batch", std::to_string(batch)}, {"in", f}, {"out", f}}, w, "threads",
                        [=](int) { return make_onednn_inner_product(batch, features, features, DType::f32); });
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::cpu
