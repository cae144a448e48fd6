#include "rigcheck/topology.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

namespace rigcheck {

static bool read_int(const std::string& path, int& out) {
  std::ifstream f(path);
  return static_cast<bool>(f >> out);
}

int hardware_thread_count() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) return static_cast<int>(n);
  unsigned h = std::thread::hardware_concurrency();
  return h ? static_cast<int>(h) : 1;
}

int physical_core_count() {
  std::set<std::pair<int, int>> cores;
  int cpus = hardware_thread_count();
  for (int cpu = 0, seen = 0; seen < cpus && cpu < 4096; ++cpu) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    int pkg = 0, core = 0;
    if (!read_int(base + "physical_package_id", pkg) || !read_int(base + "core_id", core)) continue;
    ++seen;
    cores.insert({pkg, core});
  }
  return cores.empty() ? cpus : static_cast<int>(cores.size());
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  return buf;
}

std::string utc_timestamp_compact() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace rigcheck
