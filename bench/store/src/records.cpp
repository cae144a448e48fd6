// CSV records kept verbatim, the machine fingerprint and the run identity (records.hpp).
#include "rigcheck/store/records.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rigcheck/harness/sha256.hpp"

namespace rigcheck {

std::vector<std::string> split_csv_records(const std::string& text) {
  std::vector<std::string> out;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;  // "" inside quotes toggles twice: still quoted
    else if (text[i] == '\n' && !quoted) {
      out.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::vector<std::string> csv_record_fields(const std::string& record) {
  std::string r = record;
  if (!r.empty() && r.back() == '\n') r.pop_back();
  if (!r.empty() && r.back() == '\r') r.pop_back();
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (quoted) {
      if (c == '"' && i + 1 < r.size() && r[i + 1] == '"') fields.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

namespace {
std::string fact(const std::map<std::string, std::string>& inv, const std::string& key) {
  auto it = inv.find(key);
  return it == inv.end() || it->second.empty() ? "unknown" : it->second;
}
// Bytes as whole GiB, rounded: the kernel's MemTotal moves by megabytes between kernel versions.
std::string gib(const std::string& bytes) {
  char* end = nullptr;
  const double b = std::strtod(bytes.c_str(), &end);
  if (end == bytes.c_str() || *end != '\0' || !(b > 0)) return "unknown";
  return fmt::format("{}", static_cast<long long>(std::llround(b / 1073741824.0)));
}
}  // namespace

MachineFacts machine_facts(const std::map<std::string, std::string>& inv) {
  MachineFacts m;
  m.cpu_model = fact(inv, "cpu_model");
  m.physical_cores = fact(inv, "physical_cores");
  m.memory_gib = gib(fact(inv, "memory_total_bytes"));
  const std::string count = fact(inv, "gpu_count");
  const int n = std::atoi(count.c_str());
  m.canonical = fmt::format("cpu_model={}\nphysical_cores={}\nmemory_gib={}\ngpu_count={}\n", m.cpu_model,
                            m.physical_cores, m.memory_gib, count);
  std::map<std::string, int> kinds;  // "NVIDIA H200 (141 GiB)" -> how many
  for (int i = 0; i < n; ++i) {
    const std::string name = fact(inv, fmt::format("gpu{}_name", i));
    const std::string mem = gib(fact(inv, fmt::format("gpu{}_memory_bytes", i)));
    m.canonical += fmt::format("gpu{}={} ({} GiB)\n", i, name, mem);
    ++kinds[fmt::format("{} ({} GiB)", name, mem)];
  }
  for (auto& [k, c] : kinds) m.gpus += (m.gpus.empty() ? "" : ", ") + fmt::format("{} x {}", c, k);
  if (m.gpus.empty()) m.gpus = n > 0 ? count + " x unknown" : "none";
  Sha256 h;
  h.update(m.canonical);
  m.fingerprint = h.hex_digest();
  return m;
}

std::string run_identity(const std::string& folder_name, const std::string& hostname, const std::string& started_utc) {
  Sha256 h;
  h.update("folder=" + folder_name + "\nhost=" + hostname + "\nstarted_utc=" + started_utc + "\n");
  return h.hex_digest();
}

}  // namespace rigcheck
