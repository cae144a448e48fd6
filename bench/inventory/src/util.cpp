// The inventory's small helpers (declared in internal.hpp): text, files, commands, /proc/cpuinfo.
#include "internal.hpp"

#include "rigcheck/harness/topology.hpp"

namespace rigcheck::inventory_detail {

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

bool read_text(const std::string& path, std::string& out, std::size_t max_bytes) {
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

bool read_first_line(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  std::getline(in, line);
  if (in.bad()) return false;
  out = trim(line);
  return true;
}

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

std::vector<int> numbered_entries(const std::string& path, std::string_view prefix) {
  std::vector<std::string> names;
  std::vector<int> ids;
  if (!list_dir(path, names)) return ids;
  for (const auto& n : names) {
    if (n.size() <= prefix.size() || n.compare(0, prefix.size(), prefix) != 0) continue;
    std::uint64_t v = 0;
    if (parse_u64(std::string_view(n).substr(prefix.size()), v) && v < 1u << 30) ids.push_back(static_cast<int>(v));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

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

CommandResult run_command(const std::string& command, std::size_t max_bytes) {
  CommandResult r;
  std::fflush(nullptr);  // so that buffered output is not written twice by the child
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n = 0;
  while (r.output.size() < max_bytes && (n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);  // a child cut short by the cap just gets SIGPIPE
  r.exited_zero = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

std::string first_line_of(const std::string& text) { return trim(text.substr(0, text.find('\n'))); }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string macro_text(const char* stringized) {
  std::string s = trim(stringized);
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return s;
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (s[i] == '\\' && i + 2 < s.size()) ++i;  // \" and \\ as written in a literal
    out += s[i];
  }
  return out;
}

std::string dl_error_text() {
  const char* e = ::dlerror();
  return e != nullptr ? std::string(e) : std::string("unknown dlopen error");
}

CpuId read_cpuinfo(const std::string& root) {
  CpuId c;
  std::ifstream in(root + "/proc/cpuinfo");
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

std::string cpu_microarch(const CpuId& c) {
  if (c.family < 0 || c.model < 0) return unknown("no cpu family/model in /proc/cpuinfo");
  const std::int64_t f = c.family, m = c.model;
  auto in = [m](std::int64_t lo, std::int64_t hi) { return m >= lo && m <= hi; };
  if (is_amd(c)) {
    if (f == 23) return "zen/zen2";
    if (f == 25) {
      // 0x30-0x3f: Trento (EPYC 7A53 and kin), a Zen 3 part.
      if (in(0x00, 0x0f) || in(0x20, 0x2f) || in(0x30, 0x3f) || in(0x40, 0x4f) || in(0x50, 0x5f)) return "zen3";
      if (in(0x10, 0x1f) || in(0x60, 0x7f) || in(0xa0, 0xaf)) return "zen4";
      return unknown(fmt::format("AMD family {} model {:#x} not in the table", f, m));
    }
    if (f == 26) return "zen5";
    return unknown(fmt::format("AMD family {} not in the table", f));
  }
  if (is_intel(c)) return fmt::format("intel family {} model {}", f, m);
  return unknown(fmt::format("vendor '{}' not in the table", c.vendor));
}

bool server_model(const CpuId& c) {
  const std::int64_t f = c.family, m = c.model;
  if (is_amd(c)) {
    if (f == 23) return m == 0x01 || m == 0x31;  // Naples, Rome
    if (f == 25)
      return m == 0x01 || m == 0x30 || m == 0x11 ||  // Milan, Trento, Genoa
             (m >= 0xa0 && m <= 0xaf);               // Bergamo, Siena
    if (f == 26) return m >= 0x00 && m <= 0x1f;      // Turin
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

std::string cpu_dir(int cpu) { return kCpuSys + "/cpu" + std::to_string(cpu); }

std::vector<int> online_cpus() {
  std::string line;
  if (read_first_line(kCpuSys + "/online", line)) {
    auto cpus = parse_cpu_list_text(line);
    if (!cpus.empty()) return cpus;
  }
  std::vector<int> cpus;
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < n; ++i) cpus.push_back(static_cast<int>(i));
  return cpus;
}

}  // namespace rigcheck::inventory_detail
