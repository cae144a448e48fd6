// Power, temperature, clocks and clock-event ("throttle") reasons of a GPU, sampled while a
// benchmark runs, through NVML (the suite's one loader: rigcheck/harness/nvml.hpp); CPU package
// energy through RAPL beside it (rigcheck/harness/rapl.hpp). The decoding and summarising are
// pure functions, unit-tested without a GPU:
//  - the peak is the largest instantaneous reading (NVML_FI_DEV_POWER_INSTANT), because
//    nvmlDeviceGetPowerUsage is a 1-second average on Ampere and newer (GA100 excepted): sampled
//    every 20 ms it smooths a peak away. Where the field is refused, the averages stand in and
//    the note says so.
//  - the mean is the total-energy counter's increase (nvmlDeviceGetTotalEnergyConsumption, mJ)
//    over the time between its first and last reading, when that spans at least 0.5 s; else the
//    mean of the instantaneous readings (else of the averages).
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/nvml.hpp"
#include "rigcheck/harness/rapl.hpp"

namespace rigcheck::gpu {

// RAPL moved to the harness (it is CPU power); these names stay for the GPU code and its tests.
using rigcheck::parse_rapl_uj;
using rigcheck::rapl_delta_j;
using rigcheck::rapl_package_files;

// One reading as NVML returns it (raw units; a field NVML refused is marked by its *_ok false).
struct RawSample {
  double t_s = 0;         // seconds since the sampler started
  unsigned power_mw = 0;  // nvmlDeviceGetPowerUsage: milliwatts (a 1 s average on Ampere+)
  bool power_ok = false;
  unsigned power_instant_mw = 0;  // field NVML_FI_DEV_POWER_INSTANT: milliwatts, instantaneous
  bool power_instant_ok = false;
  unsigned long long energy_mj = 0;  // nvmlDeviceGetTotalEnergyConsumption: mJ since the driver loaded
  bool energy_ok = false;
  unsigned temp_c = 0;  // nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU): degrees C
  bool temp_ok = false;
  unsigned sm_mhz = 0, mem_mhz = 0;  // nvmlDeviceGetClockInfo(NVML_CLOCK_SM / NVML_CLOCK_MEM)
  bool clocks_ok = false;
  unsigned long long reasons = 0;  // nvmlDeviceGetCurrentClocksEventReasons bitmask
  bool reasons_ok = false;
  unsigned long long mem_used = 0;   // nvmlDeviceGetMemoryInfo: bytes in use on the device
  unsigned long long mem_total = 0;  // and its total
  bool mem_ok = false;
  double cpu_energy_j = -1;  // RAPL packages' energy counter, summed (J); < 0 unreadable
};

// A sample in SI units; NaN where NVML did not answer.
struct Sample {
  double t_s, power_w, power_instant_w, energy_j, temp_c, sm_mhz, mem_mhz, mem_used_bytes;
  unsigned long long reasons;
  bool reasons_ok;
};
Sample decode(const RawSample& r);

// NVML clock-event ("throttle") reason bits, named; "none" for 0.
inline std::string throttle_reason_names(unsigned long long bits) { return nvml::clock_event_reason_names(bits); }
inline constexpr unsigned long long kThermalReasons = 0x20 | 0x40;  // SW/HW thermal slowdown
inline constexpr unsigned long long kPowerReasons = 0x4 | 0x80;     // SW power cap, HW power brake
inline constexpr unsigned long long kHwSlowdown = 0x8;              // HW slowdown (thermal or power)

// The shortest span of the energy counter's readings its increase is trusted over (the driver
// updates it in steps of tens of milliseconds).
inline constexpr double kMinEnergyWindowS = 0.5;

struct PowerSummary {
  int samples = 0;
  double power_max_w = NAN, power_mean_w = NAN, temp_max_c = NAN, temp_first_c = NAN;
  std::string power_max_method, power_mean_method;  // where each came from, in words (the rows' notes)
  int instant_samples = 0, average_samples = 0;     // readings of each power source in the window
  double energy_j = NAN, energy_window_s = NAN;     // the energy counter's increase and its span
  double sm_mhz_median = NAN, sm_mhz_min = NAN, mem_mhz_median = NAN, mem_used_max_bytes = NAN;
  double thermal_fraction = NAN;        // share of samples with a thermal slowdown reason
  double power_cap_fraction = NAN;      // share with a power-cap/brake reason
  unsigned long long reasons_seen = 0;  // union of every sample's reasons
  double cpu_power_mean_w = NAN;        // RAPL: energy / time over the samples (NaN: unreadable)
  double cpu_power_max_w = NAN;         // largest interval mean between successive samples
};
// Summary of the samples whose t_s lies in [from_s, to_s].
PowerSummary summarize(const std::vector<RawSample>& s, double from_s = 0, double to_s = 1e300);

// One device through NVML; every reading is optional (older drivers lack some).
class Nvml {
 public:
  // The device with this PCI bus id ("0000:17:00.0", from cudaDeviceGetPCIBusId), or index 0 when
  // pci_bus_id is empty. ok() false with why() otherwise.
  explicit Nvml(const std::string& pci_bus_id = "");
  bool ok() const { return dev_ != nullptr; }
  const std::string& why() const { return why_; }
  RawSample read() const;
  // nvmlDeviceGetCudaComputeCapability major, 0 when unknown.
  int cuda_cc_major() const;
  // nvml::device_facts of the device (power limit, PCIe link, clocks, modes...); empty when !ok().
  std::vector<std::pair<std::string, std::string>> facts() const;

 private:
  nvml::Device dev_ = nullptr;
  std::string why_;
};

// Samples one device every interval_ms on a thread of its own, from construction to stop().
class Sampler {
 public:
  Sampler(const Nvml& nvml, int interval_ms = 20);
  ~Sampler();
  double now_s() const;  // on the sampler's clock
  std::vector<RawSample> stop();

 private:
  void loop();
  const Nvml& nvml_;
  int interval_ms_;
  double start_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<RawSample> samples_;
  RaplCounters rapl_;
  std::thread th_;
};

// The rows a case reports from its samples (power_max_w, gpu_temp_max_c, sm_clock_median_mhz, ...),
// NaN quantities left out; each power row's note says which NVML reading it rests on, the others
// name the throttle reasons seen.
std::vector<Kernel::Observed> observed_rows(const PowerSummary& p);

}  // namespace rigcheck::gpu
