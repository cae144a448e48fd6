// Internals shared by the inventory's subject files (cpu.cpp, memory.cpp, system.cpp, gpu.cpp):
// small helpers (defined in util.cpp), the Collector, the parsed /proc/cpuinfo, and one function
// per section. Kernel CPU lists are parsed by the harness (topology.hpp, parse_cpu_list_text).
//
// collect_inventory() reads /proc, /sys, a few environment variables, the versions of
// the libraries this build links, and (through dlopen only) the NVIDIA driver stack.
// It never throws and never fails on missing hardware or libraries: an unknown fact is
// kept, with a value that starts with "unknown: " and says why.
#pragma once
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/machine_topology.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

// Build-time facts arrive as macros, quoted ("Release") or not (Release): stringizing
// accepts both, and macro_text() below strips the quotes of the first form.
#define RIGCHECK_INV_STR_(x) #x
#define RIGCHECK_INV_STR(x) RIGCHECK_INV_STR_(x)

namespace rigcheck::inventory_detail {

// ------------------------------------------------------------------ small helpers

constexpr const char* kWhitespace = " \t\r\n\f\v";

std::string trim(std::string_view s);

std::string unknown(std::string_view why);

std::string errno_text(int err);

std::string join(const std::vector<std::string>& parts, std::string_view sep);

bool contains_ci(std::string_view hay, std::string_view needle);

// Parses a whole string (after trimming) as an unsigned decimal; false otherwise.
bool parse_u64(std::string_view text, std::uint64_t& out);

// Parses a whole string as a signed decimal (sysfs ids may be -1).
bool parse_i64(std::string_view text, std::int64_t& out);

// Reads a whole (small) file; false when it cannot be opened or read.
bool read_text(const std::string& path, std::string& out, std::size_t max_bytes = 1 << 20);

// Reads the first line of a file, trimmed; false when it cannot be opened.
bool read_first_line(const std::string& path, std::string& out);

// The first line of a file, or "unknown: <why>" when absent or empty.
std::string first_line_or(const std::string& path, std::string_view why);

bool path_exists(const std::string& path);

bool is_dir(const std::string& path);

// Names in a directory (no "." or ".."), sorted; false when it cannot be opened.
bool list_dir(const std::string& path, std::vector<std::string>& names);

// The numbers N of entries named <prefix>N in a directory, ascending ("index0", "node1").
std::vector<int> numbered_entries(const std::string& path, std::string_view prefix);

// The bracketed word of a sysfs choice file ("always [madvise] never" -> "madvise").
std::string bracketed_choice(const std::string& path);

std::string env_or_unset(const char* name);

// Runs a shell command and captures (up to max_bytes of) its standard output.
struct CommandResult {
  bool exited_zero = false;
  std::string output;
};

CommandResult run_command(const std::string& command, std::size_t max_bytes = 64 * 1024);

std::string first_line_of(const std::string& text);

std::string shell_quote(const std::string& s);

// Text of a stringized macro: "\"Release\"" -> Release, Release -> Release.
std::string macro_text(const char* stringized);

// Symbol lookup in a dlopen()ed library, typed.
template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(lib, name));
}

std::string dl_error_text();

// ------------------------------------------------------------------ the collector

// Collects entries in order; runs each section under its own try/catch.
class Collector {
 public:
  void add(std::string key, std::string value) {
    value = trim(value);
    if (value.empty()) value = unknown("empty value");
    entries_.emplace_back(std::move(key), std::move(value));
  }

  template <typename Fn>
  void section(const char* name, Fn&& fn) noexcept {
    try {
      fn();
    } catch (const std::exception& e) {
      note_failure(name, e.what());
    } catch (...) {
      note_failure(name, "non-standard exception");
    }
  }

  Inventory take() { return std::move(entries_); }

 private:
  void note_failure(const char* name, const char* what) noexcept {
    try {
      add(std::string("inventory_error_") + name, unknown(std::string("section failed: ") + what));
    } catch (...) {
    }
  }

  Inventory entries_;
};

// ------------------------------------------------------------------ /proc/cpuinfo

// The first processor block of /proc/cpuinfo.
struct CpuId {
  bool readable = false;
  std::map<std::string, std::string> fields;
  std::set<std::string> flags;
  bool flags_found = false;
  std::string vendor;      // vendor_id
  std::string model_name;  // model name
  std::int64_t family = -1, model = -1, stepping = -1;
};

CpuId read_cpuinfo(const std::string& root = "");  // root: a captured root, "" the live one

bool is_amd(const CpuId& c);
bool is_intel(const CpuId& c);

std::string decimal_or_unknown(std::int64_t v, const char* what);

// Best-effort microarchitecture name from vendor, family and model.
std::string cpu_microarch(const CpuId& c);

// Whether the family/model is a known server (or server-derived) part.
bool server_model(const CpuId& c);

std::string cpu_server_class(const CpuId& c);

inline const std::string kCpuSys = "/sys/devices/system/cpu";

std::string cpu_dir(int cpu);

// Online CPU ids: the kernel's list, or 0..n-1 from sysconf when it is missing.
std::vector<int> online_cpus();

// ------------------------------------------------------------------ sections, one per subject file
// cpu.cpp
void add_cpu_identity(Collector& c, const CpuId& cpu);
void add_topology(Collector& c, const Topology& t, const std::string& vendor);  // shape.cpp
// memory_limit, memory_limit_bytes: the cgroup (or Slurm) limit of this process, read under `root`.
void add_memory_limit(Collector& c, const std::string& root);
void add_affinity(Collector& c);
void add_resctrl(Collector& c);
void add_caches(Collector& c, const CpuId& cpu);
void add_isa(Collector& c, const CpuId& cpu);
void add_clock(Collector& c);
// arm.cpp
void add_arch(Collector& c, const CpuId& cpu);
// memory.cpp
void add_memory(Collector& c);
void add_thp(Collector& c);
// system.cpp
void add_provenance(Collector& c);
void add_platform(Collector& c, const CpuId& cpu);
void add_os(Collector& c);
void add_build(Collector& c);
void add_libraries(Collector& c);
// hwloc's release as the build found it (pkg-config), or why unknown.
std::string hwloc_release();
void add_tools(Collector& c);
void add_slurm(Collector& c);
void add_environment(Collector& c);
// gpu.cpp
void add_cuda_devices(Collector& c);
void add_cuda_libraries(Collector& c);

}  // namespace rigcheck::inventory_detail
