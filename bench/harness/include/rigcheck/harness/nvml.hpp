// NVIDIA's management library (NVML), loaded at run time: dlopen of libnvidia-ml.so.1, which comes
// with the driver (the CUDA toolkit ships neither its header nor a library to link against). The one
// loader of the suite: the GPU benchmarks' samplers (gpu/power.cpp) and the inventory
// (bench/inventory/src/gpu.cpp) both use it. The few functions used are declared here by their C
// signatures; each is optional (older drivers lack some), and a call that gives nothing says why
// ("nvmlDeviceGetMigMode returned 3 (Not Supported)", "... missing in libnvidia-ml.so.1").
// The library is opened and initialised once per process and never closed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rigcheck::nvml {

using Device = void*;  // nvmlDevice_t

// nvmlFieldValue_t (nvml.h), 40 bytes.
struct FieldValue {
  unsigned field_id = 0;
  unsigned scope_id = 0;
  long long timestamp_us = 0;
  long long latency_us = 0;
  int value_type = 0;           // nvmlValueType_t
  int nvml_return = 0;          // nvmlReturn_t of this field
  unsigned char value[8] = {};  // nvmlValue_t, a union read by value_type
};
static_assert(sizeof(FieldValue) == 40, "nvmlFieldValue_t is 40 bytes");

// Field ids (nvml.h NVML_FI_DEV_*).
inline constexpr unsigned kFieldPowerAverage = 185;  // 1-second average (Ampere and newer, GA100 excepted)
inline constexpr unsigned kFieldPowerInstant = 186;  // instantaneous board power, milliwatts

// A field's value as a double, read by its value type (0 double, 1 unsigned int, 2 unsigned long,
// 3 unsigned long long, 4 signed long long, 5 signed int, 6 unsigned short); NaN for another type
// or when the field's own status is not success. Pure: unit-tested without a GPU.
double field_as_double(const FieldValue& v);

// The library handle after nvmlInit_v2, or nullptr with why (never throws).
void* library(std::string* why = nullptr);

// A function of the library by name, typed; nullptr when the library or the function is absent.
void* raw_symbol(const char* name);
template <class F>
F symbol(const char* name) {
  return reinterpret_cast<F>(raw_symbol(name));
}

// "Not Supported" for 3, through nvmlErrorString when present.
std::string error_text(int rc);
// Why a call gave nothing: "<fn> returned <rc> (<text>)", or "<fn> missing in libnvidia-ml.so.1" for
// rc == kMissing, or why the library itself is unusable.
inline constexpr int kMissing = -1;
std::string failure(const char* fn, int rc);

// Devices in NVML's order (PCI bus order; CUDA follows it only with CUDA_DEVICE_ORDER=PCI_BUS_ID).
// Each returns nullptr / 0 and says why.
unsigned device_count(std::string* why = nullptr);
Device device_by_index(unsigned index, std::string* why = nullptr);
Device device_by_pci_bus_id(const std::string& bus_id, std::string* why = nullptr);

// nvmlDeviceGet<fn>(device, unsigned*) and (device, unsigned long long*): the status, kMissing
// when the function is absent; out untouched on failure.
int get_uint(Device d, const char* fn, unsigned& out);
int get_ull(Device d, const char* fn, unsigned long long& out);

// The facts a driver comparison turns on, for one device, each "unknown: why" where NVML refuses:
// uuid, ecc_mode (current/pending), mig_mode, persistence_mode, applications and default
// applications clocks, maximum clocks, power limits (enforced, default, min, max) in watts, PCIe
// generation and width (current and maximum), clocks-event reasons now.
std::vector<std::pair<std::string, std::string>> device_facts(Device d);

// NVML clock-event ("throttle") reason bits, named and joined by '+'; "none" for 0.
std::string clock_event_reason_names(unsigned long long bits);

}  // namespace rigcheck::nvml
