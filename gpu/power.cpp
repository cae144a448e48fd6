#include "power.hpp"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace rigcheck::gpu {

Sample decode(const RawSample& r) {
  Sample s;
  s.t_s = r.t_s;
  s.power_w = r.power_ok ? r.power_mw / 1000.0 : NAN;
  s.temp_c = r.temp_ok ? static_cast<double>(r.temp_c) : NAN;
  s.sm_mhz = r.clocks_ok ? static_cast<double>(r.sm_mhz) : NAN;
  s.mem_mhz = r.clocks_ok ? static_cast<double>(r.mem_mhz) : NAN;
  s.mem_used_bytes = r.mem_ok ? static_cast<double>(r.mem_used) : NAN;
  s.reasons = r.reasons_ok ? r.reasons : 0;
  s.reasons_ok = r.reasons_ok;
  return s;
}

std::string throttle_reason_names(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"}};
  std::string out;
  unsigned long long known = 0;
  for (auto& [b, n] : names) {
    known |= b;
    if (bits & b) out += (out.empty() ? "" : "+") + std::string(n);
  }
  if (bits & ~known) out += (out.empty() ? "" : "+") + fmt::format("other_0x{:x}", bits & ~known);
  return out.empty() ? "none" : out;
}

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

PowerSummary summarize(const std::vector<RawSample>& raw, double from_s, double to_s) {
  PowerSummary p;
  std::vector<double> power, sm, mem;
  int reasons_n = 0, thermal = 0, capped = 0;
  double temp_max = NAN, mem_max = NAN, temp_first = NAN;
  double e0 = -1, t0 = 0, prev_e = -1, prev_t = 0, cpu_max = NAN;
  for (const RawSample& r : raw) {
    if (r.t_s < from_s || r.t_s > to_s) continue;
    Sample s = decode(r);
    ++p.samples;
    if (!std::isnan(s.power_w)) power.push_back(s.power_w);
    if (!std::isnan(s.sm_mhz)) sm.push_back(s.sm_mhz);
    if (!std::isnan(s.mem_mhz)) mem.push_back(s.mem_mhz);
    if (!std::isnan(s.temp_c)) {
      if (std::isnan(temp_first)) temp_first = s.temp_c;
      temp_max = std::isnan(temp_max) ? s.temp_c : std::max(temp_max, s.temp_c);
    }
    if (!std::isnan(s.mem_used_bytes)) mem_max = std::isnan(mem_max) ? s.mem_used_bytes : std::max(mem_max, s.mem_used_bytes);
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
  if (!power.empty()) {
    p.power_max_w = *std::max_element(power.begin(), power.end());
    double sum = 0;
    for (double w : power) sum += w;
    p.power_mean_w = sum / power.size();
  }
  p.temp_max_c = temp_max;
  p.temp_first_c = temp_first;
  p.sm_mhz_median = median(sm);
  if (!sm.empty()) p.sm_mhz_min = *std::min_element(sm.begin(), sm.end());
  p.mem_mhz_median = median(mem);
  p.mem_used_max_bytes = mem_max;
  if (reasons_n) {
    p.thermal_fraction = static_cast<double>(thermal) / reasons_n;
    p.power_cap_fraction = static_cast<double>(capped) / reasons_n;
  }
  p.cpu_power_max_w = cpu_max;
  return p;
}

double parse_rapl_uj(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(fmt::format("not a RAPL energy counter (microjoules): '{}'", text));
  // The kernel's counter is a u64: 20 digits at most. Without this limit, 309 digits made std::stod
  // throw std::out_of_range, not the documented invalid_argument (tests/fuzz, kernel_text).
  if (t.size() > 20) throw std::invalid_argument(fmt::format("not a RAPL energy counter (more than 20 digits): '{}'", text));
  return std::stod(t) * 1e-6;
}

double rapl_delta_j(double before_j, double after_j, double range_j) {
  return after_j >= before_j ? after_j - before_j : after_j + range_j - before_j;
}

namespace {
std::string slurp(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  ok = ok && !in.bad();
  return ss.str();
}
}  // namespace

std::vector<std::string> rapl_package_files(std::string* why) {
  std::vector<std::string> files;
  const std::string root = "/sys/class/powercap";
  DIR* d = opendir(root.c_str());
  if (!d) {
    if (why) *why = root + " is absent (no powercap/RAPL driver)";
    return files;
  }
  std::string denied;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    // Top-level zones only ("intel-rapl:0", also used for AMD packages), not "intel-rapl:0:0".
    if (n.rfind("intel-rapl:", 0) != 0 || std::count(n.begin(), n.end(), ':') != 1) continue;
    bool ok = false;
    std::string name = slurp(root + "/" + n + "/name", ok);
    if (!ok || name.rfind("package", 0) != 0) continue;
    std::string f = root + "/" + n + "/energy_uj";
    slurp(f, ok);
    if (ok) files.push_back(f);
    else denied = f;
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty() && why) *why = denied.empty() ? "no RAPL package zone under " + root : denied + " is not readable";
  return files;
}

// ------------------------------------------------------------------ NVML through dlopen
namespace {
using nvmlDevice_t = void*;
struct NvmlMemory {
  unsigned long long total, free, used;
};
template <class F>
F sym(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}
}  // namespace

Nvml::Nvml(const std::string& pci_bus_id) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    why_ = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  auto init = sym<int (*)()>(lib_, "nvmlInit_v2");
  if (!init) {
    why_ = "libnvidia-ml.so.1 lacks nvmlInit_v2";
    return;
  }
  if (int rc = init(); rc != 0) {
    why_ = fmt::format("nvmlInit_v2 returned {}", rc);
    return;
  }
  nvmlDevice_t dev = nullptr;
  int rc = -1;
  if (!pci_bus_id.empty()) {
    if (auto by_pci = sym<int (*)(const char*, nvmlDevice_t*)>(lib_, "nvmlDeviceGetHandleByPciBusId_v2"))
      rc = by_pci(pci_bus_id.c_str(), &dev);
  }
  if (rc != 0) {
    if (auto by_index = sym<int (*)(unsigned, nvmlDevice_t*)>(lib_, "nvmlDeviceGetHandleByIndex_v2"))
      rc = pci_bus_id.empty() ? by_index(0, &dev) : rc;
  }
  if (rc != 0 || !dev) {
    why_ = fmt::format("NVML has no device with PCI bus id '{}' (status {})", pci_bus_id, rc);
    return;
  }
  dev_ = dev;
}

Nvml::~Nvml() {
  if (dev_)
    if (auto shut = sym<int (*)()>(lib_, "nvmlShutdown")) shut();
  // The library stays loaded (never dlclose()d, as the inventory does).
}

RawSample Nvml::read() const {
  RawSample r;
  if (!dev_) return r;
  static auto power = sym<int (*)(nvmlDevice_t, unsigned*)>(lib_, "nvmlDeviceGetPowerUsage");
  static auto temp = sym<int (*)(nvmlDevice_t, int, unsigned*)>(lib_, "nvmlDeviceGetTemperature");
  static auto clock = sym<int (*)(nvmlDevice_t, int, unsigned*)>(lib_, "nvmlDeviceGetClockInfo");
  static auto reasons_new = sym<int (*)(nvmlDevice_t, unsigned long long*)>(lib_, "nvmlDeviceGetCurrentClocksEventReasons");
  static auto reasons_old = sym<int (*)(nvmlDevice_t, unsigned long long*)>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  static auto mem = sym<int (*)(nvmlDevice_t, NvmlMemory*)>(lib_, "nvmlDeviceGetMemoryInfo");
  r.power_ok = power && power(dev_, &r.power_mw) == 0;
  r.temp_ok = temp && temp(dev_, 0 /* NVML_TEMPERATURE_GPU */, &r.temp_c) == 0;
  r.clocks_ok = clock && clock(dev_, 1 /* NVML_CLOCK_SM */, &r.sm_mhz) == 0 && clock(dev_, 2 /* NVML_CLOCK_MEM */, &r.mem_mhz) == 0;
  auto reasons = reasons_new ? reasons_new : reasons_old;
  r.reasons_ok = reasons && reasons(dev_, &r.reasons) == 0;
  NvmlMemory m{};
  r.mem_ok = mem && mem(dev_, &m) == 0;
  r.mem_used = m.used;
  r.mem_total = m.total;
  return r;
}

int Nvml::cuda_cc_major() const {
  auto p = sym<int (*)(nvmlDevice_t, int*, int*)>(lib_, "nvmlDeviceGetCudaComputeCapability");
  int major = 0, minor = 0;
  return dev_ && p && p(dev_, &major, &minor) == 0 ? major : 0;
}

std::vector<std::pair<std::string, std::string>> Nvml::facts() const {
  std::vector<std::pair<std::string, std::string>> f;
  if (!dev_) return f;
  auto get_u = [&](const char* fn, const char* key, double scale, const char* fmt_unit) {
    auto p = sym<int (*)(nvmlDevice_t, unsigned*)>(lib_, fn);
    unsigned v = 0;
    int rc = p ? p(dev_, &v) : -1;
    f.emplace_back(key, rc == 0 ? fmt::format("{:g}{}", v * scale, fmt_unit)
                                : fmt::format("unknown: {} {}", fn, p ? fmt::format("returned {}", rc) : "missing"));
  };
  get_u("nvmlDeviceGetEnforcedPowerLimit", "power_limit_w", 1e-3, "");
  get_u("nvmlDeviceGetCurrPcieLinkGeneration", "pcie_gen", 1, "");
  get_u("nvmlDeviceGetCurrPcieLinkWidth", "pcie_width", 1, "");
  get_u("nvmlDeviceGetMaxPcieLinkGeneration", "pcie_gen_max", 1, "");
  get_u("nvmlDeviceGetMaxPcieLinkWidth", "pcie_width_max", 1, "");
  return f;
}

// ------------------------------------------------------------------ sampler
namespace {
double mono_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

Sampler::Sampler(const Nvml& nvml, int interval_ms) : nvml_(nvml), interval_ms_(interval_ms), start_(mono_s()) {
  rapl_files_ = rapl_package_files();
  for (const std::string& f : rapl_files_) {
    bool ok = false;
    std::string range_path = f.substr(0, f.rfind('/')) + "/max_energy_range_uj";
    std::string t = slurp(range_path, ok);
    double r = 0;
    try {
      r = ok ? parse_rapl_uj(t) : 0;
    } catch (const std::exception&) {
    }
    rapl_ranges_.push_back(r);
  }
  th_ = std::thread([this] { loop(); });
}

Sampler::~Sampler() {
  if (th_.joinable()) stop();
}

double Sampler::now_s() const { return mono_s() - start_; }

void Sampler::loop() {
  std::vector<double> last(rapl_files_.size(), -1), total(rapl_files_.size(), 0);
  while (true) {
    RawSample r = nvml_.read();
    r.t_s = now_s();
    if (!rapl_files_.empty()) {
      double sum = 0;
      bool all = true;
      for (size_t i = 0; i < rapl_files_.size(); ++i) {
        bool ok = false;
        std::string t = slurp(rapl_files_[i], ok);
        double j = -1;
        try {
          j = ok ? parse_rapl_uj(t) : -1;
        } catch (const std::exception&) {
        }
        if (j < 0) {
          all = false;
          continue;
        }
        if (last[i] >= 0) total[i] += rapl_delta_j(last[i], j, rapl_ranges_[i]);
        last[i] = j;
        sum += total[i];
      }
      r.cpu_energy_j = all ? sum : -1;
    }
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

}  // namespace rigcheck::gpu

namespace rigcheck::gpu {
std::vector<Kernel::Observed> observed_rows(const PowerSummary& p) {
  std::vector<Kernel::Observed> out;
  const std::string note = fmt::format("{} NVML samples; clock-event reasons seen: {}", p.samples,
                                       throttle_reason_names(p.reasons_seen));
  auto add = [&](const char* m, double v, const char* unit) {
    if (!std::isnan(v)) out.push_back({m, unit, v, note});
  };
  add("power_max_w", p.power_max_w, "W");
  add("power_mean_w", p.power_mean_w, "W");
  add("gpu_temp_max_c", p.temp_max_c, "C");
  add("gpu_temp_first_c", p.temp_first_c, "C");
  add("sm_clock_median_mhz", p.sm_mhz_median, "MHz");
  add("sm_clock_min_mhz", p.sm_mhz_min, "MHz");
  add("mem_clock_median_mhz", p.mem_mhz_median, "MHz");
  add("thermal_throttle_fraction", p.thermal_fraction, "fraction");
  add("power_cap_fraction", p.power_cap_fraction, "fraction");
  add("throttle_reasons_bits", p.samples ? static_cast<double>(p.reasons_seen) : NAN, "bitmask");
  add("cpu_package_power_max_w", p.cpu_power_max_w, "W");
  add("cpu_package_power_mean_w", p.cpu_power_mean_w, "W");
  return out;
}
}  // namespace rigcheck::gpu
