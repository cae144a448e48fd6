// gpu_transfer: copy bandwidth host-to-device and device-to-host (pinned and pageable host memory),
// device-to-device, and GPU-to-GPU with and without peer access where there are two GPUs; GB/s
// (1e9 bytes/s). The PCIe generation and width NVML reports are recorded beside each case.
// Every copy is checked: random bytes copied, copied back (or compared in place), compared whole.
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <cstring>
#include <memory>
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

enum class Kind { h2d, d2h, d2d, p2p };

struct HostBuf {
  uint8_t* p = nullptr;
  size_t n = 0;
  bool pinned = false;
  HostBuf(size_t bytes, bool pin) : n(bytes), pinned(pin) {
    if (pin) {
      RIGCHECK_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p), bytes));
    } else {
      void* q = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (q == MAP_FAILED) throw std::runtime_error(fmt::format("mmap of {} bytes failed", bytes));
      p = static_cast<uint8_t*>(q);
    }
  }
  ~HostBuf() {
    if (pinned)
      cudaFreeHost(p);
    else
      munmap(p, n);
  }
};

struct DevMem {
  int dev;
  uint8_t* p = nullptr;
  DevMem(int d, size_t bytes) : dev(d) {
    RIGCHECK_CUDA(cudaSetDevice(d));
    RIGCHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&p), bytes));
  }
  ~DevMem() {
    cudaSetDevice(dev);
    cudaFree(p);
  }
};

void fill_random(uint8_t* p, size_t n, uint64_t seed) {
  uint64_t s = seed;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t r = splitmix64(s);
    std::memcpy(p + i, &r, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<uint8_t>(splitmix64(s));
}

class Copy final : public Kernel {
 public:
  // launches: copies per timed iteration, back to back between one event pair (launch_timing.hpp).
  Copy(Kind k, bool pinned_or_peer, size_t bytes, int launches)
      : kind_(k), flag_(pinned_or_peer), bytes_(bytes), launches_(launches) {
    const int ngpu = require_gpus(k == Kind::p2p ? 2 : 1);
    (void)ngpu;
    dev_ = device_info(0);
    nvml_ = std::make_unique<Nvml>(dev_.pci_bus_id);
    RIGCHECK_CUDA(cudaSetDevice(0));
    timer_ = std::make_unique<EventTimer>();
    RIGCHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    src_host_ = std::make_unique<HostBuf>(bytes, k == Kind::p2p || k == Kind::d2d ? true : flag_);
    dst_host_ = std::make_unique<HostBuf>(bytes, k == Kind::p2p || k == Kind::d2d ? true : flag_);
    fill_random(src_host_->p, bytes, 11);
    std::memset(dst_host_->p, 0, bytes);  // touched before timing (first touch is slow in VMs)
    a_ = std::make_unique<DevMem>(0, bytes);
    b_ = std::make_unique<DevMem>(k == Kind::p2p ? 1 : 0, bytes);
    RIGCHECK_CUDA(cudaSetDevice(0));
    if (k == Kind::p2p) {
      int can = 0;
      RIGCHECK_CUDA(cudaDeviceCanAccessPeer(&can, 0, 1));
      if (flag_ && !can) throw Skip("GPU 0 cannot access GPU 1 as a peer (cudaDeviceCanAccessPeer = 0)");
      if (flag_) {
        cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) RIGCHECK_CUDA(e);
        cudaGetLastError();
        peer_enabled_ = true;
      } else {
        cudaError_t e = cudaDeviceDisablePeerAccess(1);  // staged through the host
        (void)e;
        cudaGetLastError();
      }
    }
    RIGCHECK_CUDA(cudaMemcpy(a_->p, src_host_->p, bytes, cudaMemcpyHostToDevice));
  }
  ~Copy() override {
    if (peer_enabled_) {
      cudaSetDevice(0);
      cudaDeviceDisablePeerAccess(1);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }

  // Every copy is issued on stream_, the stream the events are recorded on: a pageable copy too
  // (cudaMemcpyAsync from pageable memory returns once the host buffer is staged, but the copy is
  // ordered on stream_, so the second event waits for its last byte). cudaMemcpy on the legacy
  // stream, with the events on a non-blocking stream, timed the staging only.
  void copy() {
    switch (kind_) {
      case Kind::h2d:
        RIGCHECK_CUDA(cudaMemcpyAsync(a_->p, src_host_->p, bytes_, cudaMemcpyHostToDevice, stream_));
        break;
      case Kind::d2h:
        RIGCHECK_CUDA(cudaMemcpyAsync(dst_host_->p, a_->p, bytes_, cudaMemcpyDeviceToHost, stream_));
        break;
      case Kind::d2d: RIGCHECK_CUDA(cudaMemcpyAsync(b_->p, a_->p, bytes_, cudaMemcpyDeviceToDevice, stream_)); break;
      case Kind::p2p: RIGCHECK_CUDA(cudaMemcpyPeerAsync(b_->p, b_->dev, a_->p, 0, bytes_, stream_)); break;
    }
  }

  CheckResult check() override {
    CheckResult r;
    copy();
    RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
    if (kind_ == Kind::d2h) {
      // dst_host_ already holds the copy.
    } else if (kind_ == Kind::h2d) {
      RIGCHECK_CUDA(cudaMemcpy(dst_host_->p, a_->p, bytes_, cudaMemcpyDeviceToHost));
    } else {
      RIGCHECK_CUDA(cudaSetDevice(b_->dev));
      RIGCHECK_CUDA(cudaMemcpy(dst_host_->p, b_->p, bytes_, cudaMemcpyDeviceToHost));
      RIGCHECK_CUDA(cudaSetDevice(0));
    }
    for (size_t off = 0; off < bytes_; off += 4096) {
      size_t n = std::min<size_t>(4096, bytes_ - off);
      ++r.checked;
      if (std::memcmp(src_host_->p + off, dst_host_->p + off, n) != 0) ++r.wrong;
    }
    r.worst = r.wrong ? INFINITY : 0;
    r.method = "random bytes copied, read back to the host and compared whole (counted per 4 KiB block)";
    sampler_ = nvml_->ok() ? std::make_unique<Sampler>(*nvml_) : nullptr;
    return r;
  }

  void run() override {
    copy();
    RIGCHECK_CUDA(cudaStreamSynchronize(stream_));
  }

  double run_timed() override {
    return single_then_interval(
        launches_, single_, [&] { timer_->start(stream_); }, [&] { copy(); }, [&] { return timer_->stop(stream_); });
  }

  Params facts() const override {
    Params p = device_facts(dev_);
    for (auto& f : nvml_->facts())
      if (f.first.rfind("pcie", 0) == 0) p.push_back(f);
    if (!nvml_->ok()) p.push_back({"pcie", "unknown: " + nvml_->why()});
    p.push_back({"timing", timing_fact(launches_)});
    return p;
  }

  std::vector<Observed> observed() override {
    std::vector<Observed> keep;
    if (!single_.empty())
      keep.push_back({"single_call_gbps", "GB/s",
                      single_call_rate(single_, (kind_ == Kind::d2d ? 2.0 : 1.0) * static_cast<double>(bytes_)),
                      fmt::format("one copy alone between the event pair (the host's launch inside it), median of {}",
                                  single_.size())});
    if (!sampler_) return keep;
    auto rows = observed_rows(summarize(sampler_->stop()));
    sampler_.reset();
    for (auto& o : rows)
      if (o.metric == names::kPowerMaxW || o.metric == names::kGpuTempMaxC) keep.push_back(o);
    return keep;
  }

 private:
  Kind kind_;
  bool flag_;
  size_t bytes_;
  DeviceInfo dev_;
  std::unique_ptr<Nvml> nvml_;
  std::unique_ptr<Sampler> sampler_;
  cudaStream_t stream_{};
  std::unique_ptr<HostBuf> src_host_, dst_host_;
  std::unique_ptr<DevMem> a_, b_;
  bool peer_enabled_ = false;
  int launches_ = 1;
  std::vector<double> single_;         // seconds of one copy alone, per timed iteration
  std::unique_ptr<EventTimer> timer_;  // created after require_gpus(): events need a driver
};

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_gpu_transfer = declare_entry(
    {"gpu_transfer", "gpu", "", "", "", 60, 180, 900,
     R"(copy bandwidth host-device pinned and pageable, device-device, GPU-GPU with and without peer access;
PCIe generation and width)"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row =
    declare_doc({"",
                 R"(copies host-to-device and device-to-host (pinned, pageable), device-to-device, GPU-to-GPU with and
without peer access; PCIe generation and width)",
                 "transfers beside GPU-6"});

const bool transfer = register_benchmark(
    {names::kGpuTransfer, "copy bandwidth H2D/D2H pinned and pageable, D2D, P2P with and without peer access",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       std::vector<int64_t> sizes = o.sizes;
       if (sizes.empty())
         sizes = {o.profile == Profile::tiny    ? (int64_t{1} << 20)
                  : o.profile == Profile::quick ? (int64_t{256} << 20)
                                                : (int64_t{1} << 30)};
       struct K {
         const char* name;
         Kind kind;
         bool flag;
         const char* what;
         double traffic;  // bytes counted per copied byte
       };
       const K kinds[] = {
           {"h2d_pinned", Kind::h2d, true, "host-to-device from pinned host memory", 1},
           {"h2d_pageable", Kind::h2d, false, "host-to-device from pageable host memory", 1},
           {"d2h_pinned", Kind::d2h, true, "device-to-host into pinned host memory", 1},
           {"d2h_pageable", Kind::d2h, false, "device-to-host into pageable host memory", 1},
           {"d2d", Kind::d2d, true, "device-to-device on one GPU (bytes read + bytes written)", 2},
           {"p2p_no_peer_access", Kind::p2p, false, "GPU 0 to GPU 1 with peer access off (staged)", 1},
           {"p2p_peer_access", Kind::p2p, true, "GPU 0 to GPU 1 with peer access on (NVLink or PCIe P2P)", 1},
       };
       for (const K& k : kinds)
         for (int64_t bytes : sizes) {
           Case c;
           c.name = fmt::format("{}/{}MiB", k.name, bytes >> 20);
           c.params = {{"copy", k.name},
                       {"bytes", std::to_string(bytes)},
                       {"what", k.what},
                       {"bytes_counted", k.traffic == 2 ? "read+written" : "copied"}};
           const int launches = copy_launches(static_cast<double>(bytes));  // copies per iteration
           c.work.bytes = launches * k.traffic * static_cast<double>(bytes);
           c.manual_time = true;
           Kind kind = k.kind;
           bool flag = k.flag;
           c.make = [kind, flag, bytes, launches]() -> std::unique_ptr<Kernel> {
             return std::make_unique<Copy>(kind, flag, static_cast<size_t>(bytes), launches);
           };
           cs.push_back(std::move(c));
         }
       return cs;
     }});

}  // namespace
}  // namespace rigcheck::gpu
