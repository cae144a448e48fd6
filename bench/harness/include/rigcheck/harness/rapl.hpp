// CPU package power through RAPL (the kernel's powercap sysfs, /sys/class/powercap/intel-rapl:N,
// also used for AMD packages): energy counters read while a benchmark runs. The GPU benchmarks'
// sampler reads them beside NVML (PWR-1 adds the CPU's draw); the text parsing and the counter's
// wrap are pure functions, unit-tested and fuzzed.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

// The text of a powercap `energy_uj` file ("123456\n") to joules; throws std::invalid_argument on
// anything else (more than 20 digits included: the kernel's counter is a u64).
double parse_rapl_uj(const std::string& text);
// after - before, across the counter's wrap at range_j (max_energy_range_uj).
double rapl_delta_j(double before_j, double after_j, double range_j);

// The package zones' energy counters readable here (paths, sorted), and why not when none.
std::vector<std::string> rapl_package_files(std::string* why = nullptr);

// Every package's counter, accumulated across wraps from the first read on.
class RaplCounters {
 public:
  RaplCounters();  // finds the package files (none: total_j() is always -1)
  // Joules since the first call, summed over the packages; -1 when a counter cannot be read now.
  double total_j();
  bool any() const { return !files_.empty(); }

 private:
  std::vector<std::string> files_;
  std::vector<double> ranges_, last_, total_;
};

}  // namespace rigcheck
