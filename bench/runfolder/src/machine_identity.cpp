// The machine fingerprint (machine_identity.hpp).
#include "rigcheck/runfolder/machine_identity.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rigcheck/harness/sha256.hpp"

namespace rigcheck {

namespace {
using Facts = std::vector<std::pair<std::string, std::string>>;

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
long long count_of(const std::string& text) {
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' && n > 0 ? n : 0;
}
// The part of the machine a run was given, where it was not all of it: a cpuset narrower than the
// machine's hardware threads, a CPU quota below its cores, a memory limit. Empty for the whole machine,
// and for inventories written before these facts existed (they cannot tell).
Facts share_of(const std::map<std::string, std::string>& inv) {
  Facts share;
  const long long threads = count_of(fact(inv, "hardware_threads"));
  const long long allowed = count_of(fact(inv, "allowed_hardware_threads"));
  if (threads > 0 && allowed > 0 && allowed < threads)
    share.emplace_back("allowed_hardware_threads", std::to_string(allowed));
  const long long cores = count_of(fact(inv, "physical_cores"));
  const long long usable = count_of(fact(inv, "usable_cores"));
  if (cores > 0 && usable > 0 && usable < cores) share.emplace_back("usable_cores", std::to_string(usable));
  const std::string limit = gib(fact(inv, "memory_limit_bytes"));
  if (limit != "unknown") share.emplace_back("memory_limit_gib", limit);
  return share;
}
std::string text_of(const Facts& facts) {
  std::string s;
  for (const auto& [key, value] : facts) s += key + "=" + value + "\n";
  return s;
}
}  // namespace

MachineFacts machine_facts(const std::map<std::string, std::string>& inv) {
  MachineFacts m;
  // The CPU by what the hypervisor cannot mask as easily as the model text (vendor, family, model,
  // stepping: a Zen 3 and a Zen 5 VM both say "AMD EPYC"), the topology, memory, GPUs.
  for (const char* key : {"cpu_vendor", "cpu_family", "cpu_model_number", "cpu_stepping", "cpu_microarch", "cpu_model",
                          "sockets", "physical_cores", "hardware_threads", "numa_nodes"})
    m.facts.emplace_back(key, fact(inv, key));
  m.facts.emplace_back("memory_gib", gib(fact(inv, "memory_total_bytes")));
  const std::string count = fact(inv, "gpu_count");
  m.facts.emplace_back("gpu_count", count);
  const std::map<std::string, std::string> f(m.facts.begin(), m.facts.end());
  m.cpu_model = f.at("cpu_model");
  m.physical_cores = f.at("physical_cores");
  m.memory_gib = f.at("memory_gib");
  m.cpu_id = fmt::format("{} family {} model {} stepping {} ({})", f.at("cpu_vendor"), f.at("cpu_family"),
                         f.at("cpu_model_number"), f.at("cpu_stepping"), f.at("cpu_microarch"));
  m.shape = fmt::format("{} sockets, {} cores, {} threads, {} NUMA nodes, L3 {}", f.at("sockets"), m.physical_cores,
                        f.at("hardware_threads"), f.at("numa_nodes"), fact(inv, "cache_l3_layout"));
  const int n = std::atoi(count.c_str());
  std::map<std::string, int> kinds;  // "NVIDIA H200 (141 GiB)" -> how many
  for (int i = 0; i < n; ++i) {
    const std::string gpu = fmt::format("{} ({} GiB)", fact(inv, fmt::format("gpu{}_name", i)),
                                        gib(fact(inv, fmt::format("gpu{}_memory_bytes", i))));
    m.facts.emplace_back(fmt::format("gpu{}", i), gpu);
    ++kinds[gpu];
  }
  const Facts share = share_of(inv);
  m.share = text_of(share);
  m.facts.insert(m.facts.end(), share.begin(), share.end());
  for (auto& [k, c] : kinds) m.gpus += (m.gpus.empty() ? "" : ", ") + fmt::format("{} x {}", c, k);
  if (m.gpus.empty()) m.gpus = n > 0 ? count + " x unknown" : "none";
  m.canonical = text_of(m.facts);
  Sha256 h;
  h.update(m.canonical);
  m.fingerprint = h.hex_digest();
  return m;
}

bool same_machine(const MachineFacts& a, const MachineFacts& b) {
  if (a.fingerprint == b.fingerprint) return true;
  const std::map<std::string, std::string> fa(a.facts.begin(), a.facts.end()), fb(b.facts.begin(), b.facts.end());
  for (const auto* side : {&fa, &fb})
    for (const auto& [key, value] : *side) {
      const auto& other = side == &fa ? fb : fa;
      auto it = other.find(key);
      if (it == other.end()) return false;
      if (value != "unknown" && it->second != "unknown" && value != it->second) return false;
    }
  return true;
}

}  // namespace rigcheck
