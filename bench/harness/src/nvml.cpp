#include "rigcheck/harness/nvml.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

namespace rigcheck::nvml {

namespace {
struct Lib {
  void* handle = nullptr;
  std::string why;
};

// Opened and initialised once; never closed nor shut down (the driver's threads and exit handlers
// must not outlive its code, and NVML counts its own init/shutdown pairs anyway).
const Lib& lib() {
  static Lib l;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = ::dlerror();
      l.why = fmt::format("libnvidia-ml.so.1 not found (no NVIDIA driver): {}", e ? e : "dlopen failed");
      return;
    }
    auto init = reinterpret_cast<int (*)()>(::dlsym(h, "nvmlInit_v2"));
    if (!init) {
      l.why = "libnvidia-ml.so.1 lacks nvmlInit_v2";
      return;
    }
    if (const int rc = init(); rc != 0) {
      auto text = reinterpret_cast<const char* (*)(int)>(::dlsym(h, "nvmlErrorString"));
      l.why = fmt::format("nvmlInit_v2 returned {}{}", rc, text && text(rc) ? fmt::format(" ({})", text(rc)) : "");
      return;
    }
    l.handle = h;
  });
  return l;
}

template <class T>
T read_as(const unsigned char (&raw)[8]) {
  T v;
  std::memcpy(&v, raw, sizeof v);
  return v;
}
}  // namespace

double field_as_double(const FieldValue& v) {
  if (v.nvml_return != 0) return NAN;
  switch (v.value_type) {
    case 0: return read_as<double>(v.value);
    case 1: return read_as<unsigned int>(v.value);
    case 2: return static_cast<double>(read_as<unsigned long>(v.value));
    case 3: return static_cast<double>(read_as<unsigned long long>(v.value));
    case 4: return static_cast<double>(read_as<long long>(v.value));
    case 5: return read_as<int>(v.value);
    case 6: return read_as<unsigned short>(v.value);
    default: return NAN;
  }
}

void* library(std::string* why) {
  const Lib& l = lib();
  if (!l.handle && why) *why = l.why;
  return l.handle;
}

void* raw_symbol(const char* name) {
  void* h = library();
  return h ? ::dlsym(h, name) : nullptr;
}

std::string error_text(int rc) {
  auto text = symbol<const char* (*)(int)>("nvmlErrorString");
  const char* t = text ? text(rc) : nullptr;
  return t ? t : "";
}

std::string failure(const char* fn, int rc) {
  std::string why;
  if (!library(&why)) return why;
  if (rc == kMissing) return fmt::format("{} missing in libnvidia-ml.so.1 (an older driver)", fn);
  const std::string t = error_text(rc);
  return t.empty() ? fmt::format("{} returned {}", fn, rc) : fmt::format("{} returned {} ({})", fn, rc, t);
}

unsigned device_count(std::string* why) {
  auto count = symbol<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  unsigned n = 0;
  const int rc = count ? count(&n) : kMissing;
  if (rc != 0) {
    if (why) *why = failure("nvmlDeviceGetCount_v2", rc);
    return 0;
  }
  return n;
}

Device device_by_index(unsigned index, std::string* why) {
  auto get = symbol<int (*)(unsigned, Device*)>("nvmlDeviceGetHandleByIndex_v2");
  Device d = nullptr;
  const int rc = get ? get(index, &d) : kMissing;
  if (rc != 0 || !d) {
    if (why) *why = failure("nvmlDeviceGetHandleByIndex_v2", rc);
    return nullptr;
  }
  return d;
}

Device device_by_pci_bus_id(const std::string& bus_id, std::string* why) {
  auto get = symbol<int (*)(const char*, Device*)>("nvmlDeviceGetHandleByPciBusId_v2");
  Device d = nullptr;
  const int rc = get ? get(bus_id.c_str(), &d) : kMissing;
  if (rc != 0 || !d) {
    if (why)
      *why = fmt::format("no NVML device with PCI bus id '{}': {}", bus_id,
                         failure("nvmlDeviceGetHandleByPciBusId_v2", rc));
    return nullptr;
  }
  return d;
}

int get_uint(Device d, const char* fn, unsigned& out) {
  auto f = symbol<int (*)(Device, unsigned*)>(fn);
  if (!f) return kMissing;
  unsigned v = 0;
  const int rc = f(d, &v);
  if (rc == 0) out = v;
  return rc;
}

int get_ull(Device d, const char* fn, unsigned long long& out) {
  auto f = symbol<int (*)(Device, unsigned long long*)>(fn);
  if (!f) return kMissing;
  unsigned long long v = 0;
  const int rc = f(d, &v);
  if (rc == 0) out = v;
  return rc;
}

std::string clock_event_reason_names(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> names[] = {{0x1, "gpu_idle"},
                                                                     {0x2, "applications_clocks_setting"},
                                                                     {0x4, "sw_power_cap"},
                                                                     {0x8, "hw_slowdown"},
                                                                     {0x10, "sync_boost"},
                                                                     {0x20, "sw_thermal_slowdown"},
                                                                     {0x40, "hw_thermal_slowdown"},
                                                                     {0x80, "hw_power_brake_slowdown"},
                                                                     {0x100, "display_clock_setting"}};
  std::string out;
  unsigned long long known = 0;
  for (auto& [b, n] : names) {
    known |= b;
    if (bits & b) out += (out.empty() ? "" : "+") + std::string(n);
  }
  if (bits & ~known) out += (out.empty() ? "" : "+") + fmt::format("other_0x{:x}", bits & ~known);
  return out.empty() ? "none" : out;
}

std::vector<std::pair<std::string, std::string>> device_facts(Device d) {
  std::vector<std::pair<std::string, std::string>> f;
  auto unknown = [](const std::string& why) { return "unknown: " + why; };
  auto text = [&](const char* fn, const char* key) {
    auto get = symbol<int (*)(Device, char*, unsigned)>(fn);
    char buf[128] = {};
    const int rc = get ? get(d, buf, sizeof buf - 1) : kMissing;
    f.emplace_back(key, rc == 0 && buf[0] ? std::string(buf) : unknown(failure(fn, rc)));
  };
  auto uint_fact = [&](const char* fn, const char* key, double scale) {
    unsigned v = 0;
    const int rc = get_uint(d, fn, v);
    f.emplace_back(key, rc == 0 ? fmt::format("{:g}", v * scale) : unknown(failure(fn, rc)));
  };
  // A pair of enable states or modes (current, pending), "enabled"/"disabled".
  auto pair_fact = [&](const char* fn, const char* key) {
    auto get = symbol<int (*)(Device, unsigned*, unsigned*)>(fn);
    unsigned cur = 0, pend = 0;
    const int rc = get ? get(d, &cur, &pend) : kMissing;
    auto word = [](unsigned s) { return s ? "enabled" : "disabled"; };
    f.emplace_back(
        key, rc == 0 ? (cur == pend ? std::string(word(cur)) : fmt::format("{} (pending: {})", word(cur), word(pend)))
                     : unknown(failure(fn, rc)));
  };
  // Clock per type (NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2), MHz.
  auto clock_fact = [&](const char* fn, int type, const char* key) {
    auto get = symbol<int (*)(Device, int, unsigned*)>(fn);
    unsigned mhz = 0;
    const int rc = get ? get(d, type, &mhz) : kMissing;
    f.emplace_back(key, rc == 0 ? std::to_string(mhz) : unknown(failure(fn, rc)));
  };
  text("nvmlDeviceGetName", "name");
  text("nvmlDeviceGetUUID", "uuid");
  pair_fact("nvmlDeviceGetEccMode", "ecc_mode");
  pair_fact("nvmlDeviceGetMigMode", "mig_mode");
  {
    unsigned mode = 0;
    const int rc = get_uint(d, "nvmlDeviceGetPersistenceMode", mode);
    f.emplace_back("persistence_mode",
                   rc == 0 ? (mode ? "enabled" : "disabled") : unknown(failure("nvmlDeviceGetPersistenceMode", rc)));
  }
  clock_fact("nvmlDeviceGetApplicationsClock", 1, "applications_clock_sm_mhz");
  clock_fact("nvmlDeviceGetApplicationsClock", 2, "applications_clock_mem_mhz");
  clock_fact("nvmlDeviceGetDefaultApplicationsClock", 1, "default_applications_clock_sm_mhz");
  clock_fact("nvmlDeviceGetDefaultApplicationsClock", 2, "default_applications_clock_mem_mhz");
  clock_fact("nvmlDeviceGetMaxClockInfo", 1, "max_clock_sm_mhz");
  clock_fact("nvmlDeviceGetMaxClockInfo", 2, "max_clock_mem_mhz");
  uint_fact("nvmlDeviceGetEnforcedPowerLimit", "power_limit_w", 1e-3);
  uint_fact("nvmlDeviceGetPowerManagementDefaultLimit", "power_limit_default_w", 1e-3);
  {
    auto get = symbol<int (*)(Device, unsigned*, unsigned*)>("nvmlDeviceGetPowerManagementLimitConstraints");
    unsigned lo = 0, hi = 0;
    const int rc = get ? get(d, &lo, &hi) : kMissing;
    f.emplace_back("power_limit_range_w", rc == 0
                                              ? fmt::format("{:g}-{:g}", lo * 1e-3, hi * 1e-3)
                                              : unknown(failure("nvmlDeviceGetPowerManagementLimitConstraints", rc)));
  }
  uint_fact("nvmlDeviceGetCurrPcieLinkGeneration", "pcie_gen", 1);
  uint_fact("nvmlDeviceGetCurrPcieLinkWidth", "pcie_width", 1);
  uint_fact("nvmlDeviceGetMaxPcieLinkGeneration", "pcie_gen_max", 1);
  uint_fact("nvmlDeviceGetMaxPcieLinkWidth", "pcie_width_max", 1);
  {
    // Locked clocks (nvidia-smi -lgc) have no NVML getter; while they or applications clocks hold,
    // the reasons include applications_clocks_setting.
    unsigned long long bits = 0;
    int rc = get_ull(d, "nvmlDeviceGetCurrentClocksEventReasons", bits);
    const char* fn = "nvmlDeviceGetCurrentClocksEventReasons";
    if (rc == kMissing) {
      fn = "nvmlDeviceGetCurrentClocksThrottleReasons";
      rc = get_ull(d, fn, bits);
    }
    f.emplace_back("clocks_event_reasons_now", rc == 0 ? clock_event_reason_names(bits) : unknown(failure(fn, rc)));
  }
  return f;
}

}  // namespace rigcheck::nvml
