#include "power.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck::gpu {

Sample decode(const RawSample& r) {
  Sample s;
  s.t_s = r.t_s;
  s.power_w = r.power_ok ? r.power_mw / 1000.0 : NAN;
  s.power_instant_w = r.power_instant_ok ? r.power_instant_mw / 1000.0 : NAN;
  s.energy_j = r.energy_ok ? static_cast<double>(r.energy_mj) / 1000.0 : NAN;
  s.temp_c = r.temp_ok ? static_cast<double>(r.temp_c) : NAN;
  s.sm_mhz = r.clocks_ok ? static_cast<double>(r.sm_mhz) : NAN;
  s.mem_mhz = r.clocks_ok ? static_cast<double>(r.mem_mhz) : NAN;
  s.mem_used_bytes = r.mem_ok ? static_cast<double>(r.mem_used) : NAN;
  s.reasons = r.reasons_ok ? r.reasons : 0;
  s.reasons_ok = r.reasons_ok;
  return s;
}

namespace {
double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}
}  // namespace

PowerSummary summarize(const std::vector<RawSample>& raw, double from_s, double to_s) {
  PowerSummary p;
  std::vector<double> instant, average, sm, mem;
  int reasons_n = 0, thermal = 0, capped = 0;
  double temp_max = NAN, mem_max = NAN, temp_first = NAN;
  double e0 = -1, t0 = 0, prev_e = -1, prev_t = 0, cpu_max = NAN;
  // GPU energy: increases between successive readings (a decrease is the counter starting again,
  // as after a driver reload: that step is dropped), over the span of the readings.
  double gpu_prev_j = NAN, gpu_first_t = NAN, gpu_last_t = NAN, gpu_sum_j = 0;
  for (const RawSample& r : raw) {
    if (r.t_s < from_s || r.t_s > to_s) continue;
    Sample s = decode(r);
    ++p.samples;
    if (!std::isnan(s.power_instant_w)) instant.push_back(s.power_instant_w);
    if (!std::isnan(s.power_w)) average.push_back(s.power_w);
    if (!std::isnan(s.energy_j)) {
      if (std::isnan(gpu_prev_j))
        gpu_first_t = r.t_s;
      else if (s.energy_j >= gpu_prev_j)
        gpu_sum_j += s.energy_j - gpu_prev_j;
      gpu_prev_j = s.energy_j;
      gpu_last_t = r.t_s;
    }
    if (!std::isnan(s.sm_mhz)) sm.push_back(s.sm_mhz);
    if (!std::isnan(s.mem_mhz)) mem.push_back(s.mem_mhz);
    if (!std::isnan(s.temp_c)) {
      if (std::isnan(temp_first)) temp_first = s.temp_c;
      temp_max = std::isnan(temp_max) ? s.temp_c : std::max(temp_max, s.temp_c);
    }
    if (!std::isnan(s.mem_used_bytes))
      mem_max = std::isnan(mem_max) ? s.mem_used_bytes : std::max(mem_max, s.mem_used_bytes);
    if (s.reasons_ok) {
      ++reasons_n;
      p.reasons_seen |= s.reasons;
      if (s.reasons & kThermalReasons) ++thermal;
      if (s.reasons & kPowerReasons) ++capped;
    }
    if (r.cpu_energy_j >= 0) {
      if (e0 < 0) {
        e0 = r.cpu_energy_j;
        t0 = r.t_s;
      } else if (r.t_s > prev_t && r.cpu_energy_j >= prev_e) {
        double w = (r.cpu_energy_j - prev_e) / (r.t_s - prev_t);
        cpu_max = std::isnan(cpu_max) ? w : std::max(cpu_max, w);
        if (r.t_s > t0) p.cpu_power_mean_w = (r.cpu_energy_j - e0) / (r.t_s - t0);
      }
      prev_e = r.cpu_energy_j;
      prev_t = r.t_s;
    }
  }
  p.instant_samples = static_cast<int>(instant.size());
  p.average_samples = static_cast<int>(average.size());
  if (!instant.empty()) {
    p.power_max_w = *std::max_element(instant.begin(), instant.end());
    p.power_max_method =
        fmt::format("largest of {} instantaneous readings (NVML field NVML_FI_DEV_POWER_INSTANT)", instant.size());
  } else if (!average.empty()) {
    p.power_max_w = *std::max_element(average.begin(), average.end());
    p.power_max_method = fmt::format(
        "largest of {} readings of nvmlDeviceGetPowerUsage (NVML refused the instantaneous field): a 1-second average "
        "on Ampere and newer except the A100, so a shorter peak is understated",
        average.size());
  }
  const double window = gpu_last_t - gpu_first_t;
  if (!std::isnan(window) && window >= kMinEnergyWindowS) {
    p.energy_j = gpu_sum_j;
    p.energy_window_s = window;
    p.power_mean_w = gpu_sum_j / window;
    p.power_mean_method = fmt::format(
        "total-energy counter (nvmlDeviceGetTotalEnergyConsumption): {:.1f} J over {:.2f} s", gpu_sum_j, window);
  } else if (!instant.empty()) {
    p.power_mean_w = mean(instant);
    p.power_mean_method =
        fmt::format("mean of {} instantaneous readings (the energy counter spanned {}: under {} s)", instant.size(),
                    std::isnan(window) ? "nothing" : fmt::format("{:.2f} s", window), kMinEnergyWindowS);
  } else if (!average.empty()) {
    p.power_mean_w = mean(average);
    p.power_mean_method =
        fmt::format("mean of {} readings of nvmlDeviceGetPowerUsage (1-second averages)", average.size());
  }
  p.temp_max_c = temp_max;
  p.temp_first_c = temp_first;
  p.sm_mhz_median = median_of(sm);
  if (!sm.empty()) p.sm_mhz_min = *std::min_element(sm.begin(), sm.end());
  p.mem_mhz_median = median_of(mem);
  p.mem_used_max_bytes = mem_max;
  if (reasons_n) {
    p.thermal_fraction = static_cast<double>(thermal) / reasons_n;
    p.power_cap_fraction = static_cast<double>(capped) / reasons_n;
  }
  p.cpu_power_max_w = cpu_max;
  return p;
}

// ------------------------------------------------------------------ one device through NVML
Nvml::Nvml(const std::string& pci_bus_id) {
  if (!nvml::library(&why_)) return;
  dev_ = pci_bus_id.empty() ? nvml::device_by_index(0, &why_) : nvml::device_by_pci_bus_id(pci_bus_id, &why_);
}

RawSample Nvml::read() const {
  RawSample r;
  if (!dev_) return r;
  using nvml::symbol;
  static auto temp = symbol<int (*)(nvml::Device, int, unsigned*)>("nvmlDeviceGetTemperature");
  static auto clock = symbol<int (*)(nvml::Device, int, unsigned*)>("nvmlDeviceGetClockInfo");
  static auto reasons_new =
      symbol<int (*)(nvml::Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
  static auto reasons_old =
      symbol<int (*)(nvml::Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  static auto mem = symbol<int (*)(nvml::Device, unsigned long long*)>("nvmlDeviceGetMemoryInfo");
  static auto fields = symbol<int (*)(nvml::Device, int, nvml::FieldValue*)>("nvmlDeviceGetFieldValues");
  r.power_ok = nvml::get_uint(dev_, "nvmlDeviceGetPowerUsage", r.power_mw) == 0;
  r.energy_ok = nvml::get_ull(dev_, "nvmlDeviceGetTotalEnergyConsumption", r.energy_mj) == 0;
  if (fields) {
    nvml::FieldValue v;
    v.field_id = nvml::kFieldPowerInstant;
    v.scope_id = 0;  // NVML_POWER_SCOPE_GPU
    const double mw = fields(dev_, 1, &v) == 0 ? nvml::field_as_double(v) : NAN;
    r.power_instant_ok = std::isfinite(mw) && mw >= 0 && mw < 4.2e9;
    r.power_instant_mw = r.power_instant_ok ? static_cast<unsigned>(mw) : 0;
  }
  r.temp_ok = temp && temp(dev_, 0 /* NVML_TEMPERATURE_GPU */, &r.temp_c) == 0;
  r.clocks_ok = clock && clock(dev_, 1 /* NVML_CLOCK_SM */, &r.sm_mhz) == 0 &&
                clock(dev_, 2 /* NVML_CLOCK_MEM */, &r.mem_mhz) == 0;
  auto reasons = reasons_new ? reasons_new : reasons_old;
  r.reasons_ok = reasons && reasons(dev_, &r.reasons) == 0;
  unsigned long long m[3] = {};  // nvmlMemory_t: total, free, used
  r.mem_ok = mem && mem(dev_, m) == 0;
  r.mem_used = m[2];
  r.mem_total = m[0];
  return r;
}

int Nvml::cuda_cc_major() const {
  auto p = nvml::symbol<int (*)(nvml::Device, int*, int*)>("nvmlDeviceGetCudaComputeCapability");
  int major = 0, minor = 0;
  return dev_ && p && p(dev_, &major, &minor) == 0 ? major : 0;
}

std::vector<std::pair<std::string, std::string>> Nvml::facts() const {
  if (!dev_) return {};
  return nvml::device_facts(dev_);
}

// ------------------------------------------------------------------ sampler
namespace {
double mono_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

Sampler::Sampler(const Nvml& nvml, int interval_ms) : nvml_(nvml), interval_ms_(interval_ms), start_(mono_s()) {
  th_ = std::thread([this] { loop(); });
}

Sampler::~Sampler() {
  if (th_.joinable()) stop();
}

double Sampler::now_s() const { return mono_s() - start_; }

void Sampler::loop() {
  while (true) {
    RawSample r = nvml_.read();
    r.t_s = now_s();
    r.cpu_energy_j = rapl_.total_j();
    {
      std::lock_guard<std::mutex> g(mu_);
      samples_.push_back(r);
    }
    if (stop_.load()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms_));
  }
}

std::vector<RawSample> Sampler::stop() {
  stop_ = true;
  if (th_.joinable()) th_.join();
  std::lock_guard<std::mutex> g(mu_);
  return samples_;
}

std::vector<Kernel::Observed> observed_rows(const PowerSummary& p) {
  std::vector<Kernel::Observed> out;
  const std::string note =
      fmt::format("{} NVML samples; clock-event reasons seen: {}", p.samples, throttle_reason_names(p.reasons_seen));
  auto add = [&](const char* m, double v, const char* unit, const std::string& n) {
    if (!std::isnan(v)) out.push_back({m, unit, v, n});
  };
  add(names::kPowerMaxW, p.power_max_w, "W", p.power_max_method);
  add(names::kPowerMeanW, p.power_mean_w, "W", p.power_mean_method);
  add("gpu_energy_j", p.energy_j, "J", p.power_mean_method);
  add(names::kGpuTempMaxC, p.temp_max_c, "C", note);
  add("gpu_temp_first_c", p.temp_first_c, "C", note);
  add(names::kSmClockMedianMhz, p.sm_mhz_median, "MHz", note);
  add("sm_clock_min_mhz", p.sm_mhz_min, "MHz", note);
  add("mem_clock_median_mhz", p.mem_mhz_median, "MHz", note);
  add(names::kThermalThrottleFraction, p.thermal_fraction, "fraction", note);
  add("power_cap_fraction", p.power_cap_fraction, "fraction", note);
  add("throttle_reasons_bits", p.samples ? static_cast<double>(p.reasons_seen) : NAN, "bitmask", note);
  add(names::kCpuPackagePowerMaxW, p.cpu_power_max_w, "W", note);
  add(names::kCpuPackagePowerMeanW, p.cpu_power_mean_w, "W", note);
  return out;
}

}  // namespace rigcheck::gpu
