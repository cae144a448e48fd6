// gpu_gemm: tensor-core GEMM throughput per data type through cuBLASLt (f32, tf32, f16, bf16,
// fp8 e4m3 where the GPU has it), f32 accumulation, D = A^T B (the "TN" layout cuBLASLt needs
// for fp8, used for every type alike). Each case is checked on a sample of outputs against a
// double-precision reference on the host, with the worst-case bound of gpu/numerics.hpp, and
// every output is checked finite on the device, before it is timed with CUDA events.
// Power, temperature, clocks and throttle reasons are sampled (NVML) while the case is timed;
// `gpu_gemm_sustained` holds the GPU busy for seconds per repetition for PWR-1, PWR-2 and THM-1.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <omp.h>

#include <chrono>
#include <memory>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "cuda_util.hpp"
#include "launch_timing.hpp"
#include "numerics.hpp"
#include "power.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::gpu {
namespace {

static_assert(kReduceNone == CUBLASLT_REDUCTION_SCHEME_NONE && kReduceInplace == CUBLASLT_REDUCTION_SCHEME_INPLACE &&
                  kReduceComputeType == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE &&
                  kReduceOutputType == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
              "numerics.hpp's reduction scheme values are cuBLASLt's");

#define RIGCHECK_LT(call)                                                                                \
  do {                                                                                                   \
    cublasStatus_t st_ = (call);                                                                         \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                                    \
      throw std::runtime_error(                                                                          \
          fmt::format("{}:{}: {}: cuBLAS status {}", __FILE__, __LINE__, #call, static_cast<int>(st_))); \
  } while (0)

// Counts the outputs that are not finite (exponent all ones: infinity or NaN) over the whole D,
// on the device. kind: 0 f32, 1 f16, 2 bf16.
__global__ void count_nonfinite(const void* d, size_t n, int kind, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (kind == 0) {
      const unsigned b = static_cast<const unsigned*>(d)[i];
      mine += (b & 0x7F800000u) == 0x7F800000u;
    } else {
      const unsigned short h = static_cast<const unsigned short*>(d)[i];
      const unsigned short e = kind == 1 ? 0x7C00 : 0x7F80;
      mine += (h & e) == e;
    }
  }
  if (mine) atomicAdd(bad, mine);
}

cudaDataType_t cuda_type(const std::string& name) {
  if (name == "f32" || name == "tf32") return CUDA_R_32F;
  if (name == "f16") return CUDA_R_16F;
  if (name == "bf16") return CUDA_R_16BF;
  return CUDA_R_8F_E4M3;
}

// The smallest compute capability with the type on tensor cores in cuBLASLt.
std::pair<int, int> min_cc(Dtype d) {
  switch (d) {
    case Dtype::tf32:
    case Dtype::bf16: return {8, 0};
    case Dtype::fp8_e4m3: return {8, 9};
    case Dtype::f16: return {7, 0};
    default: return {5, 0};
  }
}

// Host inputs: A is M rows of K contiguous values (op(A) = A^T of a K x M column-major matrix),
// B is N columns of K contiguous values. Values from numerics.hpp's random_input, one stream
// per row so that threads can fill in parallel reproducibly.
std::vector<uint8_t> make_input(const DtypeInfo& d, int64_t rows, int64_t K, uint64_t seed) {
  std::vector<uint8_t> v(static_cast<size_t>(rows * K) * d.in_bytes);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    uint64_t s = seed * 0x100000001B3ULL + static_cast<uint64_t>(r);
    for (int64_t k = 0; k < K; ++k) {
      float x = random_input(s, d.mantissa_bits);
      uint8_t* p = v.data() + static_cast<size_t>(r * K + k) * d.in_bytes;
      if (d.in_bytes == 4)
        std::memcpy(p, &x, 4);
      else if (d.dtype == Dtype::f16) {
        uint16_t h = f16_encode_exact(x);
        std::memcpy(p, &h, 2);
      } else if (d.dtype == Dtype::bf16) {
        uint16_t h = bf16_encode_exact(x);
        std::memcpy(p, &h, 2);
      } else {
        *p = e4m3_encode_exact(x);
      }
    }
  }
  return v;
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(size_t bytes) { RIGCHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&p), bytes)); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

class LtGemm final : public Kernel {
 public:
  // sustained_s > 0: run_timed keeps launching for that many seconds (power and heat case).
  // launches: calls per timed iteration, between one event pair (launch_timing.hpp).
  LtGemm(Dtype dt, int64_t n, double sustained_s, int launches = 1)
      : d_(info(dt)), M_(n), N_(n), K_(n), sustained_s_(sustained_s), launches_(launches) {
    require_gpus();
    RIGCHECK_CUDA(cudaSetDevice(0));
    timer_ = std::make_unique<EventTimer>();
    dev_ = device_info(0);
    auto [ma, mi] = min_cc(dt);
    if (dev_.cc_major * 10 + dev_.cc_minor < ma * 10 + mi)
      throw Skip(fmt::format("{} GEMM on tensor cores needs compute capability {}.{}; {} is {}.{}", d_.name, ma, mi,
                             dev_.name, dev_.cc_major, dev_.cc_minor));
    const size_t a_bytes = static_cast<size_t>(M_ * K_) * d_.in_bytes,
                 b_bytes = static_cast<size_t>(N_ * K_) * d_.in_bytes,
                 d_bytes = static_cast<size_t>(M_ * N_) * d_.out_bytes;
    size_t free_b = 0, total_b = 0;
    RIGCHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (a_bytes + b_bytes + d_bytes + kWorkspace > free_b * 9 / 10)
      throw Skip(fmt::format("{}^3 {} needs {:.2f} GB of device memory, {:.2f} GB free", n, d_.name,
                             (a_bytes + b_bytes + d_bytes + kWorkspace) / 1e9, free_b / 1e9));
    nvml_ = std::make_unique<Nvml>(dev_.pci_bus_id);
    RIGCHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    a_ = std::make_unique<DevBuf<uint8_t>>(a_bytes);
    b_ = std::make_unique<DevBuf<uint8_t>>(b_bytes);
    dd_ = std::make_unique<DevBuf<uint8_t>>(d_bytes);
    ws_ = std::make_unique<DevBuf<uint8_t>>(kWorkspace);
    ha_ = make_input(d_, M_, K_, 1);
    hb_ = make_input(d_, N_, K_, 2);
    RIGCHECK_CUDA(cudaMemcpy(a_->p, ha_.data(), a_bytes, cudaMemcpyHostToDevice));
    RIGCHECK_CUDA(cudaMemcpy(b_->p, hb_.data(), b_bytes, cudaMemcpyHostToDevice));
    RIGCHECK_CUDA(cudaMemset(dd_->p, 0xFF, d_bytes));  // NaN everywhere: a skipped output is caught

    RIGCHECK_LT(cublasLtCreate(&lt_));
    const cublasComputeType_t compute = dt == Dtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    RIGCHECK_LT(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    RIGCHECK_LT(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    RIGCHECK_LT(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    const cudaDataType_t tin = cuda_type(d_.name), tout = cuda_type(d_.out_name);
    RIGCHECK_LT(cublasLtMatrixLayoutCreate(&la_, tin, K_, M_, K_));
    RIGCHECK_LT(cublasLtMatrixLayoutCreate(&lb_, tin, K_, N_, K_));
    RIGCHECK_LT(cublasLtMatrixLayoutCreate(&ld_, tout, M_, N_, M_));
    RIGCHECK_LT(cublasLtMatmulPreferenceCreate(&pref_));
    size_t ws = kWorkspace;
    RIGCHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    // Split-K partial sums in f32 only: the check's bound does not count partial sums rounded to a
    // 16-bit output type (numerics.hpp, kAllowedReductionSchemes).
    uint32_t schemes = kAllowedReductionSchemes;
    RIGCHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                                                     sizeof schemes));
    int found = 0;
    cublasLtMatmulHeuristicResult_t cand[kCandidates] = {};
    cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt_, op_, la_, lb_, ld_, ld_, pref_, kCandidates, cand, &found);
    if (hs != CUBLAS_STATUS_SUCCESS || found == 0)
      throw Skip(fmt::format("cuBLASLt offers no algorithm for {} x {} (status {}) on {}", d_.name, d_.out_name,
                             static_cast<int>(hs), dev_.name));
    // The fastest of cuBLASLt's first candidates, each timed over 3 launches after one (as a
    // framework's autotuner picks); the check then runs on the one chosen.
    double best = INFINITY;
    for (int i = 0; i < found; ++i) {
      heur_ = cand[i];
      if (!try_launch()) continue;
      timer_->start(stream_);
      const bool ok = try_launch() && try_launch() && try_launch();
      const double t = timer_->stop(stream_);
      if (ok && t < best) {
        best = t;
        chosen_ = i;
      }
    }
    cudaGetLastError();
    if (chosen_ < 0) throw std::runtime_error("none of cuBLASLt's candidate algorithms ran");
    heur_ = cand[chosen_];
    candidates_ = found;
    uint32_t scheme = 0;
    int32_t splits = 1;
    size_t got = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&heur_.algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme, sizeof scheme,
                                             &got) == CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoConfigGetAttribute(&heur_.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits, sizeof splits,
                                             &got) == CUBLAS_STATUS_SUCCESS)
      reduction_ = fmt::format("split-K {} (reduction scheme {})", splits, scheme);
    else
      reduction_ = "unknown: cublasLtMatmulAlgoConfigGetAttribute refused";
  }

  bool try_launch() {
    const float alpha = 1, beta = 0;
    return cublasLtMatmul(lt_, op_, &alpha, a_->p, la_, b_->p, lb_, &beta, dd_->p, ld_, dd_->p, ld_, &heur_.algo,
                          ws_->p, kWorkspace, stream_) == CUBLAS_STATUS_SUCCESS;
  }

  ~LtGemm() override {
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (la_) cublasLtMatrixLayoutDestroy(la_);
    if (lb_) cublasLtMatrixLayoutDestroy(lb_);
    if (ld_) cublasLtMatrixLayoutDestroy(ld_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    if (lt_) cublasLtDestroy(lt_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void launch() {
    const float alpha = 1, beta = 0;
    RIGCHECK_LT(cublasLtMatmul(lt_, op_, &alpha, a_->p, la_, b_->p, lb_, &beta, dd_->p, ld_, dd_->p, ld_, &heur_.algo,
                               ws_->p, kWorkspace, stream_));
  }

  CheckResult check() override {
    launch();
    RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
    CheckResult r;
    // Every output finite (on the device).
    DevBuf<unsigned long long> bad(sizeof(unsigned long long));
    RIGCHECK_CUDA(cudaMemset(bad.p, 0, sizeof(unsigned long long)));
    const size_t n = static_cast<size_t>(M_ * N_);
    const int kind = d_.out_bytes == 4 ? 0 : std::string(d_.out_name) == "f16" ? 1 : 2;
    count_nonfinite<<<1024, 256, 0, stream_>>>(dd_->p, n, kind, bad.p);
    RIGCHECK_CUDA(cudaGetLastError());
    unsigned long long nonfinite = 0;
    RIGCHECK_CUDA(cudaMemcpyAsync(&nonfinite, bad.p, sizeof nonfinite, cudaMemcpyDeviceToHost, stream_));
    RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
    r.checked += static_cast<int64_t>(n);
    r.wrong += static_cast<int64_t>(nonfinite);
    if (nonfinite) r.worst = INFINITY;
    // A sample of outputs against double on the host.
    std::mt19937_64 gen(7);
    std::vector<std::pair<int64_t, int64_t>> at = {{0, 0}, {M_ - 1, N_ - 1}, {0, N_ - 1}, {M_ - 1, 0}};
    for (int i = 0; i < kSamples; ++i)
      at.push_back({static_cast<int64_t>(gen() % M_), static_cast<int64_t>(gen() % N_)});
    std::vector<uint8_t> got(d_.out_bytes);
    for (auto [i, j] : at) {
      RIGCHECK_CUDA(cudaMemcpy(got.data(), dd_->p + static_cast<size_t>(i + j * M_) * d_.out_bytes, d_.out_bytes,
                               cudaMemcpyDeviceToHost));
      double exact = 0, sum_abs = 0;
      const uint8_t* ra = ha_.data() + static_cast<size_t>(i * K_) * d_.in_bytes;
      const uint8_t* cb = hb_.data() + static_cast<size_t>(j * K_) * d_.in_bytes;
      for (int64_t k = 0; k < K_; ++k) {
        double x = decode(d_.name, ra + k * d_.in_bytes), y = decode(d_.name, cb + k * d_.in_bytes);
        exact += x * y;
        sum_abs += std::fabs(x * y);
      }
      const double value = decode(d_.out_name, got.data());
      const double bound = gemm_error_bound(d_, K_, sum_abs, exact);
      const double err = std::fabs(value - exact);
      const double rel = std::isfinite(value) ? err / bound : INFINITY;
      r.add(rel);
    }
    r.method = fmt::format(
        "every output finite (device), and {} outputs against double on the host with the bound "
        "((1+u_in)^2(1+gamma_(K+1)(u_acc))-1) sum|a||b| + u_out |c|, u_in={:g} u_acc={:g}{} u_out={:g}",
        at.size(), d_.u_in, d_.u_acc, d_.acc_chunk ? fmt::format(" within chunks of {}", d_.acc_chunk) : "", d_.u_out);
    sampler_ = nvml_->ok() ? std::make_unique<Sampler>(*nvml_) : nullptr;
    return r;
  }

  void run() override {
    launch();
    RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
  }

  double run_timed() override {
    if (sustained_s_ <= 0)
      return single_then_interval(
          launches_, single_, [&] { timer_->start(stream_); }, [&] { launch(); },
          [&] { return timer_->stop(stream_); });
    // Sustained: back-to-back launches in batches of 8 until the time is up.
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    timer_->start(stream_);
    int64_t launched = 0;
    do {
      for (int i = 0; i < 8; ++i) launch();
      launched += 8;
      RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < sustained_s_);
    const double t = timer_->stop(stream_);
    sustained_flops_ += 2.0 * M_ * N_ * K_ * launched;
    sustained_time_ += t;
    return t;
  }

  Params facts() const override {
    Params p = device_facts(dev_);
    if (sustained_s_ > 0) p.push_back({"dtype", d_.name});
    p.push_back({"out_dtype", d_.out_name});
    p.push_back({"impl", fmt::format("cublasLt TN (A transposed, column-major) f32-accumulate: fastest of its first {} "
                                     "heuristic candidates (#{})",
                                     candidates_, chosen_)});
    if (sustained_s_ <= 0) p.push_back({"timing", timing_fact(launches_)});
    if (d_.name == std::string("fp8_e4m3"))
      p.push_back({"fast_accum",
                   "off: CUBLASLT_MATMUL_DESC_FAST_ACCUM not set, every partial sum in f32 (datasheets' "
                   "fp8 figures assume fast accumulation: the % of datasheet reads low)"});
    p.push_back({"workspace_bytes", std::to_string(kWorkspace)});
    p.push_back({"split_k", reduction_});
    if (!nvml_->ok()) p.push_back({"power_sampling", "none: " + nvml_->why()});
    for (auto& f : nvml_->facts())
      if (f.first == "power_limit_w") p.push_back(f);
    return p;
  }

  std::vector<Observed> observed() override {
    std::vector<Observed> out;
    if (sampler_) {
      out = observed_rows(summarize(sampler_->stop()));
      sampler_.reset();
    } else {
      out.push_back({"power_samples", "count", 0, "no power samples: " + nvml_->why()});
    }
    if (!single_.empty())
      out.push_back({"single_call_gflops", "GFLOP/s", single_call_rate(single_, 2.0 * M_ * N_ * K_),
                     fmt::format("one launch alone between the event pair (the host's launch inside it), median of {}",
                                 single_.size())});
    if (sustained_time_ > 0)
      out.push_back({"sustained_gflops", "GFLOP/s", sustained_flops_ / sustained_time_ / 1e9,
                     fmt::format("{:.1f} s of back-to-back launches", sustained_time_)});
    return out;
  }

 private:
  static constexpr size_t kWorkspace = 32u << 20;  // cuBLAS' advice for Hopper
  static constexpr int kSamples = 252;
  static constexpr int kCandidates = 8;
  int chosen_ = -1, candidates_ = 0;
  std::string reduction_;
  const DtypeInfo& d_;
  int64_t M_, N_, K_;
  double sustained_s_;
  DeviceInfo dev_;
  std::unique_ptr<Nvml> nvml_;
  std::unique_ptr<Sampler> sampler_;
  cudaStream_t stream_{};
  std::unique_ptr<DevBuf<uint8_t>> a_, b_, dd_, ws_;
  std::vector<uint8_t> ha_, hb_;
  cublasLtHandle_t lt_{};
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t la_{}, lb_{}, ld_{};
  cublasLtMatmulPreference_t pref_{};
  cublasLtMatmulHeuristicResult_t heur_{};
  std::unique_ptr<EventTimer> timer_;  // created after require_gpus(): events need a driver
  double sustained_flops_ = 0, sustained_time_ = 0;
  int launches_ = 1;
  std::vector<double> single_;  // seconds of one call alone, per timed iteration
};

std::vector<int64_t> gemm_sizes(const CommonOptions& o) {
  if (!o.sizes.empty()) return o.sizes;
  switch (o.profile) {
    case Profile::tiny: return {256};
    case Profile::quick: return {4096, 8192};
    default: return {2048, 4096, 8192, 16384};
  }
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_gpu_gemm = declare_entry(
    {"gpu_gemm", "gpu", "", "", "", 60, 300, 1800,
     R"(cuBLASLt GEMM per data type (f32 tf32 f16 bf16 fp8), and a sustained GEMM with power, temperature and
clocks sampled (GPU-3, GPU-4, PWR-1, PWR-2, THM-1))"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(cuBLASLt GEMM f32, tf32, f16, bf16, fp8 (e4m3) at 4096 and 8192 (quick), TFLOP/s and % of the datasheet;
a sustained GEMM with NVML power, temperature, clocks and throttle reasons sampled)",
     "GPU-3, GPU-4, GPU-5, PWR-1, PWR-2, THM-1"});

const bool gemm = register_benchmark(
    {names::kGpuGemm, "cuBLASLt GEMM per data type (f32, tf32, f16, bf16, fp8 e4m3), f32 accumulate, TFLOP/s",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       for (Dtype dt : {Dtype::f32, Dtype::tf32, Dtype::f16, Dtype::bf16, Dtype::fp8_e4m3})
         for (int64_t n : gemm_sizes(o)) {
           const DtypeInfo& d = info(dt);
           Case c;
           c.name = fmt::format("{}/n{}", d.name, n);
           c.params = {{"dtype", d.name}, {"m", std::to_string(n)}, {"n", std::to_string(n)}, {"k", std::to_string(n)}};
           const int k = gemm_launches(n, n, n);  // an iteration: k calls between one event pair
           c.work.flops = k * 2.0 * n * n * n;
           c.work.bytes = k * static_cast<double>(n) * n * (2 * d.in_bytes + d.out_bytes);
           c.manual_time = true;
           c.threads = o.usable_cores;  // OpenMP fills the inputs; the timing is the GPU's
           c.make = [dt, n, k]() -> std::unique_ptr<Kernel> { return std::make_unique<LtGemm>(dt, n, 0, k); };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

const bool sustained =
    register_benchmark({names::kGpuGemmSustained,
                        "bf16 (f16 before Ampere) 8192^3 GEMM held for seconds per repetition: power, heat, clocks",
                        [](const CommonOptions& o) {
                          std::vector<Case> cs;
                          const double secs = o.profile == Profile::tiny ? 0.05 : o.profile == Profile::quick ? 4 : 20;
                          const int64_t n = o.profile == Profile::tiny ? 256 : 8192;
                          Case c;
                          c.name = fmt::format("n{}/{}s", n, secs);
                          c.params = {{"m", std::to_string(n)},
                                      {"n", std::to_string(n)},
                                      {"k", std::to_string(n)},
                                      {"seconds_per_rep", fmt::format("{:g}", secs)}};
                          c.manual_time = true;
                          c.make = [n, secs]() -> std::unique_ptr<Kernel> {
                            require_gpus();
                            cudaDeviceProp p{};
                            RIGCHECK_CUDA(cudaGetDeviceProperties(&p, 0));
                            return std::make_unique<LtGemm>(p.major >= 8 ? Dtype::bf16 : Dtype::f16, n, secs);
                          };
                          cs.push_back(std::move(c));
                          return cs;
                        }});

}  // namespace
}  // namespace rigcheck::gpu
