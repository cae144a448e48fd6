#include "kernels.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "rigcheck/harness/allocator.hpp"
#include "onednn_api.hpp"

extern "C" {
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
}

namespace rigcheck::cpu {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

const char* to_string(DType t) { return t == DType::f32 ? "f32" : "bf16"; }

uint16_t to_bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

static float from_bf16_bits(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void fill_random(std::vector<float>& v, uint64_t seed, DType t) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& x : v) {
    float r = 0;
    while (r == 0) {
      r = dist(gen);
      if (t == DType::bf16) r = from_bf16_bits(to_bf16_bits(r));
    }
    x = r;
  }
}

std::string onednn_effective_isa() { return onednn_api::isa_name(dnnl::get_effective_cpu_isa()); }

std::string onednn_isa_cap() {
  for (const char* v : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"})
    if (const char* s = std::getenv(v); s && *s) {
      std::string r = s;
      std::transform(r.begin(), r.end(), r.begin(), [](unsigned char ch) { return std::tolower(ch); });
      return r;
    }
  return "native";
}

namespace {

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

memory::data_type dt_of(DType t) { return t == DType::f32 ? memory::data_type::f32 : memory::data_type::bf16; }

double roundoff_of(DType) { return std::ldexp(1.0, -24); }  // accumulation is in f32 for both

// Copies f32 values into a oneDNN memory of f32 or bf16, plain layout.
void store(memory& mem, const std::vector<float>& v, DType t) {
  if (t == DType::f32) {
    std::memcpy(mem.get_data_handle(), v.data(), v.size() * sizeof(float));
  } else {
    auto* p = static_cast<uint16_t*>(mem.get_data_handle());
    for (size_t i = 0; i < v.size(); ++i) p[i] = to_bf16_bits(v[i]);
  }
}

[[noreturn]] void rethrow_as_skip(const dnnl::error& e, const char* what, DType t) {
  throw Skip(fmt::format("oneDNN has no {} {} implementation under ISA {} ({})", to_string(t), what,
                         onednn_effective_isa(), e.what()));
}

class OnednnKernel : public Kernel {
 public:
  // Before the case allocates anything: the memory earlier cases freed is reused, not faulted anew
  // (cpu_cache_fc's weights up to 256 MiB and their reordered copy, each check's double copies).
  OnednnKernel() { keep_freed_memory(); }
  Params facts() const override {
    return {{"impl", impl_},
            {"isa", onednn_effective_isa()},
            {"isa_cap", onednn_isa_cap()},
            {"allocator", kKeepFreedAllocator}};
  }
  void run() override {
    prim_.execute(strm_, args_);
    strm_.wait();
  }

 protected:
  dnnl::stream strm_{engine()};
  dnnl::primitive prim_;
  std::unordered_map<int, memory> args_;
  std::string impl_;
};

class Matmul final : public OnednnKernel {
 public:
  Matmul(int64_t m, int64_t n, int64_t k, DType t) : m_(m), n_(n), k_(k), t_(t) {
    a_.resize(static_cast<size_t>(m * k));
    b_.resize(static_cast<size_t>(k * n));
    fill_random(a_, 1, t);
    fill_random(b_, 2, t);
    memory::desc a_md({m, k}, dt_of(t), tag::ab), b_md({k, n}, dt_of(t), tag::ab),
        c_md({m, n}, memory::data_type::f32, tag::ab);
    dnnl::matmul::primitive_desc pd;
    try {
      pd = onednn_api::matmul_pd(engine(), a_md, b_md, c_md);
    } catch (const dnnl::error& e) {
      rethrow_as_skip(e, "matmul", t);
    }
    impl_ = pd.impl_info_str();
    prim_ = dnnl::matmul(pd);
    memory a(a_md, engine()), b(b_md, engine()), c(c_md, engine());
    store(a, a_, t);
    store(b, b_, t);
    std::memset(c.get_data_handle(), 0, static_cast<size_t>(m * n) * sizeof(float));
    args_ = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  }
  CheckResult check() override {
    run();
    const float* p = static_cast<const float*>(args_[DNNL_ARG_DST].get_data_handle());
    std::vector<float> c(p, p + m_ * n_);
    return check_gemm(a_, b_, c, m_, n_, k_, false, nullptr, roundoff_of(t_));
  }

 private:
  int64_t m_, n_, k_;
  DType t_;
  std::vector<float> a_, b_;
};

class InnerProduct final : public OnednnKernel {
 public:
  InnerProduct(int64_t batch, int64_t ic, int64_t oc, DType t) : mb_(batch), ic_(ic), oc_(oc), t_(t) {
    src_.resize(static_cast<size_t>(batch * ic));
    w_.resize(static_cast<size_t>(oc * ic));
    bias_.resize(static_cast<size_t>(oc));
    fill_random(src_, 3, t);
    fill_random(w_, 4, t);
    fill_random(bias_, 5);
    memory::desc src_md({batch, ic}, dt_of(t), tag::nc), w_any({oc, ic}, dt_of(t), tag::any),
        bias_md({oc}, memory::data_type::f32, tag::x), dst_md({batch, oc}, memory::data_type::f32, tag::nc);
    dnnl::inner_product_forward::primitive_desc pd;
    try {
      pd = onednn_api::inner_product_pd(engine(), dnnl::prop_kind::forward_inference, src_md, w_any, bias_md, dst_md);
    } catch (const dnnl::error& e) {
      rethrow_as_skip(e, "inner product", t);
    }
    impl_ = pd.impl_info_str();
    prim_ = dnnl::inner_product_forward(pd);
    memory src(src_md, engine()), bias(bias_md, engine()), dst(dst_md, engine());
    memory w_user({{oc, ic}, dt_of(t), tag::oi}, engine());
    store(src, src_, t);
    store(w_user, w_, t);
    store(bias, bias_, DType::f32);
    memory w = w_user;
    if (pd.weights_desc() != w_user.get_desc()) {  // packed once, outside the timing, as frameworks do
      w = memory(pd.weights_desc(), engine());
      dnnl::reorder(w_user, w).execute(strm_, w_user, w);
      strm_.wait();
    }
    args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
  }
  CheckResult check() override {
    run();
    const float* p = static_cast<const float*>(args_[DNNL_ARG_DST].get_data_handle());
    std::vector<float> c(p, p + mb_ * oc_);
    return check_gemm(src_, w_, c, mb_, oc_, ic_, true, &bias_, roundoff_of(t_));
  }

 private:
  int64_t mb_, ic_, oc_;
  DType t_;
  std::vector<float> src_, w_, bias_;
};

// Uniform in [-1, 1], never 0, from a counter (splitmix64): element i of a large weight matrix is
// regenerated for the check instead of keeping a second copy of the matrix in memory.
inline float hashed_uniform(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  float f = static_cast<float>((z >> 40) + 1) / static_cast<float>(1ull << 24);  // (0, 1]
  return (z & 1) ? f : -f;
}

// A fully connected layer (f32 inner product, forward inference) whose weights are the working
// set: no second copy of them is kept, and the check compares a random sample of outputs with a
// double-precision dot product over weights regenerated from their counter.
class FcSweep final : public OnednnKernel {
 public:
  FcSweep(int64_t batch, int64_t ic, int64_t oc) : mb_(batch), ic_(ic), oc_(oc) {
    src_.resize(static_cast<size_t>(batch * ic));
    bias_.resize(static_cast<size_t>(oc));
    fill_random(src_, 13);
    fill_random(bias_, 14);
    memory::desc src_md({batch, ic}, memory::data_type::f32, tag::nc),
        w_any({oc, ic}, memory::data_type::f32, tag::any), bias_md({oc}, memory::data_type::f32, tag::x),
        dst_md({batch, oc}, memory::data_type::f32, tag::nc);
    auto pd =
        onednn_api::inner_product_pd(engine(), dnnl::prop_kind::forward_inference, src_md, w_any, bias_md, dst_md);
    impl_ = pd.impl_info_str();
    prim_ = dnnl::inner_product_forward(pd);
    memory src(src_md, engine()), bias(bias_md, engine()), dst(dst_md, engine());
    store(src, src_, DType::f32);
    store(bias, bias_, DType::f32);
    memory w;
    {
      memory w_user({{oc, ic}, memory::data_type::f32, tag::oi}, engine());
      auto* p = static_cast<float*>(w_user.get_data_handle());
      const int64_t n = oc * ic;
      // Every usable core, not the case's threads (set-up, not timed; up to 256 MiB of weights).
#pragma omp parallel for schedule(static) num_threads(omp_get_num_procs())
      for (int64_t i = 0; i < n; ++i) p[i] = hashed_uniform(kSeed, static_cast<uint64_t>(i));
      w = w_user;
      if (pd.weights_desc() != w_user.get_desc()) {  // packed once, outside the timing, as frameworks do
        w = memory(pd.weights_desc(), engine());
        dnnl::reorder(w_user, w).execute(strm_, w_user, w);
        strm_.wait();
      }
    }  // the plain copy is freed here when it was reordered
    std::memset(dst.get_data_handle(), 0, static_cast<size_t>(batch * oc) * sizeof(float));
    args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
  }
  CheckResult check() override {
    run();
    const float* c = static_cast<const float*>(args_[DNNL_ARG_DST].get_data_handle());
    const double u = std::ldexp(1.0, -24), gamma = (ic_ + 1) * u / (1 - (ic_ + 1) * u);
    std::mt19937_64 gen(99);
    const int64_t samples = std::min<int64_t>(512, mb_ * oc_);
    CheckResult r;
    r.method = fmt::format(
        "{} random outputs vs a double dot product over regenerated weights, tolerance "
        "(K+1)u/(1-(K+1)u)*(|x||w|+|bias|), u=2^-24",
        samples);
    for (int64_t s = 0; s < samples; ++s) {
      int64_t b = static_cast<int64_t>(gen() % static_cast<uint64_t>(mb_));
      int64_t o = static_cast<int64_t>(gen() % static_cast<uint64_t>(oc_));
      double ref = bias_[static_cast<size_t>(o)], mag = std::fabs(ref);
      for (int64_t i = 0; i < ic_; ++i) {
        double x = src_[static_cast<size_t>(b * ic_ + i)],
               w = hashed_uniform(kSeed, static_cast<uint64_t>(o * ic_ + i));
        ref += x * w;
        mag += std::fabs(x * w);
      }
      double err = std::fabs(c[b * oc_ + o] - ref), bound = gamma * mag;
      r.add(bound > 0 ? err / bound : (err > 0 ? INFINITY : 0));
    }
    return r;
  }

 private:
  static constexpr uint64_t kSeed = 15;
  int64_t mb_, ic_, oc_;
  std::vector<float> src_, bias_;
};

class Conv final : public OnednnKernel {
 public:
  Conv(int64_t n, int64_t c, int64_t k, int64_t hw, DType t) : n_(n), c_(c), k_(k), hw_(hw), t_(t) {
    src_.resize(static_cast<size_t>(n * c * hw * hw));
    w_.resize(static_cast<size_t>(k * c * 9));
    bias_.resize(static_cast<size_t>(k));
    fill_random(src_, 6, t);
    fill_random(w_, 7, t);
    fill_random(bias_, 8);
    memory::dims src_d{n, c, hw, hw}, w_d{k, c, 3, 3}, dst_d{n, k, hw, hw};
    memory::desc src_any(src_d, dt_of(t), tag::any), w_any(w_d, dt_of(t), tag::any),
        bias_md({k}, memory::data_type::f32, tag::x), dst_any(dst_d, memory::data_type::f32, tag::any);
    dnnl::convolution_forward::primitive_desc pd;
    try {
      pd = onednn_api::convolution_pd(engine(), dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      src_any, w_any, bias_md, dst_any, {1, 1}, {1, 1}, {1, 1});
    } catch (const dnnl::error& e) {
      rethrow_as_skip(e, "convolution", t);
    }
    impl_ = pd.impl_info_str();
    prim_ = dnnl::convolution_forward(pd);
    memory src_user({src_d, dt_of(t), tag::nchw}, engine()), w_user({w_d, dt_of(t), tag::oihw}, engine());
    memory bias(bias_md, engine());
    store(src_user, src_, t);
    store(w_user, w_, t);
    store(bias, bias_, DType::f32);
    memory src(pd.src_desc(), engine()), w(pd.weights_desc(), engine()), dst(pd.dst_desc(), engine());
    dnnl::reorder(src_user, src).execute(strm_, src_user, src);
    dnnl::reorder(w_user, w).execute(strm_, w_user, w);
    strm_.wait();
    args_ = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
  }
  CheckResult check() override {
    run();
    memory dst_user({{n_, k_, hw_, hw_}, memory::data_type::f32, tag::nchw}, engine());
    dnnl::reorder(args_[DNNL_ARG_DST], dst_user).execute(strm_, args_[DNNL_ARG_DST], dst_user);
    strm_.wait();
    const float* out = static_cast<const float*>(dst_user.get_data_handle());
    CheckResult r;
    const int64_t terms = c_ * 9 + 1;
    const double u = roundoff_of(t_), gamma = terms * u / (1 - terms * u);
    const int64_t total = n_ * k_ * hw_ * hw_, samples = std::min<int64_t>(total, 20000);
    r.method = fmt::format(
        "{} random outputs of {} vs direct convolution in double, tolerance "
        "gamma_(9C+1)*sum|x||w|, u=2^-24",
        samples, total);
    std::mt19937_64 gen(9);
    std::uniform_int_distribution<int64_t> pick(0, total - 1);
    for (int64_t s = 0; s < samples; ++s) {
      int64_t idx = pick(gen), x = idx % hw_, y = (idx / hw_) % hw_, ko = (idx / (hw_ * hw_)) % k_,
              b = idx / (hw_ * hw_ * k_);
      double acc = bias_[static_cast<size_t>(ko)], mag = std::fabs(acc);
      for (int64_t ci = 0; ci < c_; ++ci)
        for (int64_t ry = 0; ry < 3; ++ry)
          for (int64_t rx = 0; rx < 3; ++rx) {
            int64_t iy = y + ry - 1, ix = x + rx - 1;
            if (iy < 0 || ix < 0 || iy >= hw_ || ix >= hw_) continue;
            double xv = src_[static_cast<size_t>(((b * c_ + ci) * hw_ + iy) * hw_ + ix)];
            double wv = w_[static_cast<size_t>(((ko * c_ + ci) * 3 + ry) * 3 + rx)];
            acc += xv * wv;
            mag += std::fabs(xv * wv);
          }
      double err = std::fabs(out[idx] - acc), tol = gamma * mag + 1e-30;
      if (!std::isfinite(out[idx])) err = INFINITY;
      r.add(err / tol);
    }
    return r;
  }

 private:
  int64_t n_, c_, k_, hw_;
  DType t_;
  std::vector<float> src_, w_, bias_;
};

// Row-major C = A * B through a BLAS-style sgemm call.
class Sgemm : public Kernel {
 public:
  Sgemm(int64_t m, int64_t n, int64_t k) : m_(m), n_(n), k_(k) {
    keep_freed_memory();  // as OnednnKernel
    a_.resize(static_cast<size_t>(m * k));
    b_.resize(static_cast<size_t>(k * n));
    c_.assign(static_cast<size_t>(m * n), 0.0f);
    fill_random(a_, 10);
    fill_random(b_, 11);
  }
  CheckResult check() override {
    run();
    return check_gemm(a_, b_, c_, m_, n_, k_, false, nullptr, std::ldexp(1.0, -24));
  }

 protected:
  int64_t m_, n_, k_;
  std::vector<float> a_, b_, c_;
};

class OnednnSgemm final : public Sgemm {
 public:
  using Sgemm::Sgemm;
  void run() override {
    dnnl_status_t st = dnnl_sgemm('N', 'N', m_, n_, k_, 1.0f, a_.data(), k_, b_.data(), n_, 0.0f, c_.data(), n_);
    if (st != dnnl_success) throw std::runtime_error(fmt::format("dnnl_sgemm returned {}", static_cast<int>(st)));
  }
  Params facts() const override {
    return {{"impl", "dnnl_sgemm"},
            {"isa", onednn_effective_isa()},
            {"isa_cap", onednn_isa_cap()},
            {"allocator", kKeepFreedAllocator}};
  }
};

// OpenBLAS keeps its thread count process-wide: the harness sets it (set_library_threads) before
// this kernel's check and each of its repetitions, and the row says what was in effect.
class OpenblasSgemm final : public Sgemm {
 public:
  using Sgemm::Sgemm;
  void run() override {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m_, n_, k_, 1.0f, a_.data(), k_, b_.data(), n_, 0.0f,
                c_.data(), n_);
  }
  Params facts() const override {
    const char* core = openblas_get_corename();
    const char* env = std::getenv("OPENBLAS_CORETYPE");
    return {{"impl", fmt::format("openblas:{}", core ? core : "unknown")},
            {"openblas_threads", std::to_string(openblas_get_num_threads())},
            {"openblas_coretype_env", env ? env : "unset"},
            {"allocator", kKeepFreedAllocator}};
  }
};

}  // namespace

std::unique_ptr<Kernel> make_onednn_matmul(int64_t m, int64_t n, int64_t k, DType t) {
  return std::make_unique<Matmul>(m, n, k, t);
}
std::unique_ptr<Kernel> make_onednn_inner_product(int64_t batch, int64_t ic, int64_t oc, DType t) {
  return std::make_unique<InnerProduct>(batch, ic, oc, t);
}
std::unique_ptr<Kernel> make_onednn_fc_sweep(int64_t batch, int64_t ic, int64_t oc) {
  return std::make_unique<FcSweep>(batch, ic, oc);
}
std::unique_ptr<Kernel> make_onednn_conv(int64_t n, int64_t c, int64_t k, int64_t hw, DType t) {
  return std::make_unique<Conv>(n, c, k, hw, t);
}
std::unique_ptr<Kernel> make_onednn_sgemm(int64_t m, int64_t n, int64_t k) {
  return std::make_unique<OnednnSgemm>(m, n, k);
}
std::unique_ptr<Kernel> make_openblas_sgemm(int64_t m, int64_t n, int64_t k) {
  return std::make_unique<OpenblasSgemm>(m, n, k);
}

}  // namespace rigcheck::cpu
