// Power, temperature, clocks and throttle reasons of a GPU, sampled while a benchmark runs, through
// NVML loaded at run time (dlopen of libnvidia-ml.so.1, the few functions used declared here:
// the toolkit ships no NVML header or library). CPU package power through RAPL (powercap sysfs)
// where readable. The decoding and summarising are pure functions, unit-tested without a GPU.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rigcheck::gpu {

// One reading as NVML returns it (raw units; a field NVML refused is marked by its *_ok false).
struct RawSample {
  double t_s = 0;                    // seconds since the sampler started
  unsigned power_mw = 0;             // nvmlDeviceGetPowerUsage: milliwatts
  bool power_ok = false;
  unsigned temp_c = 0;               // nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU): degrees C
  bool temp_ok = false;
  unsigned sm_mhz = 0, mem_mhz = 0;  // nvmlDeviceGetClockInfo(NVML_CLOCK_SM / NVML_CLOCK_MEM)
  bool clocks_ok = false;
  unsigned long long reasons = 0;    // nvmlDeviceGetCurrentClocksEventReasons bitmask
  bool reasons_ok = false;
  unsigned long long mem_used = 0;   // nvmlDeviceGetMemoryInfo: bytes in use on the device
  unsigned long long mem_total = 0;  // and its total
  bool mem_ok = false;
  double cpu_energy_j = -1;          // RAPL packages' energy counter, summed (J); < 0 unreadable
};

// A sample in SI units; NaN where NVML did not answer.
struct Sample {
  double t_s, power_w, temp_c, sm_mhz, mem_mhz, mem_used_bytes;
  unsigned long long reasons;
  bool reasons_ok;
};
Sample decode(const RawSample& r);

// NVML clock-event ("throttle") reason bits, named; "none" for 0.
std::string throttle_reason_names(unsigned long long bits);
inline constexpr unsigned long long kThermalReasons = 0x20 | 0x40;  // SW/HW thermal slowdown
inline constexpr unsigned long long kPowerReasons = 0x4 | 0x80;     // SW power cap, HW power brake
inline constexpr unsigned long long kHwSlowdown = 0x8;              // HW slowdown (thermal or power)

struct PowerSummary {
  int samples = 0;
  double power_max_w = NAN, power_mean_w = NAN, temp_max_c = NAN, temp_first_c = NAN;
  double sm_mhz_median = NAN, sm_mhz_min = NAN, mem_mhz_median = NAN, mem_used_max_bytes = NAN;
  double thermal_fraction = NAN;  // share of samples with a thermal slowdown reason
  double power_cap_fraction = NAN;  // share with a power-cap/brake reason
  unsigned long long reasons_seen = 0;  // union of every sample's reasons
  double cpu_power_mean_w = NAN;   // RAPL: energy / time over the samples (NaN: unreadable)
  double cpu_power_max_w = NAN;    // largest interval mean between successive samples
};
// Summary of the samples whose t_s lies in [from_s, to_s].
PowerSummary summarize(const std::vector<RawSample>& s, double from_s = 0, double to_s = 1e300);

// RAPL: the text of a powercap `energy_uj` file ("123456\n") to joules; throws std::invalid_argument
// on anything else. Deltas across the counter's wrap (max_energy_range_uj) are handled by
// rapl_delta_j.
double parse_rapl_uj(const std::string& text);
double rapl_delta_j(double before_j, double after_j, double range_j);

// The NVML library and one device; every function is optional (older drivers lack some).
class Nvml {
 public:
  // Opens libnvidia-ml.so.1 and finds the device with this PCI bus id ("0000:17:00.0", from
  // cudaDeviceGetPCIBusId), or index 0 when pci_bus_id is empty. ok() false with why() otherwise.
  explicit Nvml(const std::string& pci_bus_id = "");
  ~Nvml();
  bool ok() const { return dev_ != nullptr; }
  const std::string& why() const { return why_; }
  RawSample read() const;
  // nvmlDeviceGetCudaComputeCapability major, 0 when unknown.
  int cuda_cc_major() const;
  // Facts: power limit, PCIe generation and width (current and maximum); "unknown: ..." where NVML refuses.
  std::vector<std::pair<std::string, std::string>> facts() const;

 private:
  void* lib_ = nullptr;
  void* dev_ = nullptr;
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
  std::vector<std::string> rapl_files_;
  std::vector<double> rapl_ranges_;
  std::thread th_;
};

// RAPL package energy counters readable here (paths), and why not when none.
std::vector<std::string> rapl_package_files(std::string* why = nullptr);

}  // namespace rigcheck::gpu

#include "rigcheck/harness/harness.hpp"
namespace rigcheck::gpu {
// The rows a case reports from its samples (power_max_w, gpu_temp_max_c, sm_clock_median_mhz, ...),
// NaN quantities left out; the note names the throttle reasons seen.
std::vector<Kernel::Observed> observed_rows(const PowerSummary& p);
}  // namespace rigcheck::gpu
