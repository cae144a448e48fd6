// cpu_peak: the CPU's f32 peak, measured by the suite's own FMA kernel per ISA and thread count,
// so that every GEMM figure can be shown as a share of what this machine really sustains.
// Each thread runs independent chains of vector FMAs (c = c*a + b), enough to cover the FMA
// latency on every current core; the result is compared bit for bit with scalar std::fma.
// The kernels per ISA (AVX2, AVX-512 on x86-64; NEON, SVE on aarch64) are in peak_<isa>.cpp
// behind one table (peak_isa.hpp); this file is the same for every ISA.
#include <omp.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "peak_isa.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/repetitions.hpp"

namespace rigcheck::cpu {
namespace {

class FmaPeak final : public Kernel {
 public:
  FmaPeak(const FmaIsa& isa, int lanes, int threads, int64_t iters)
      : isa_(isa), lanes_(lanes), threads_(threads), iters_(iters) {
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> d(0.5f, 1.0f);
    init_.resize(static_cast<size_t>(threads) * lanes * isa.chains);
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
  Params facts() const override {
    Params p = {{"chains", std::to_string(isa_.chains)}};
    if (isa_.scalable) p.push_back({"vector_bits", std::to_string(32 * lanes_)});  // SVE: read at run time
    return p;
  }

 private:
  void sweep(int64_t iters) {
    const size_t per = static_cast<size_t>(lanes_) * isa_.chains;
#pragma omp parallel num_threads(threads_)
    isa_.fn(acc_.data() + per * static_cast<size_t>(omp_get_thread_num()), a_, b_, iters);
  }
  const FmaIsa& isa_;
  int lanes_;
  int threads_;
  int64_t iters_;
  float a_, b_;
  std::vector<float> init_, acc_;
};

const bool reps_defaults = register_repetition_defaults({3, 5, 10}, kShortQuickMinTimeS);

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_cpu_peak = declare_entry({"cpu_peak", "cpu", "", "", "", 60, 120, 600,
                                           "f32 FMA peak per ISA and thread count (the suite's own kernel)", true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(f32 FMA peak per ISA (AVX2, AVX-512; NEON and SVE on aarch64, docs/arm.md) and thread count, the suite's
own kernel)",
     "the \"% of peak\" column"});

const bool peak = register_benchmark(
    {names::kFmaPeak, "the suite's own f32 FMA throughput kernel per ISA and thread count", [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int64_t iters = o.profile == Profile::tiny ? 1 << 14 : 1 << 20;
       for (const FmaIsa& isa : fma_isas())
         for (int64_t t : default_threads(o)) {
           Case c;
           c.name = fmt::format("{}/t{}", isa.name, t);
           c.params = {{"isa", isa.name}, {"threads", std::to_string(t)}, {"dtype", "f32"}};
           c.threads = static_cast<int>(t);
           // An ISA this CPU lacks: its lanes are not asked for (the case is skipped in make()).
           const int lanes = isa.supported() ? isa.lanes() : 0;
           c.work.flops = 2.0 * lanes * isa.chains * static_cast<double>(iters) * static_cast<double>(t);
           const FmaIsa* ip = &isa;
           c.make = [ip, lanes, t, iters]() -> std::unique_ptr<Kernel> {
             if (!ip->supported()) throw Skip(fmt::format("this CPU lacks {} ({})", ip->name, ip->detected_by));
             return std::make_unique<FmaPeak>(*ip, lanes, static_cast<int>(t), iters);
           };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::cpu
