// gpu_torch_peer: the peer the GPU figures are set beside (docs/performance.md, section gpu):
// LibTorch's own matmul (what torch.matmul calls) and tensor copy, timed exactly as gpu_gemm and
// gpu_transfer time theirs (k back-to-back calls between one pair of CUDA events on the current
// stream, through ATen's CUDAEvent, the same k for the same work: launch_timing.hpp; one call alone
// as the single_call_* row), in the suite's harness and CSV. Not a registered suite benchmark: scripts/gpu-check.sh
// runs it into the run folder's peers/ subfolder. Without CUDA in LibTorch every case skips.
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>

#if RIGCHECK_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#endif

#include "launch_timing.hpp"
#include "numerics.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::gpu {
namespace {

void require_cuda() {
#if !RIGCHECK_TORCH_CUDA
  throw Skip("this LibTorch was built without CUDA (e.g. Debian's CPU LibTorch)");
#else
  if (!torch::cuda::is_available()) throw Skip("LibTorch finds no CUDA device");
#endif
}

// Seconds of `k` back-to-back calls of `f` on the current stream, between two CUDA events.
template <class F>
double event_seconds(int k, F&& f) {
#if RIGCHECK_TORCH_CUDA
  at::cuda::CUDAEvent a(0), b(0);  // flags 0: timing enabled
  return interval_seconds(
      k, [&] { a.record(); }, f,
      [&] {
        b.record();
        b.synchronize();
        return a.elapsed_time(b) * 1e-3;
      });
#else
  for (int i = 0; i < k; ++i) f();
  return NAN;
#endif
}

// One call alone (kept for the single_call_* row), then k back to back: the iteration's seconds.
template <class F>
double timed_iteration(int k, std::vector<double>& single, F&& f) {
  single.push_back(event_seconds(1, f));
  return event_seconds(k, f);
}

class Matmul final : public Kernel {
  static constexpr int kSlices = 4;  // split-K slices the check allows cuBLAS (1 at n = 8192 on current GPUs)

 public:
  Matmul(torch::Dtype dt, int64_t n, int launches) : dt_(dt), n_(n), launches_(launches) {
    require_cuda();
    torch::manual_seed(3);
    auto o = torch::TensorOptions().device(torch::kCUDA);
    a_ = (torch::rand({n, n}, o) * 2 - 1).to(dt);
    b_ = (torch::rand({n, n}, o) * 2 - 1).to(dt);
    c_ = torch::empty({n, n}, o.dtype(dt));
  }
  CheckResult check() override {
    torch::matmul_out(c_, a_, b_);
    torch::cuda::synchronize();
    CheckResult r;
    const DtypeInfo& d = info(dt_ == torch::kBFloat16 ? Dtype::bf16 : Dtype::f16);
    std::mt19937_64 gen(5);
    auto a = a_.to(torch::kCPU, torch::kDouble), b = b_.to(torch::kCPU, torch::kDouble),
         c = c_.to(torch::kCPU, torch::kDouble);
    auto pa = a.accessor<double, 2>(), pb = b.accessor<double, 2>(), pc = c.accessor<double, 2>();
    for (int s = 0; s < 64; ++s) {
      int64_t i = gen() % n_, j = gen() % n_;
      double exact = 0, sum_abs = 0;
      for (int64_t k = 0; k < n_; ++k) {
        exact += pa[i][k] * pb[k][j];
        sum_abs += std::fabs(pa[i][k] * pb[k][j]);
      }
      // LibTorch lets cuBLAS reduce split-K partial sums in the 16-bit type by default
      // (allow_bf16/fp16_reduced_precision_reduction): the bound of up to kSlices partial sums
      // rounded to the output type and added in it.
      const double bound = gemm_error_bound_output_partials(d, n_, sum_abs, exact, kSlices);
      r.add(std::fabs(pc[i][j] - exact) / bound);
    }
    r.method = fmt::format(
        "64 outputs against double on the host; the 16-bit bound with up to {} split-K partial sums "
        "rounded to {} (reduced-precision reduction)",
        kSlices, d.name);
    return r;
  }
  double run_timed() override {
    return timed_iteration(launches_, single_, [&] { torch::matmul_out(c_, a_, b_); });
  }
  void run() override { torch::matmul_out(c_, a_, b_); }
  Params facts() const override {
    return {{"impl", "torch::matmul_out (LibTorch " TORCH_VERSION "): row-major NN, cuBLAS's default heuristic"},
            {"timing", timing_fact(launches_)}};
  }
  std::vector<Observed> observed() override {
    if (single_.empty()) return {};
    return {{"single_call_gflops", "GFLOP/s", single_call_rate(single_, 2.0 * n_ * n_ * n_),
             fmt::format("one call alone between the event pair (ATen's dispatch inside it), median of {}",
                         single_.size())}};
  }

 private:
  torch::Dtype dt_;
  int64_t n_;
  int launches_;
  std::vector<double> single_;
  torch::Tensor a_, b_, c_;
};

class Copy final : public Kernel {
 public:
  Copy(int64_t bytes, int launches) : bytes_(bytes), launches_(launches) {
    require_cuda();
    auto o = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kUInt8);
    src_ = torch::randint(0, 256, {bytes}, o);
    dst_ = torch::empty({bytes}, o);
  }
  CheckResult check() override {
    dst_.copy_(src_);
    CheckResult r;
    r.checked = src_.numel();
    r.wrong = src_.ne(dst_).sum().item<int64_t>();
    r.worst = r.wrong ? INFINITY : 0;
    r.method = "every byte compared on the device";
    return r;
  }
  double run_timed() override {
    return timed_iteration(launches_, single_, [&] { dst_.copy_(src_); });
  }
  void run() override { dst_.copy_(src_); }
  Params facts() const override {
    return {{"impl", "Tensor::copy_ (LibTorch " TORCH_VERSION ")"}, {"timing", timing_fact(launches_)}};
  }
  std::vector<Observed> observed() override {
    if (single_.empty()) return {};
    return {{"single_call_gbps", "GB/s", single_call_rate(single_, 2.0 * bytes_),
             fmt::format("one copy alone between the event pair (ATen's dispatch inside it), median of {}",
                         single_.size())}};
  }

 private:
  int64_t bytes_;
  int launches_;
  std::vector<double> single_;
  torch::Tensor src_, dst_;
};

const bool peer = register_benchmark(
    {names::kTorchPeer, "LibTorch matmul (bf16, f16) and device-to-device copy, timed like the suite's own",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int64_t n = o.profile == Profile::tiny ? 256 : 8192;
       for (auto [dt, name] : {std::pair{torch::kBFloat16, "bf16"}, std::pair{torch::kHalf, "f16"}}) {
         Case c;
         c.name = fmt::format("matmul_{}/n{}", name, n);
         c.params = {{"op", "matmul"},
                     {"dtype", name},
                     {"m", std::to_string(n)},
                     {"n", std::to_string(n)},
                     {"k", std::to_string(n)}};
         const int k = gemm_launches(n, n, n);  // as gpu_gemm's: an iteration is k calls
         c.work.flops = k * 2.0 * n * n * n;
         c.manual_time = true;
         auto d = dt;
         c.make = [d, n, k]() -> std::unique_ptr<Kernel> { return std::make_unique<Matmul>(d, n, k); };
         cs.push_back(std::move(c));
       }
       std::vector<int64_t> sizes = o.sizes;
       if (sizes.empty())
         sizes = {o.profile == Profile::tiny ? (int64_t{1} << 20) : (int64_t{256} << 20), int64_t{1} << 30};
       for (int64_t bytes : sizes) {
         Case c;
         c.name = fmt::format("copy/{}MiB", bytes >> 20);
         c.params = {{"op", "copy"}, {"bytes", std::to_string(bytes)}, {"bytes_counted", "read+written"}};
         const int k = copy_launches(static_cast<double>(bytes));  // as gpu_transfer's
         c.work.bytes = k * 2.0 * bytes;
         c.manual_time = true;
         c.make = [bytes, k]() -> std::unique_ptr<Kernel> { return std::make_unique<Copy>(bytes, k); };
         cs.push_back(std::move(c));
       }
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::gpu
