// Machine inventory: the facts that every result row points to (DESIGN.md convention 5).
//
// collect_inventory() reads /proc, /sys, a few environment variables, the versions of
// the libraries this build links, and (through dlopen only) the NVIDIA driver stack.
// It never throws and never fails on missing hardware or libraries: an unknown fact is
// kept, with a value that starts with "unknown: " and says why.
//
// Each section below is guarded on its own, so one failure does not stop the rest.
#include "rigcheck/inventory.hpp"
#include "rigcheck/csv.hpp"

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

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

#if defined(RIGCHECK_HAVE_DNNL) && RIGCHECK_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

#if defined(RIGCHECK_HAVE_TORCH) && RIGCHECK_HAVE_TORCH
#include <torch/version.h>
#endif

#if defined(RIGCHECK_HAVE_OPENBLAS) && RIGCHECK_HAVE_OPENBLAS
// Declared here rather than through cblas.h, whose location and contents vary.
extern "C" {
char* openblas_get_config(void);
char* openblas_get_corename(void);
int openblas_get_num_threads(void);
}
#endif

// Build-time facts arrive as macros, quoted ("Release") or not (Release): stringizing
// accepts both, and macro_text() below strips the quotes of the first form.
#define RIGCHECK_INV_STR_(x) #x
#define RIGCHECK_INV_STR(x) RIGCHECK_INV_STR_(x)

namespace rigcheck {
namespace {

// ------------------------------------------------------------------ small helpers

constexpr const char* kWhitespace = " \t\r\n\f\v";

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(kWhitespace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kWhitespace);
  return std::string(s.substr(b, e - b + 1));
}

std::string unknown(std::string_view why) { return "unknown: " + std::string(why); }

std::string errno_text(int err) { return std::strerror(err); }

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

bool contains_ci(std::string_view hay, std::string_view needle) {
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
  if (needle.empty()) return true;
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    std::size_t j = 0;
    while (j < needle.size() && lower(hay[i + j]) == lower(needle[j])) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// Parses a whole string (after trimming) as an unsigned decimal; false otherwise.
bool parse_u64(std::string_view text, std::uint64_t& out) {
  const std::string s = trim(text);
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == nullptr || *end != '\0') return false;
  out = v;
  return true;
}

// Parses a whole string as a signed decimal (sysfs ids may be -1).
bool parse_i64(std::string_view text, std::int64_t& out) {
  const std::string s = trim(text);
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  out = v;
  return true;
}

// Reads a whole (small) file; false when it cannot be opened or read.
bool read_text(const std::string& path, std::string& out, std::size_t max_bytes = 1 << 20) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.clear();
  char buf[4096];
  while (out.size() < max_bytes && in.read(buf, sizeof buf).gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  return !in.bad();
}

// Reads the first line of a file, trimmed; false when it cannot be opened.
bool read_first_line(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  std::getline(in, line);
  if (in.bad()) return false;
  out = trim(line);
  return true;
}

// The first line of a file, or "unknown: <why>" when absent or empty.
std::string first_line_or(const std::string& path, std::string_view why) {
  std::string v;
  if (read_first_line(path, v) && !v.empty()) return v;
  return unknown(why);
}

bool path_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Names in a directory (no "." or ".."), sorted; false when it cannot be opened.
bool list_dir(const std::string& path, std::vector<std::string>& names) {
  names.clear();
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

// The numbers N of entries named <prefix>N in a directory, ascending ("index0", "node1").
std::vector<int> numbered_entries(const std::string& path, std::string_view prefix) {
  std::vector<std::string> names;
  std::vector<int> ids;
  if (!list_dir(path, names)) return ids;
  for (const auto& n : names) {
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0) continue;
    std::uint64_t v = 0;
    if (parse_u64(std::string_view(n).substr(prefix.size()), v) && v < 1u << 30)
      ids.push_back(static_cast<int>(v));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Parses a kernel CPU list ("0-3,8,10-11") into sorted ids; empty on a parse error.
std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  const std::string s = trim(text);
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string part = trim(std::string_view(s).substr(pos, comma - pos));
    pos = comma + 1;
    if (part.empty()) continue;
    const auto dash = part.find('-');
    std::uint64_t lo = 0, hi = 0;
    if (dash == std::string::npos) {
      if (!parse_u64(part, lo)) return {};
      hi = lo;
    } else if (!parse_u64(part.substr(0, dash), lo) || !parse_u64(part.substr(dash + 1), hi)) {
      return {};
    }
    if (hi < lo || hi >= (1u << 20)) return {};
    for (std::uint64_t c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

// The bracketed word of a sysfs choice file ("always [madvise] never" -> "madvise").
std::string bracketed_choice(const std::string& path) {
  std::string line;
  if (!read_first_line(path, line)) return unknown(path + " not readable");
  const auto b = line.find('[');
  const auto e = line.find(']', b == std::string::npos ? 0 : b);
  if (b == std::string::npos || e == std::string::npos) return unknown("no [choice] in " + path);
  return line.substr(b + 1, e - b - 1);
}

std::string env_or_unset(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string("unset");
}

// Runs a shell command and captures (up to max_bytes of) its standard output.
struct CommandResult {
  bool exited_zero = false;
  std::string output;
};

CommandResult run_command(const std::string& command, std::size_t max_bytes = 64 * 1024) {
  CommandResult r;
  std::fflush(nullptr);  // so that buffered output is not written twice by the child
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n = 0;
  while (r.output.size() < max_bytes && (n = std::fread(buf, 1, sizeof buf, p)) > 0)
    r.output.append(buf, n);
  const int status = ::pclose(p);  // a child cut short by the cap just gets SIGPIPE
  r.exited_zero = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

std::string first_line_of(const std::string& text) { return trim(text.substr(0, text.find('\n'))); }

[[maybe_unused]] std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Text of a stringized macro: "\"Release\"" -> Release, Release -> Release.
[[maybe_unused]] std::string macro_text(const char* stringized) {
  std::string s = trim(stringized);
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return s;
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) ++i;  // \" and \\ as written in a literal
    out += s[i];
  }
  return out;
}

// Symbol lookup in a dlopen()ed library, typed.
template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(::dlsym(lib, name));
}

std::string dl_error_text() {
  const char* e = ::dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dlopen error");
}

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

CpuId read_cpuinfo() {
  CpuId c;
  std::ifstream in("/proc/cpuinfo");
  if (!in) return c;
  c.readable = true;
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty()) {
      if (!c.fields.empty()) break;  // end of the first block
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(std::string_view(line).substr(0, colon));
    if (c.fields.count(key) == 0) c.fields[key] = trim(std::string_view(line).substr(colon + 1));
  }
  auto field = [&](const char* k) -> std::string {
    const auto it = c.fields.find(k);
    return it == c.fields.end() ? std::string() : it->second;
  };
  c.vendor = field("vendor_id");
  c.model_name = field("model name");
  if (!parse_i64(field("cpu family"), c.family)) c.family = -1;
  if (!parse_i64(field("model"), c.model)) c.model = -1;
  if (!parse_i64(field("stepping"), c.stepping)) c.stepping = -1;
  // x86 calls them "flags", arm64 "Features".
  std::string flags = field("flags");
  if (flags.empty()) flags = field("Features");
  c.flags_found = !flags.empty();
  std::size_t pos = 0;
  while (pos < flags.size()) {
    const auto b = flags.find_first_not_of(kWhitespace, pos);
    if (b == std::string::npos) break;
    auto e = flags.find_first_of(kWhitespace, b);
    if (e == std::string::npos) e = flags.size();
    c.flags.insert(flags.substr(b, e - b));
    pos = e;
  }
  return c;
}

bool is_amd(const CpuId& c) { return c.vendor == "AuthenticAMD"; }
bool is_intel(const CpuId& c) { return c.vendor == "GenuineIntel"; }

std::string decimal_or_unknown(std::int64_t v, const char* what) {
  return v >= 0 ? std::to_string(v) : unknown(fmt::format("no '{}' in /proc/cpuinfo", what));
}

// Best-effort microarchitecture name from vendor, family and model.
std::string cpu_microarch(const CpuId& c) {
  if (c.family < 0 || c.model < 0) return unknown("no cpu family/model in /proc/cpuinfo");
  const std::int64_t f = c.family, m = c.model;
  auto in = [m](std::int64_t lo, std::int64_t hi) { return m >= lo && m <= hi; };
  if (is_amd(c)) {
    if (f == 23) return "zen/zen2";
    if (f == 25) {
      // 0x30-0x3f: Trento (EPYC 7A53 and kin), a Zen 3 part.
      if (in(0x00, 0x0f) || in(0x20, 0x2f) || in(0x30, 0x3f) || in(0x40, 0x4f) || in(0x50, 0x5f))
        return "zen3";
      if (in(0x10, 0x1f) || in(0x60, 0x7f) || in(0xa0, 0xaf)) return "zen4";
      return unknown(fmt::format("AMD family {} model {:#x} not in the table", f, m));
    }
    if (f == 26) return "zen5";
    return unknown(fmt::format("AMD family {} not in the table", f));
  }
  if (is_intel(c)) return fmt::format("intel family {} model {}", f, m);
  return unknown(fmt::format("vendor '{}' not in the table", c.vendor));
}

// Whether the family/model is a known server (or server-derived) part.
bool server_model(const CpuId& c) {
  const std::int64_t f = c.family, m = c.model;
  if (is_amd(c)) {
    if (f == 23) return m == 0x01 || m == 0x31;                 // Naples, Rome
    if (f == 25) return m == 0x01 || m == 0x30 || m == 0x11 ||  // Milan, Trento, Genoa
                        (m >= 0xa0 && m <= 0xaf);               // Bergamo, Siena
    if (f == 26) return m >= 0x00 && m <= 0x1f;                 // Turin
    return false;
  }
  if (is_intel(c) && f == 6) {
    static const std::set<std::int64_t> xeon = {
        0x2d, 0x3e, 0x3f, 0x4f, 0x56,  // Sandy Bridge-EP .. Broadwell-DE
        0x55,                          // Skylake-SP, Cascade Lake, Cooper Lake
        0x6a, 0x6c,                    // Ice Lake-SP/D
        0x8f, 0xcf,                    // Sapphire Rapids, Emerald Rapids
        0xad, 0xae, 0xaf, 0xdd,        // Granite Rapids, Sierra Forest, Clearwater Forest
        0x57, 0x85};                   // Xeon Phi
    return xeon.count(m) != 0;
  }
  return false;
}

std::string cpu_server_class(const CpuId& c) {
  for (const char* word : {"EPYC", "Xeon", "Opteron"})
    if (contains_ci(c.model_name, word)) return "yes";
  return server_model(c) ? "yes" : "no";
}

// ------------------------------------------------------------------ sections

const std::string kCpuSys = "/sys/devices/system/cpu";

std::string cpu_dir(int cpu) { return kCpuSys + "/cpu" + std::to_string(cpu); }

// Online CPU ids: the kernel's list, or 0..n-1 from sysconf when it is missing.
std::vector<int> online_cpus() {
  std::string line;
  if (read_first_line(kCpuSys + "/online", line)) {
    auto cpus = parse_cpu_list(line);
    if (!cpus.empty()) return cpus;
  }
  std::vector<int> cpus;
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < n; ++i) cpus.push_back(static_cast<int>(i));
  return cpus;
}

// Provenance: which method, which suite commit, when, where.
void add_provenance(Collector& c) {
#if defined(RIGCHECK_METHOD_VERSION)
  c.add("method_version", macro_text(RIGCHECK_INV_STR(RIGCHECK_METHOD_VERSION)));
#else
  c.add("method_version", "1");
#endif

  c.section("suite_commit", [&] {
    std::string commit, why;
#if defined(RIGCHECK_SOURCE_DIR)
    const std::string dir = macro_text(RIGCHECK_INV_STR(RIGCHECK_SOURCE_DIR));
    const std::string git = "git -c safe.directory='*' -C " + shell_quote(dir);
    const std::string head = first_line_of(run_command(git + " rev-parse HEAD 2>/dev/null").output);
    if (head.size() >= 40 && head.find_first_not_of("0123456789abcdef") == std::string::npos) {
      commit = head;
      if (!trim(run_command(git + " status --porcelain 2>/dev/null").output).empty())
        commit += "-dirty";
    } else {
      why = "git rev-parse HEAD failed in " + dir;
    }
#else
    why = "RIGCHECK_SOURCE_DIR not defined";
#endif
#if defined(RIGCHECK_GIT_COMMIT)
    if (commit.empty()) commit = macro_text(RIGCHECK_INV_STR(RIGCHECK_GIT_COMMIT));
#else
    why += " and RIGCHECK_GIT_COMMIT not defined";
#endif
    if (why.empty()) why = "RIGCHECK_GIT_COMMIT is empty";
    c.add("suite_commit", commit.empty() ? unknown(why) : commit);
  });

  c.section("inventory_time_utc", [&] {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    char buf[32];
    if (::gmtime_r(&now, &tm) != nullptr && std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
      c.add("inventory_time_utc", buf);
    else
      c.add("inventory_time_utc", unknown("gmtime failed"));
  });

  c.section("hostname", [&] {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) == 0)
      c.add("hostname", buf);
    else
      c.add("hostname", unknown("gethostname: " + errno_text(errno)));
  });
}

// CPU identity from /proc/cpuinfo.
void add_cpu_identity(Collector& c, const CpuId& cpu) {
  if (!cpu.readable) {
    for (const char* k : {"cpu_vendor", "cpu_model", "cpu_family", "cpu_model_number",
                          "cpu_stepping", "cpu_microarch", "cpu_server_class"})
      c.add(k, unknown("/proc/cpuinfo not readable"));
    return;
  }
  c.add("cpu_vendor", cpu.vendor.empty() ? unknown("no vendor_id in /proc/cpuinfo") : cpu.vendor);
  c.add("cpu_model", cpu.model_name.empty() ? unknown("no 'model name' in /proc/cpuinfo") : cpu.model_name);
  c.add("cpu_family", decimal_or_unknown(cpu.family, "cpu family"));
  c.add("cpu_model_number", decimal_or_unknown(cpu.model, "model"));
  c.add("cpu_stepping", decimal_or_unknown(cpu.stepping, "stepping"));
  c.add("cpu_microarch", cpu_microarch(cpu));
  c.add("cpu_server_class", cpu_server_class(cpu));
}

// Sockets, physical cores and hardware threads from sysfs topology.
void add_topology(Collector& c) {
  const std::vector<int> cpus = online_cpus();
  std::set<std::int64_t> packages;
  std::set<std::vector<std::int64_t>> cores;  // (package, die, core)
  bool complete = !cpus.empty();
  for (int cpu : cpus) {
    const std::string t = cpu_dir(cpu) + "/topology/";
    std::string pkg_s, core_s, die_s;
    std::int64_t pkg = 0, core = 0, die = 0;
    if (!read_first_line(t + "physical_package_id", pkg_s) || !parse_i64(pkg_s, pkg) ||
        !read_first_line(t + "core_id", core_s) || !parse_i64(core_s, core)) {
      complete = false;
      break;
    }
    if (!read_first_line(t + "die_id", die_s) || !parse_i64(die_s, die)) die = 0;
    packages.insert(pkg);
    cores.insert({pkg, die, core});
  }
  const std::string why = "no topology in " + kCpuSys + "/cpu*/topology";
  c.add("sockets", complete ? std::to_string(packages.size()) : unknown(why));
  c.add("physical_cores", complete ? std::to_string(cores.size()) : unknown(why));
  c.add("hardware_threads", cpus.empty() ? unknown("no online CPUs found") : std::to_string(cpus.size()));
  if (!complete || cores.empty()) {
    c.add("threads_per_core", unknown(why));
  } else if (cpus.size() % cores.size() == 0) {
    c.add("threads_per_core", std::to_string(cpus.size() / cores.size()));
  } else {  // hybrid parts: some cores with SMT, some without
    c.add("threads_per_core", fmt::format("{:.2f}", double(cpus.size()) / double(cores.size())));
  }
}

// Size in bytes of a sysfs cache size ("32K", "1024K", "32M"); 0 when unparsable.
std::uint64_t parse_cache_size(const std::string& text) {
  const std::string s = trim(text);
  const auto digits_end = s.find_first_not_of("0123456789");
  std::uint64_t v = 0;
  if (!parse_u64(s.substr(0, digits_end), v)) return 0;
  const std::string unit = digits_end == std::string::npos ? "" : trim(s.substr(digits_end));
  const char u = unit.empty() ? '\0' : unit[0];
  if (u == 'K' || u == 'k') return v << 10;
  if (u == 'M' || u == 'm') return v << 20;
  if (u == 'G' || u == 'g') return v << 30;
  return v;
}

// Caches: size of one instance (from cpu0) and how many instances exist.
void add_caches(Collector& c) {
  struct Cache {
    Cache(const char* n, int l, const char* t) : name(n), level(l), type(t) {}
    const char* name;
    int level;
    const char* type;
    std::uint64_t bytes = 0;
    std::set<std::vector<int>> sharing;  // distinct shared_cpu_list
    bool found = false;
  };
  std::vector<Cache> caches = {{"l1d", 1, "Data"}, {"l1i", 1, "Instruction"},
                               {"l2", 2, "Unified"}, {"l3", 3, "Unified"}};
  auto find = [&](int level, const std::string& type) -> Cache* {
    for (auto& k : caches)
      if (k.level == level && (k.type == type || (level >= 2 && type == "Data"))) return &k;
    return nullptr;
  };

  const std::vector<int> cpus = online_cpus();
  const bool have_sysfs = is_dir(cpu_dir(0) + "/cache");
  for (int cpu : cpus) {
    const std::string base = cpu_dir(cpu) + "/cache/";
    for (int idx : numbered_entries(base, "index")) {
      const std::string d = base + "index" + std::to_string(idx) + "/";
      std::string level_s, type, size_s, shared;
      std::uint64_t level = 0;
      if (!read_first_line(d + "level", level_s) || !parse_u64(level_s, level) ||
          !read_first_line(d + "type", type))
        continue;
      Cache* k = find(static_cast<int>(level), type);
      if (k == nullptr) continue;
      if (!k->found && read_first_line(d + "size", size_s)) k->bytes = parse_cache_size(size_s);
      k->found = true;
      if (read_first_line(d + "shared_cpu_list", shared)) {
        auto list = parse_cpu_list(shared);
        if (!list.empty()) k->sharing.insert(std::move(list));
      }
    }
  }

  const std::string no_sysfs = "no cache information in " + kCpuSys + "/cpu0/cache";
  auto bytes_of = [&](const Cache& k) -> std::string {
    if (!have_sysfs) return unknown(no_sysfs);
    if (!k.found) return k.level == 3 ? "0" : unknown(fmt::format("no {} cache in sysfs", k.name));
    return k.bytes ? std::to_string(k.bytes) : unknown("size not readable");
  };
  auto instances_of = [&](const Cache& k) -> std::string {
    if (!have_sysfs) return unknown(no_sysfs);
    if (!k.found) return k.level == 3 ? "0" : unknown(fmt::format("no {} cache in sysfs", k.name));
    return k.sharing.empty() ? unknown("shared_cpu_list not readable") : std::to_string(k.sharing.size());
  };
  for (const auto& k : caches) c.add(fmt::format("cache_{}_bytes", k.name), bytes_of(k));
  for (const auto& k : caches) c.add(fmt::format("cache_{}_instances", k.name), instances_of(k));

  const Cache& l3 = caches[3];
  if (!have_sysfs) {
    c.add("cache_l3_total_bytes", unknown(no_sysfs));
  } else if (!l3.found) {
    c.add("cache_l3_total_bytes", "0");
  } else if (l3.bytes == 0 || l3.sharing.empty()) {
    c.add("cache_l3_total_bytes", unknown("L3 size or sharing not readable"));
  } else {
    c.add("cache_l3_total_bytes", std::to_string(l3.bytes * l3.sharing.size()));
  }
}

// Instruction-set extensions from the cpuinfo flags.
void add_isa(Collector& c, const CpuId& cpu) {
  static const std::vector<std::pair<const char*, std::vector<const char*>>> keys = {
      {"isa_avx2", {"avx2"}},
      {"isa_fma", {"fma"}},
      {"isa_avx512f", {"avx512f"}},
      {"isa_avx512bw", {"avx512bw"}},
      {"isa_avx512vl", {"avx512vl"}},
      {"isa_avx512_bf16", {"avx512_bf16"}},
      {"isa_avx512_vnni", {"avx512_vnni"}},
      {"isa_avx512_fp16", {"avx512_fp16"}},
      {"isa_amx", {"amx_tile", "amx_bf16", "amx_int8"}},
  };
  const std::string why = cpu.readable ? "no flags line in /proc/cpuinfo" : "/proc/cpuinfo not readable";
  auto has = [&](const char* f) { return cpu.flags.count(f) != 0; };
  for (const auto& [key, flags] : keys) {
    if (!cpu.flags_found) {
      c.add(key, unknown(why));
      continue;
    }
    bool any = false;
    for (const char* f : flags) any = any || has(f);
    c.add(key, any ? "yes" : "no");
  }
#if defined(__x86_64__) || defined(__i386__)
  if (!cpu.flags_found)
    c.add("isa_best", unknown(why));
  else if (has("avx512f"))
    c.add("isa_best", "avx512");
  else if (has("avx2") && has("fma"))
    c.add("isa_best", "avx2");
  else
    c.add("isa_best", "sse");
#else
  c.add("isa_best", unknown("not an x86 CPU"));
#endif
}

#if defined(__x86_64__)
// Runs `iterations` x 16 dependent register-register adds; returns the seconds taken.
// Register operands, not immediates: some cores fold small add-immediates at rename.
double time_add_chain(std::uint64_t iterations) {
  std::uint64_t acc = 0, n = iterations;
  const std::uint64_t one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  asm volatile(
      "1:\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "sub $1, %[n]\n\t"
      "jnz 1b\n\t"
      : [acc] "+r"(acc), [n] "+r"(n)
      : [one] "r"(one)
      : "cc", "memory");
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}
#endif

// Core clock, measured: a chain of dependent adds runs at one add per cycle.
void add_clock(Collector& c) {
#if defined(__x86_64__)
  constexpr std::uint64_t kAddsPerIteration = 16;
  constexpr std::uint64_t kAddsPerTry = 40'000'000;  // 5 tries: 200 M adds in all
  constexpr std::uint64_t kIterations = kAddsPerTry / kAddsPerIteration;
  time_add_chain(kIterations);  // warm-up: let the core leave its idle clock
  double best = 0.0;
  for (int i = 0; i < 5; ++i) {
    const double s = time_add_chain(kIterations);
    if (s > 0.0 && (best == 0.0 || s < best)) best = s;
  }
  if (best > 0.0)
    c.add("cpu_clock_measured_ghz", fmt::format("{:.2f}", double(kAddsPerTry) / best / 1e9));
  else
    c.add("cpu_clock_measured_ghz", unknown("timer reported no elapsed time"));
#else
  c.add("cpu_clock_measured_ghz", unknown("measurement needs x86-64 inline asm"));
#endif
  c.add("cpu_clock_note", "dependent integer add chain, 1 cycle per add; best of 5");
}

// A "Key:   123 kB" line of /proc/meminfo, in bytes.
std::string meminfo_bytes(const std::string& meminfo, const std::string& key) {
  std::size_t pos = 0;
  while (pos < meminfo.size()) {
    auto eol = meminfo.find('\n', pos);
    if (eol == std::string::npos) eol = meminfo.size();
    const std::string_view line(meminfo.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.size() <= key.size() || line.compare(0, key.size(), key) != 0 || line[key.size()] != ':')
      continue;
    std::string rest = trim(line.substr(key.size() + 1));
    std::uint64_t mult = 1;
    if (rest.size() > 2 && rest.compare(rest.size() - 2, 2, "kB") == 0) {
      mult = 1024;
      rest = trim(rest.substr(0, rest.size() - 2));
    }
    std::uint64_t v = 0;
    if (!parse_u64(rest, v)) return unknown("cannot parse " + key + " in /proc/meminfo");
    return std::to_string(v * mult);
  }
  return unknown("no " + key + " in /proc/meminfo");
}

// SMBIOS memory type byte (type 17, offset 0x12) as a name.
std::string smbios_memory_type(unsigned t) {
  switch (t) {
    case 0x01: return "Other";
    case 0x02: return "Unknown";
    case 0x03: return "DRAM";
    case 0x07: return "RAM";
    case 0x0F: return "SDRAM";
    case 0x12: return "DDR";
    case 0x13: return "DDR2";
    case 0x14: return "DDR2 FB-DIMM";
    case 0x18: return "DDR3";
    case 0x19: return "FBD2";
    case 0x1A: return "DDR4";
    case 0x1B: return "LPDDR";
    case 0x1C: return "LPDDR2";
    case 0x1D: return "LPDDR3";
    case 0x1E: return "LPDDR4";
    case 0x1F: return "Logical non-volatile device";
    case 0x20: return "HBM";
    case 0x21: return "HBM2";
    case 0x22: return "DDR5";
    case 0x23: return "LPDDR5";
    case 0x24: return "HBM3";
    default: return fmt::format("type {:#04x}", t);
  }
}

// DIMM type and speed from SMBIOS type 17 (Memory Device) entries; root only, usually.
struct DimmFacts {
  std::string type, speed, configured_speed, count;
};

DimmFacts read_dimms() {
  const std::string dir = "/sys/firmware/dmi/entries";
  DimmFacts f;
  auto all_unknown = [&](const std::string& why) {
    f.type = f.speed = f.configured_speed = f.count = unknown(why);
    return f;
  };
  std::vector<std::string> names;
  if (!list_dir(dir, names))
    return all_unknown(path_exists("/sys/firmware/dmi") ? dir + " not readable"
                                                        : "/sys/firmware/dmi not readable (no SMBIOS tables)");
  std::set<std::string> types;
  std::set<unsigned> speeds, configured;
  int entries = 0, readable = 0, populated = 0;
  for (const auto& n : names) {
    if (n.compare(0, 3, "17-") != 0) continue;
    ++entries;
    std::string raw;
    if (!read_text(dir + "/" + n + "/raw", raw, 4096)) continue;
    ++readable;
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    if (raw.size() < 4 || b[0] != 17) continue;
    const std::size_t len = std::min<std::size_t>(b[1], raw.size());  // formatted area
    auto byte_at = [&](std::size_t off, unsigned& v) { return off < len ? (v = b[off], true) : false; };
    auto word_at = [&](std::size_t off, unsigned& v) {
      return off + 1 < len ? (v = b[off] | (unsigned(b[off + 1]) << 8), true) : false;
    };
    auto dword_at = [&](std::size_t off, unsigned& v) {
      unsigned lo = 0, hi = 0;
      return word_at(off, lo) && word_at(off + 2, hi) ? (v = lo | (hi << 16), true) : false;
    };
    unsigned size = 0, type = 0, speed = 0, conf = 0;
    if (word_at(0x0C, size) && size == 0) continue;  // empty slot
    ++populated;
    if (byte_at(0x12, type)) types.insert(smbios_memory_type(type));
    // 0xFFFF: the speed is in the 32-bit extended field (SMBIOS 3.3+).
    if (word_at(0x15, speed) && speed == 0xFFFF && !dword_at(0x54, speed)) speed = 0;
    if (speed != 0 && speed != 0xFFFF) speeds.insert(speed);
    if (word_at(0x20, conf) && conf == 0xFFFF && !dword_at(0x58, conf)) conf = 0;
    if (conf != 0 && conf != 0xFFFF) configured.insert(conf);
  }
  if (entries == 0) return all_unknown("no SMBIOS type 17 entries");
  if (readable == 0) return all_unknown("SMBIOS type 17 entries not readable (needs root)");
  if (populated == 0) return all_unknown("no populated memory device in SMBIOS type 17");
  auto speed_text = [](const std::set<unsigned>& s) {
    if (s.empty()) return unknown("speed not reported in SMBIOS");
    std::vector<std::string> parts;
    for (unsigned v : s) parts.push_back(fmt::format("{} MT/s", v));
    return join(parts, ";");
  };
  f.type = types.empty() ? unknown("type not reported in SMBIOS")
                         : join(std::vector<std::string>(types.begin(), types.end()), ";");
  f.speed = speed_text(speeds);
  f.configured_speed = speed_text(configured);
  f.count = std::to_string(populated);
  return f;
}

// Memory size, huge page size, DIMMs and NUMA nodes.
void add_memory(Collector& c) {
  std::string meminfo;
  if (read_text("/proc/meminfo", meminfo)) {
    c.add("memory_total_bytes", meminfo_bytes(meminfo, "MemTotal"));
    c.add("hugepage_size_bytes", meminfo_bytes(meminfo, "Hugepagesize"));
  } else {
    c.add("memory_total_bytes", unknown("/proc/meminfo not readable"));
    c.add("hugepage_size_bytes", unknown("/proc/meminfo not readable"));
  }
  const DimmFacts d = read_dimms();
  c.add("memory_dimm_type", d.type);
  c.add("memory_dimm_speed", d.speed);
  c.add("memory_dimm_configured_speed", d.configured_speed);
  c.add("memory_dimm_count", d.count);
  const std::string nodes = "/sys/devices/system/node";
  if (is_dir(nodes))
    c.add("numa_nodes", std::to_string(numbered_entries(nodes, "node").size()));
  else
    c.add("numa_nodes", unknown(nodes + " absent (kernel without NUMA)"));
}

// Transparent huge pages.
void add_thp(Collector& c) {
  const std::string dir = "/sys/kernel/mm/transparent_hugepage";
  c.add("thp_enabled", bracketed_choice(dir + "/enabled"));
  c.add("thp_defrag", bracketed_choice(dir + "/defrag"));
  c.add("thp_available", is_dir(dir) ? "yes" : "no");
}

// The hypervisor's name from CPUID leaf 0x40000000, when the CPU says it is virtual.
std::string cpuid_hypervisor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) return {};
  __cpuid(0x40000000, a, b, c, d);
  char sig[13] = {};
  std::memcpy(sig, &b, 4);
  std::memcpy(sig + 4, &c, 4);
  std::memcpy(sig + 8, &d, 4);
  const std::string s = trim(std::string(sig, strnlen(sig, 12)));
  static const std::map<std::string, std::string> names = {
      {"KVMKVMKVM", "kvm"},         {"Microsoft Hv", "hyperv"}, {"VMwareVMware", "vmware"},
      {"XenVMMXenVMM", "xen"},      {"TCGTCGTCGTCG", "qemu-tcg"}, {"VBoxVBoxVBox", "virtualbox"},
      {"ACRNACRNACRN", "acrn"},     {"bhyve bhyve", "bhyve"},   {"lrpepyh  vr", "parallels"}};
  const auto it = names.find(s);
  if (it != names.end()) return it->second;
  return s;
#else
  return {};
#endif
}

// cpufreq and virtualization.
void add_platform(Collector& c, const CpuId& cpu) {
  const std::string freq = cpu_dir(0) + "/cpufreq/";
  c.add("cpufreq_governor", first_line_or(freq + "scaling_governor", "no cpufreq in sysfs"));
  std::string khz;
  if (!read_first_line(freq + "cpuinfo_max_freq", khz) || khz.empty())
    khz = first_line_or(freq + "scaling_max_freq", "no cpufreq in sysfs");
  c.add("cpufreq_max_khz", khz);

  std::string virt;
  if (cpu.flags.count("hypervisor") != 0) {
    std::string name = cpuid_hypervisor(), vendor;
    if (name.empty()) read_first_line("/sys/hypervisor/type", name);
    read_first_line("/sys/class/dmi/id/sys_vendor", vendor);
    if (!name.empty() && !vendor.empty() && vendor != name)
      virt = name + " (" + vendor + ")";
    else if (!name.empty())
      virt = name;
    else if (!vendor.empty())
      virt = vendor;
    else
      virt = "yes (hypervisor flag)";
  } else if (cpu.flags_found) {
    virt = "none";
  } else {
    virt = unknown("no cpuinfo flags to look for the hypervisor flag");
  }
  c.add("virtualization", virt);
}

// Whether a user-space cycle counter can be opened (perf_event_open).
std::string probe_perf_counters() {
#if defined(__linux__) && defined(SYS_perf_event_open)
  std::string paranoid;
  if (!read_first_line("/proc/sys/kernel/perf_event_paranoid", paranoid)) paranoid = "?";
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return fmt::format("yes (perf_event_paranoid={})", paranoid);
  }
  return fmt::format("no: perf_event_open(cycles) failed: {} (perf_event_paranoid={})",
                     errno_text(errno), paranoid);
#else
  return unknown("not probed");
#endif
}

// Kernel, OS, load, performance counters.
void add_os(Collector& c) {
  struct utsname u;
  c.add("kernel", ::uname(&u) == 0 ? std::string(u.release) : unknown("uname: " + errno_text(errno)));

  std::string os = unknown("no PRETTY_NAME in /etc/os-release");
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    std::ifstream in(path);
    std::string line;
    bool found = false;
    while (std::getline(in, line)) {
      if (line.compare(0, 12, "PRETTY_NAME=") != 0) continue;
      std::string v = trim(line.substr(12));
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
      os = v;
      found = true;
      break;
    }
    if (found) break;
  }
  c.add("os", os);

  std::string load;
  if (read_first_line("/proc/loadavg", load))
    c.add("loadavg_1m", load.substr(0, load.find(' ')));
  else
    c.add("loadavg_1m", unknown("/proc/loadavg not readable"));

  c.add("perf_counters", probe_perf_counters());
}

// Build: compiler, flags, build type, sanitizers.
void add_build(Collector& c) {
#if defined(__clang__)
  c.add("compiler", std::string("clang ") + __clang_version__);
#elif defined(__GNUC__)
  c.add("compiler", std::string("gcc ") + __VERSION__);
#else
  c.add("compiler", unknown("neither gcc nor clang"));
#endif

  std::string flags;
#if defined(RIGCHECK_CXX_FLAGS)
  flags = macro_text(RIGCHECK_INV_STR(RIGCHECK_CXX_FLAGS));
  c.add("cxx_flags", flags.empty() ? std::string("(none)") : flags);
#else
  c.add("cxx_flags", unknown("RIGCHECK_CXX_FLAGS not defined"));
#endif
#if defined(RIGCHECK_BUILD_TYPE)
  c.add("build_type", macro_text(RIGCHECK_INV_STR(RIGCHECK_BUILD_TYPE)));
#else
  c.add("build_type", unknown("RIGCHECK_BUILD_TYPE not defined"));
#endif

  // Sanitizers: named by -fsanitize= in the flags (GCC has no macro for UBSan),
  // then those the compiler announces.
  std::vector<std::string> san;
  auto add_san = [&](const std::string& s) {
    if (!s.empty() && std::find(san.begin(), san.end(), s) == san.end()) san.push_back(s);
  };
  for (std::size_t pos = flags.find("-fsanitize="); pos != std::string::npos;
       pos = flags.find("-fsanitize=", pos + 1)) {
    const std::size_t b = pos + 11;
    const std::string list = flags.substr(b, flags.find_first_of(kWhitespace, b) - b);
    std::size_t s = 0;
    while (s <= list.size()) {
      const std::size_t e = std::min(list.find(',', s), list.size());
      add_san(list.substr(s, e - s));
      s = e + 1;
    }
  }
#if defined(__SANITIZE_ADDRESS__)
  add_san("address");
#endif
#if defined(__SANITIZE_THREAD__)
  add_san("thread");
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  add_san("address");
#endif
#if __has_feature(thread_sanitizer)
  add_san("thread");
#endif
#if __has_feature(memory_sanitizer)
  add_san("memory");
#endif
#endif
  c.add("sanitizers", san.empty() ? std::string("none") : join(san, ","));
}

// oneDNN, LibTorch and OpenBLAS: versions as linked, and the environment that steers them.
void add_libraries(Collector& c) {
#if defined(RIGCHECK_HAVE_DNNL) && RIGCHECK_HAVE_DNNL
  // dnnl_version() only reads constants; nothing here may fix the ISA cap
  // (no dnnl_get_effective_cpu_isa), which the benchmarks set later.
  const dnnl_version_t* v = dnnl_version();
  if (v != nullptr) {
    c.add("onednn_version", fmt::format("{}.{}.{} ({})", v->major, v->minor, v->patch,
                                        v->hash != nullptr ? v->hash : "no hash"));
    std::string rt;
    switch (v->cpu_runtime) {
      case DNNL_RUNTIME_NONE: rt = "none"; break;
      case DNNL_RUNTIME_SEQ: rt = "seq"; break;
      case DNNL_RUNTIME_OMP: rt = "omp"; break;
      case DNNL_RUNTIME_TBB: rt = "tbb"; break;
      case DNNL_RUNTIME_THREADPOOL: rt = "threadpool"; break;
      case DNNL_RUNTIME_SYCL: rt = "sycl"; break;
      default: rt = unknown(fmt::format("runtime code {}", v->cpu_runtime));
    }
    c.add("onednn_cpu_runtime", rt);
  } else {
    c.add("onednn_version", unknown("dnnl_version() returned null"));
    c.add("onednn_cpu_runtime", unknown("dnnl_version() returned null"));
  }
#else
  c.add("onednn_version", unknown("built without oneDNN"));
  c.add("onednn_cpu_runtime", unknown("built without oneDNN"));
#endif
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (isa == nullptr) isa = std::getenv("DNNL_MAX_CPU_ISA");
  c.add("onednn_max_cpu_isa_env", isa != nullptr ? std::string(isa) : std::string("unset"));

#if defined(RIGCHECK_HAVE_TORCH) && RIGCHECK_HAVE_TORCH
  c.add("torch_version", TORCH_VERSION);
#else
  c.add("torch_version", unknown("built without LibTorch"));
#endif

#if defined(RIGCHECK_HAVE_OPENBLAS) && RIGCHECK_HAVE_OPENBLAS
  const char* cfg = openblas_get_config();
  const std::string config = cfg != nullptr ? trim(cfg) : std::string();
  // The configuration starts "OpenBLAS 0.3.21 ...".
  std::string version = unknown("no version in openblas_get_config()");
  if (config.compare(0, 9, "OpenBLAS ") == 0) {
    const std::string rest = config.substr(9);
    version = rest.substr(0, rest.find(' '));
  }
  const char* core = openblas_get_corename();
  c.add("openblas_version", version);
  c.add("openblas_corename", core != nullptr ? std::string(core) : unknown("null corename"));
  c.add("openblas_config", config.empty() ? unknown("empty openblas_get_config()") : config);
  c.add("openblas_num_threads", std::to_string(openblas_get_num_threads()));
#else
  for (const char* k : {"openblas_version", "openblas_corename", "openblas_config", "openblas_num_threads"})
    c.add(k, unknown("built without OpenBLAS"));
#endif
  c.add("openblas_coretype_env", env_or_unset("OPENBLAS_CORETYPE"));
  c.add("openblas_l2_size_env", env_or_unset("OPENBLAS_L2_SIZE"));
  c.add("openblas_num_threads_env", env_or_unset("OPENBLAS_NUM_THREADS"));
  c.add("omp_num_threads_env", env_or_unset("OMP_NUM_THREADS"));
}

// External tools the I/O and MPI benchmarks use.
void add_tools(Collector& c) {
  const std::string fio = first_line_of(run_command("fio --version 2>/dev/null").output);
  c.add("fio_version", fio.empty() ? unknown("fio not found") : fio);
  const std::string mpi = first_line_of(run_command("mpirun --version 2>/dev/null").output);
  c.add("mpi_version", mpi.empty() ? unknown("mpirun not found") : mpi);
}

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
  const std::string driver = dv_rc == 0 ? cuda_version_text(dv)
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
    c.add(p + "compute_capability",
          major.compare(0, 8, "unknown:") == 0 ? major : minor.compare(0, 8, "unknown:") == 0 ? minor : major + "." + minor);
    c.add(p + "sm_count", attr(kSmCount));
    c.add(p + "clock_khz", attr(kClockRate));
    c.add(p + "memory_clock_khz", attr(kMemoryClock));
    c.add(p + "memory_bus_bits", attr(kBusWidth));
  }
}

// CUDA runtime version (libcudart), driver version (NVML), NCCL version.
void add_cuda_libraries(Collector& c) {
  c.section("cuda_runtime_version", [&] {
    std::string err;
    void* lib = open_first({"libcudart.so", "/usr/local/cuda/lib64/libcudart.so", "libcudart.so.13",
                            "libcudart.so.12"},
                           err);
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

  c.section("nvidia_driver_version", [&] {
    std::string err;
    void* lib = open_first({"libnvidia-ml.so.1"}, err);
    if (lib == nullptr) {
      c.add("nvidia_driver_version", unknown("libnvidia-ml.so.1 not found"));
      return;
    }
    auto init = symbol<int (*)()>(lib, "nvmlInit_v2");
    auto version = symbol<int (*)(char*, unsigned)>(lib, "nvmlSystemGetDriverVersion");
    auto shutdown = symbol<int (*)()>(lib, "nvmlShutdown");
    if (init == nullptr || version == nullptr) {
      c.add("nvidia_driver_version", unknown("libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlSystemGetDriverVersion"));
      return;
    }
    if (const int rc = init(); rc != 0) {
      c.add("nvidia_driver_version", unknown(fmt::format("nvmlInit_v2 returned {}", rc)));
      return;
    }
    char buf[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
    const int rc = version(buf, sizeof buf - 1);
    c.add("nvidia_driver_version",
          rc == 0 ? std::string(buf) : unknown(fmt::format("nvmlSystemGetDriverVersion returned {}", rc)));
    // PCIe link and power limit per NVML device (NVML numbers devices by PCI bus order, which
    // CUDA follows only with CUDA_DEVICE_ORDER=PCI_BUS_ID: hence the nvml_gpuN_ prefix).
    auto count = symbol<int (*)(unsigned*)>(lib, "nvmlDeviceGetCount_v2");
    auto handle = symbol<int (*)(unsigned, void**)>(lib, "nvmlDeviceGetHandleByIndex_v2");
    unsigned n = 0;
    if (count != nullptr && handle != nullptr && count(&n) == 0)
      for (unsigned i = 0; i < n; ++i) {
        void* dev = nullptr;
        if (handle(i, &dev) != 0) continue;
        for (auto [fn, key] : {std::pair{"nvmlDeviceGetCurrPcieLinkGeneration", "pcie_gen"},
                               std::pair{"nvmlDeviceGetCurrPcieLinkWidth", "pcie_width"},
                               std::pair{"nvmlDeviceGetMaxPcieLinkGeneration", "pcie_gen_max"},
                               std::pair{"nvmlDeviceGetMaxPcieLinkWidth", "pcie_width_max"},
                               std::pair{"nvmlDeviceGetEnforcedPowerLimit", "power_limit_mw"}}) {
          auto get = symbol<int (*)(void*, unsigned*)>(lib, fn);
          unsigned v = 0;
          const int r = get != nullptr ? get(dev, &v) : -1;
          c.add(fmt::format("nvml_gpu{}_{}", i, key), r == 0 ? std::to_string(v) : unknown(fmt::format("{} returned {}", fn, r)));
        }
      }
    if (shutdown != nullptr) shutdown();
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

}  // namespace

// ------------------------------------------------------------------ public interface

Inventory collect_inventory() {
  try {
    Collector c;
    add_provenance(c);
    CpuId cpu;
    c.section("cpuinfo", [&] { cpu = read_cpuinfo(); });
    c.section("cpu", [&] { add_cpu_identity(c, cpu); });
    c.section("topology", [&] { add_topology(c); });
    c.section("caches", [&] { add_caches(c); });
    c.section("isa", [&] { add_isa(c, cpu); });
    c.section("clock", [&] { add_clock(c); });
    c.section("memory", [&] { add_memory(c); });
    c.section("thp", [&] { add_thp(c); });
    c.section("platform", [&] { add_platform(c, cpu); });
    c.section("os", [&] { add_os(c); });
    c.section("build", [&] { add_build(c); });
    c.section("libraries", [&] { add_libraries(c); });
    c.section("tools", [&] { add_tools(c); });
    c.section("gpu", [&] { add_cuda_devices(c); });
    add_cuda_libraries(c);
    c.section("env", [&] {
      c.add("env_cuda_visible_devices", env_or_unset("CUDA_VISIBLE_DEVICES"));
      c.add("env_nccl_socket_ifname", env_or_unset("NCCL_SOCKET_IFNAME"));
    });
    return c.take();
  } catch (...) {
    return {};  // only reachable when memory runs out
  }
}

std::string inventory_get(const Inventory& inv, const std::string& key, const std::string& fallback) {
  for (const auto& [k, v] : inv)
    if (k == key) return v;
  return fallback;
}

void write_inventory_csv(const Inventory& inv, const std::string& path) {
  std::string text = "key,value\n";
  for (const auto& [k, v] : inv) text += csv_line({k, v}) + "\n";
  write_file_atomic(path, text);
}

}  // namespace rigcheck
