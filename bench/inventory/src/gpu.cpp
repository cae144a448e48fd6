// Inventory: NVIDIA GPUs and the CUDA libraries, through dlopen only (no link-time dependency).
#include "internal.hpp"

#include <tuple>

#include "rigcheck/harness/nvml.hpp"

namespace rigcheck::inventory_detail {

// "13000" -> "13.0", the CUDA version encoding (1000 * major + 10 * minor).
std::string cuda_version_text(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

// Libraries are dlopen()ed and deliberately never dlclose()d: the CUDA libraries
// leave threads and exit handlers behind that must not outlive their code.
void* open_first(const std::vector<const char*>& names, std::string& error) {
  for (const char* n : names) {
    if (void* h = ::dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    if (error.empty()) error = dl_error_text();
  }
  return nullptr;
}

// GPUs through the CUDA driver API (libcuda.so.1), without CUDA headers.
void add_cuda_devices(Collector& c) {
  using CuInit = int (*)(unsigned);
  using CuIntOut = int (*)(int*);
  using CuDeviceGet = int (*)(int*, int);
  using CuDeviceGetName = int (*)(char*, int, int);
  using CuDeviceTotalMem = int (*)(std::size_t*, int);
  using CuDeviceGetAttribute = int (*)(int*, int, int);
  using CuGetErrorName = int (*)(int, const char**);

  std::string err;
  void* lib = open_first({"libcuda.so.1"}, err);
  if (lib == nullptr) {
    c.add("gpu_count", "0");
    c.add("gpu_note", "libcuda.so.1 not found: no NVIDIA driver");
    c.add("cuda_driver_version", unknown("libcuda.so.1 not found"));
    return;
  }
  auto cu_init = symbol<CuInit>(lib, "cuInit");
  auto driver_version = symbol<CuIntOut>(lib, "cuDriverGetVersion");
  auto device_count = symbol<CuIntOut>(lib, "cuDeviceGetCount");
  auto device_get = symbol<CuDeviceGet>(lib, "cuDeviceGet");
  auto device_name = symbol<CuDeviceGetName>(lib, "cuDeviceGetName");
  auto total_mem = symbol<CuDeviceTotalMem>(lib, "cuDeviceTotalMem_v2");
  auto attribute = symbol<CuDeviceGetAttribute>(lib, "cuDeviceGetAttribute");
  auto error_name = symbol<CuGetErrorName>(lib, "cuGetErrorName");
  auto describe = [&](const char* call, int rc) {
    const char* name = nullptr;
    if (error_name != nullptr && error_name(rc, &name) == 0 && name != nullptr)
      return fmt::format("{} returned {} ({})", call, rc, name);
    return fmt::format("{} returned {}", call, rc);
  };

  int dv = 0;
  const int dv_rc = driver_version != nullptr ? driver_version(&dv) : -1;
  const std::string driver = dv_rc == 0                  ? cuda_version_text(dv)
                             : driver_version == nullptr ? unknown("no cuDriverGetVersion in libcuda.so.1")
                                                         : unknown(describe("cuDriverGetVersion", dv_rc));
  if (cu_init == nullptr || device_count == nullptr || device_get == nullptr) {
    c.add("gpu_count", "0");
    c.add("gpu_note", "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDeviceGet");
    c.add("cuda_driver_version", driver);
    return;
  }
  const int init_rc = cu_init(0);
  int count = 0;
  const int count_rc = init_rc == 0 ? device_count(&count) : -1;
  if (init_rc != 0 || count_rc != 0 || count <= 0) {
    c.add("gpu_count", "0");
    if (init_rc != 0)
      c.add("gpu_note", describe("cuInit", init_rc) + (init_rc == 100 ? ": no CUDA device" : ""));
    else if (count_rc != 0)
      c.add("gpu_note", describe("cuDeviceGetCount", count_rc));
    else
      c.add("gpu_note", "cuDeviceGetCount found no device");
    c.add("cuda_driver_version", driver);
    return;
  }
  c.add("gpu_count", std::to_string(count));
  c.add("gpu_note", fmt::format("{} device(s) through libcuda.so.1", count));
  c.add("cuda_driver_version", driver);

  // Device attributes (CUdevice_attribute numbers).
  enum : int { kClockRate = 13, kSmCount = 16, kMemoryClock = 36, kBusWidth = 37, kCcMajor = 75, kCcMinor = 76 };
  for (int i = 0; i < count; ++i) {
    const std::string p = fmt::format("gpu{}_", i);
    int dev = 0;
    const int get_rc = device_get(&dev, i);
    auto attr = [&](int a) -> std::string {
      if (get_rc != 0) return unknown(describe("cuDeviceGet", get_rc));
      if (attribute == nullptr) return unknown("no cuDeviceGetAttribute in libcuda.so.1");
      int v = 0;
      const int rc = attribute(&v, a, dev);
      return rc == 0 ? std::to_string(v) : unknown(describe(fmt::format("cuDeviceGetAttribute({})", a).c_str(), rc));
    };
    char name[256] = {};
    const int name_rc = get_rc == 0 && device_name != nullptr ? device_name(name, sizeof name - 1, dev) : -1;
    c.add(p + "name", name_rc == 0 ? std::string(name) : unknown("cuDeviceGetName failed"));
    std::size_t bytes = 0;
    const int mem_rc = get_rc == 0 && total_mem != nullptr ? total_mem(&bytes, dev) : -1;
    c.add(p + "memory_bytes", mem_rc == 0 ? std::to_string(bytes) : unknown("cuDeviceTotalMem_v2 failed"));
    const std::string major = attr(kCcMajor), minor = attr(kCcMinor);
    c.add(p + "compute_capability", major.compare(0, 8, "unknown:") == 0   ? major
                                    : minor.compare(0, 8, "unknown:") == 0 ? minor
                                                                           : major + "." + minor);
    c.add(p + "sm_count", attr(kSmCount));
    c.add(p + "clock_khz", attr(kClockRate));
    c.add(p + "memory_clock_khz", attr(kMemoryClock));
    c.add(p + "memory_bus_bits", attr(kBusWidth));
  }
}

namespace {
// The NVIDIA driver's version and the facts of each GPU, through NVML.
void add_nvml_facts(Collector& c) {
  c.section("nvidia_driver_version", [&] {
    // NVML through the suite's one loader (rigcheck/harness/nvml.hpp), shared with the GPU
    // benchmarks' samplers.
    std::string why;
    if (nvml::library(&why) == nullptr) {
      c.add("nvidia_driver_version", unknown(why));
      return;
    }
    auto version = nvml::symbol<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
    char buf[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
    const int rc = version != nullptr ? version(buf, sizeof buf - 1) : nvml::kMissing;
    c.add("nvidia_driver_version",
          rc == 0 ? std::string(buf) : unknown(nvml::failure("nvmlSystemGetDriverVersion", rc)));
    // Per NVML device: UUID, ECC, MIG and persistence mode, clocks, power limits, PCIe link (NVML
    // numbers devices by PCI bus order, which CUDA follows only with CUDA_DEVICE_ORDER=PCI_BUS_ID:
    // hence the nvml_gpuN_ prefix).
    const unsigned n = nvml::device_count(&why);
    if (n == 0)
      c.add("nvml_gpu_count", why.empty() ? std::string("0") : unknown(why));
    else
      c.add("nvml_gpu_count", std::to_string(n));
    for (unsigned i = 0; i < n; ++i) {
      why.clear();
      nvml::Device dev = nvml::device_by_index(i, &why);
      if (dev == nullptr) {
        c.add(fmt::format("nvml_gpu{}_name", i), unknown(why));
        continue;
      }
      for (auto& [key, value] : nvml::device_facts(dev)) c.add(fmt::format("nvml_gpu{}_{}", i, key), value);
    }
  });
}
}  // namespace

// CUDA runtime version (libcudart), driver version (NVML), NCCL version.
void add_cuda_libraries(Collector& c) {
  c.section("cuda_runtime_version", [&] {
    std::string err;
    void* lib =
        open_first({"libcudart.so", "/usr/local/cuda/lib64/libcudart.so", "libcudart.so.13", "libcudart.so.12"}, err);
    auto get = lib != nullptr ? symbol<int (*)(int*)>(lib, "cudaRuntimeGetVersion") : nullptr;
    int v = 0;
    if (lib == nullptr)
      c.add("cuda_runtime_version", unknown("libcudart.so not found"));
    else if (get == nullptr)
      c.add("cuda_runtime_version", unknown("no cudaRuntimeGetVersion in libcudart"));
    else if (const int rc = get(&v); rc != 0)
      c.add("cuda_runtime_version", unknown(fmt::format("cudaRuntimeGetVersion returned {}", rc)));
    else
      c.add("cuda_runtime_version", cuda_version_text(v));
  });

  add_nvml_facts(c);

  // The math libraries the GPU benchmarks and LibTorch use, as the dynamic loader finds them from
  // here (the suite's binaries have /usr/local/cuda/lib64 in their run path).
  c.section("cublas_version", [&] {
    for (auto [key, names, getter] :
         {std::tuple{"cublaslt_version",
                     std::vector<const char*>{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                                              "/usr/local/cuda/lib64/libcublasLt.so"},
                     "cublasLtGetProperty"},
          std::tuple{"cublas_version",
                     std::vector<const char*>{"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                              "/usr/local/cuda/lib64/libcublas.so"},
                     "cublasGetProperty"},
          std::tuple{"cudnn_version",
                     std::vector<const char*>{"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so",
                                              "/usr/local/cuda/lib64/libcudnn.so"},
                     "cudnnGetProperty"}}) {
      std::string err;
      void* lib = open_first(names, err);
      if (lib == nullptr) {
        c.add(key, unknown(fmt::format("{} not found: {}", names.front(), err)));
        continue;
      }
      // (libraryPropertyType: MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2) -> status 0.
      auto get = symbol<int (*)(int, int*)>(lib, getter);
      int v[3] = {};
      int rc = get == nullptr ? -1 : 0;
      for (int p = 0; p < 3 && rc == 0; ++p) rc = get(p, &v[p]);
      c.add(key, rc == 0 ? fmt::format("{}.{}.{}", v[0], v[1], v[2])
                         : unknown(get == nullptr ? fmt::format("no {} in {}", getter, names.front())
                                                  : fmt::format("{} returned {}", getter, rc)));
    }
  });

  c.section("nccl_version", [&] {
    std::string err;
    void* lib = open_first({"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"}, err);
    auto get = lib != nullptr ? symbol<int (*)(int*)>(lib, "ncclGetVersion") : nullptr;
    int v = 0;
    if (lib == nullptr) {
      c.add("nccl_version", unknown("libnccl.so.2 not found"));
    } else if (get == nullptr) {
      c.add("nccl_version", unknown("no ncclGetVersion in libnccl.so.2"));
    } else if (const int rc = get(&v); rc != 0) {
      c.add("nccl_version", unknown(fmt::format("ncclGetVersion returned {}", rc)));
    } else if (v >= 20900) {  // major*10000 + minor*100 + patch since 2.9
      c.add("nccl_version", fmt::format("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100));
    } else {  // major*1000 + minor*100 + patch before
      c.add("nccl_version", fmt::format("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100));
    }
  });

  c.section("infiniband_devices", [&] {
    std::vector<std::string> names;
    list_dir("/sys/class/infiniband", names);
    c.add("infiniband_devices", names.empty() ? std::string("none") : join(names, ";"));
  });
}

}  // namespace rigcheck::inventory_detail
