// cpu_peak: the CPU's f32 peak, measured by the suite's own FMA kernel per ISA and thread count,
// so that every GEMM figure can be shown as a share of what this machine really sustains.
// Each thread runs independent chains of vector FMAs (c = c*a + b), enough to cover the FMA
// latency on every current core; the result is compared bit for bit with scalar std::fma.
#include <immintrin.h>
#include <omp.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::cpu {
namespace {

constexpr int kChains = 12;  // independent accumulators per thread (>= latency x FMA pipes)

// Runs `iters` rounds of kChains vector FMAs on acc (kChains x lanes floats).
__attribute__((target("avx2,fma"))) void fma_avx2(float* acc, float a, float b, int64_t iters) {
  __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  __m256 c[kChains];
  for (int j = 0; j < kChains; ++j) c[j] = _mm256_loadu_ps(acc + 8 * j);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 32
    for (int j = 0; j < kChains; ++j) c[j] = _mm256_fmadd_ps(c[j], va, vb);
  for (int j = 0; j < kChains; ++j) _mm256_storeu_ps(acc + 8 * j, c[j]);
}

constexpr int kChains512 = 24;  // 32 zmm registers: more chains for wider, deeper pipes

__attribute__((target("avx512f"))) void fma_avx512(float* acc, float a, float b, int64_t iters) {
  __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 c[kChains512];
  for (int j = 0; j < kChains512; ++j) c[j] = _mm512_loadu_ps(acc + 16 * j);
  for (int64_t i = 0; i < iters; ++i)
#pragma GCC unroll 32
    for (int j = 0; j < kChains512; ++j) c[j] = _mm512_fmadd_ps(c[j], va, vb);
  for (int j = 0; j < kChains512; ++j) _mm512_storeu_ps(acc + 16 * j, c[j]);
}

struct Isa {
  const char* name;
  int lanes;
  int chains;
  void (*fn)(float*, float, float, int64_t);
  bool (*supported)();
};

const Isa kIsas[] = {
    {"avx2", 8, kChains, fma_avx2, [] { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }},
    {"avx512", 16, kChains512, fma_avx512, [] { return static_cast<bool>(__builtin_cpu_supports("avx512f")); }},
};

class FmaPeak final : public Kernel {
 public:
  FmaPeak(const Isa& isa, int threads, int64_t iters) : isa_(isa), threads_(threads), iters_(iters) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> d(0.5f, 1.0f);
    init_.resize(static_cast<size_t>(threads) * isa.lanes * isa.chains);
    for (float& x : init_) x = d(gen);
    a_ = 0.999f + 0.0005f * d(gen);  // |a| < 1: the chains converge, never overflow or go subnormal
    b_ = 0.25f * d(gen);
    acc_ = init_;
  }
  void run() override { sweep(iters_); }
  CheckResult check() override {
    const int64_t iters = 1000;
    acc_ = init_;
    sweep(iters);
    CheckResult r;
    r.method = fmt::format("every lane after {} FMA rounds vs scalar std::fma, bit-exact", iters);
    for (size_t i = 0; i < init_.size(); ++i) {
      float ref = init_[i];
      for (int64_t k = 0; k < iters; ++k) ref = std::fma(ref, a_, b_);
      ++r.checked;
      if (ref != acc_[i]) {
        ++r.wrong;
        r.worst = INFINITY;
      }
    }
    return r;
  }
  Params facts() const override { return {{"chains", std::to_string(isa_.chains)}}; }

 private:
  void sweep(int64_t iters) {
    const size_t per = static_cast<size_t>(isa_.lanes) * isa_.chains;
#pragma omp parallel num_threads(threads_)
    isa_.fn(acc_.data() + per * static_cast<size_t>(omp_get_thread_num()), a_, b_, iters);
  }
  const Isa& isa_;
  int threads_;
  int64_t iters_;
  float a_, b_;
  std::vector<float> init_, acc_;
};

const bool peak = register_benchmark(
    {names::kFmaPeak, "the suite's own f32 FMA throughput kernel per ISA and thread count",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int64_t iters = o.profile == Profile::tiny ? 1 << 14 : 1 << 20;
       for (const Isa& isa : kIsas)
         for (int64_t t : default_threads(o)) {
           Case c;
           c.name = fmt::format("{}/t{}", isa.name, t);
           c.params = {{"isa", isa.name}, {"threads", std::to_string(t)}, {"dtype", "f32"}};
           c.threads = static_cast<int>(t);
           c.work.flops = 2.0 * isa.lanes * isa.chains * static_cast<double>(iters) * static_cast<double>(t);
           const Isa* ip = &isa;
           c.make = [ip, t, iters]() -> std::unique_ptr<Kernel> {
             if (!ip->supported()) throw Skip(fmt::format("this CPU lacks {} (cpuid)", ip->name));
             return std::make_unique<FmaPeak>(*ip, static_cast<int>(t), iters);
           };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::cpu
