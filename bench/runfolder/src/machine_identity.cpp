// The machine fingerprint (machine_identity.hpp).
#include "rigcheck/runfolder/machine_identity.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rigcheck/harness/sha256.hpp"

namespace rigcheck {

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
long long count_of(const std::string& text) {
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0' && n > 0 ? n : 0;
}
// The part of the machine a run was given, where it was not all of it: a cpuset narrower than the
// machine's hardware threads, a CPU quota below its cores, a memory limit. Empty for the whole machine,
// and for inventories written before these facts existed (they cannot tell).
std::string share_of(const std::map<std::string, std::string>& inv) {
  std::string share;
  const long long threads = count_of(fact(inv, "hardware_threads"));
  const long long allowed = count_of(fact(inv, "allowed_hardware_threads"));
  if (threads > 0 && allowed > 0 && allowed < threads) share += fmt::format("allowed_hardware_threads={}\n", allowed);
  const long long cores = count_of(fact(inv, "physical_cores"));
  const long long usable = count_of(fact(inv, "usable_cores"));
  if (cores > 0 && usable > 0 && usable < cores) share += fmt::format("usable_cores={}\n", usable);
  const std::string limit = gib(fact(inv, "memory_limit_bytes"));
  if (limit != "unknown") share += fmt::format("memory_limit_gib={}\n", limit);
  return share;
}
}  // namespace

MachineFacts machine_facts(const std::map<std::string, std::string>& inv) {
  MachineFacts m;
  m.cpu_model = fact(inv, "cpu_model");
  m.physical_cores = fact(inv, "physical_cores");
  m.memory_gib = gib(fact(inv, "memory_total_bytes"));
  m.cpu_id = fmt::format("{} family {} model {} stepping {} ({})", fact(inv, "cpu_vendor"), fact(inv, "cpu_family"),
                         fact(inv, "cpu_model_number"), fact(inv, "cpu_stepping"), fact(inv, "cpu_microarch"));
  m.shape = fmt::format("{} sockets, {} cores, {} threads, {} NUMA nodes, L3 {}", fact(inv, "sockets"),
                        m.physical_cores, fact(inv, "hardware_threads"), fact(inv, "numa_nodes"),
                        fact(inv, "cache_l3_layout"));
  m.share = share_of(inv);
  const std::string count = fact(inv, "gpu_count");
  const int n = std::atoi(count.c_str());
  // The CPU by what the hypervisor cannot mask as easily as the model text (vendor, family, model,
  // stepping: a Zen 3 and a Zen 5 VM both say "AMD EPYC"), the topology, memory, GPUs.
  m.canonical = fmt::format(
      "cpu_vendor={}\ncpu_family={}\ncpu_model_number={}\ncpu_stepping={}\ncpu_microarch={}\ncpu_model={}\n"
      "sockets={}\nphysical_cores={}\nhardware_threads={}\nnuma_nodes={}\nmemory_gib={}\n"
      "gpu_count={}\n",
      fact(inv, "cpu_vendor"), fact(inv, "cpu_family"), fact(inv, "cpu_model_number"), fact(inv, "cpu_stepping"),
      fact(inv, "cpu_microarch"), m.cpu_model, fact(inv, "sockets"), m.physical_cores, fact(inv, "hardware_threads"),
      fact(inv, "numa_nodes"), m.memory_gib, count);
  std::map<std::string, int> kinds;  // "NVIDIA H200 (141 GiB)" -> how many
  for (int i = 0; i < n; ++i) {
    const std::string name = fact(inv, fmt::format("gpu{}_name", i));
    const std::string mem = gib(fact(inv, fmt::format("gpu{}_memory_bytes", i)));
    m.canonical += fmt::format("gpu{}={} ({} GiB)\n", i, name, mem);
    ++kinds[fmt::format("{} ({} GiB)", name, mem)];
  }
  m.canonical += m.share;
  for (auto& [k, c] : kinds) m.gpus += (m.gpus.empty() ? "" : ", ") + fmt::format("{} x {}", c, k);
  if (m.gpus.empty()) m.gpus = n > 0 ? count + " x unknown" : "none";
  Sha256 h;
  h.update(m.canonical);
  m.fingerprint = h.hex_digest();
  return m;
}

namespace {
std::map<std::string, std::string> facts_of(const std::string& canonical) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = canonical.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = canonical.substr(at, nl - at);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}
}  // namespace

bool same_machine(const MachineFacts& a, const MachineFacts& b) {
  if (a.fingerprint == b.fingerprint) return true;
  const std::map<std::string, std::string> fa = facts_of(a.canonical), fb = facts_of(b.canonical);
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
