// CUDA runtime helpers shared by the GPU benchmarks: errors as exceptions naming the call, and
// the reason a case must be skipped on this machine (no driver, no device, too old a GPU).
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "rigcheck/harness/harness.hpp"

namespace rigcheck::gpu {

inline std::string cuda_error_text(cudaError_t e) {
  return fmt::format("{} ({})", cudaGetErrorName(e), cudaGetErrorString(e));
}

#define RIGCHECK_CUDA(call)                                                                                \
  do {                                                                                                     \
    cudaError_t rc_ = (call);                                                                              \
    if (rc_ != cudaSuccess)                                                                                \
      throw std::runtime_error(                                                                            \
          fmt::format("{}:{}: {}: {}", __FILE__, __LINE__, #call, ::rigcheck::gpu::cuda_error_text(rc_))); \
  } while (0)

// Why cudaGetDeviceCount failed, in words a user can act on. Without a driver it returns
// cudaErrorInsufficientDriver (35) and leaves the count untouched (docs/machines.md), the same
// status as a driver too old for this runtime: cudaDriverGetVersion tells them apart (0 when
// libcuda.so.1 cannot be loaded), and the inventory words the first case alike.
inline std::string no_gpu_reason(cudaError_t rc) {
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaGetLastError();
  auto ver = [](int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); };
  if (driver == 0) return "libcuda.so.1 not found: no NVIDIA driver";
  if (rc == cudaErrorInsufficientDriver)
    return fmt::format("the NVIDIA driver supports CUDA {}, this binary's CUDA runtime needs {} (a newer driver)",
                       ver(driver), ver(runtime));
  return fmt::format("no usable CUDA GPU: cudaGetDeviceCount returned {}", cuda_error_text(rc));
}

// Number of usable CUDA devices, or throws Skip with why there is none: any non-zero status
// means no GPU.
inline int require_gpus(int at_least = 1) {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    throw Skip(no_gpu_reason(rc));
  }
  if (n < at_least) throw Skip(fmt::format("needs {} CUDA GPU(s), this machine has {}", at_least, n));
  return n;
}

struct DeviceInfo {
  int index = 0;
  std::string name, pci_bus_id;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  size_t memory_bytes = 0;
};

inline DeviceInfo device_info(int dev) {
  cudaDeviceProp p{};
  RIGCHECK_CUDA(cudaGetDeviceProperties(&p, dev));
  DeviceInfo d;
  d.index = dev;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.memory_bytes = p.totalGlobalMem;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess) d.pci_bus_id = bus;
  return d;
}

inline Params device_facts(const DeviceInfo& d) {
  return {{"gpu", d.name},
          {"gpu_index", std::to_string(d.index)},
          {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"sm_count", std::to_string(d.sm_count)}};
}

// A pair of CUDA events on a stream: seconds between them.
class EventTimer {
 public:
  EventTimer() {
    RIGCHECK_CUDA(cudaEventCreate(&a_));
    RIGCHECK_CUDA(cudaEventCreate(&b_));
  }
  ~EventTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  void start(cudaStream_t s) { RIGCHECK_CUDA(cudaEventRecord(a_, s)); }
  double stop(cudaStream_t s) {
    RIGCHECK_CUDA(cudaEventRecord(b_, s));
    RIGCHECK_CUDA(cudaEventSynchronize(b_));
    float ms = 0;
    RIGCHECK_CUDA(cudaEventElapsedTime(&ms, a_, b_));
    return ms * 1e-3;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

}  // namespace rigcheck::gpu
