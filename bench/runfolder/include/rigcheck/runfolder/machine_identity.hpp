// What names a machine: the fingerprint that files runs of the same hardware together (the results
// store's machines, history's one series) and keeps others apart.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rigcheck {

// A machine as rigcheck names it: the SHA-256 of a canonical text of its inventory facts: the CPU
// by vendor, family, model, stepping and microarchitecture as well as its model text (a hypervisor
// may mask the text: a Zen 3 and a Zen 5 VM both say "AMD EPYC"), the topology (sockets, cores,
// hardware threads, host NUMA nodes), memory in GiB, the GPUs' names and memory; and, where a run
// was given only part of the machine (a cpuset, a CPU quota, a memory limit), that part, so that
// such a run is not filed as the whole machine. Two runs of the same hardware share it, whatever the
// host is called, the kernel, the drivers or the libraries. Facts an older inventory lacks are
// "unknown": its runs form a machine of their own.
struct MachineFacts {
  std::string cpu_model, physical_cores, memory_gib, gpus;  // gpus: "2 x NVIDIA H200 (141 GiB)" or "none"
  std::string cpu_id;                                       // "AuthenticAMD family 26 model 2 stepping 1 (zen5)"
  std::string shape;                                        // sockets, cores, threads, NUMA nodes, L3 layout
  std::string share;                                        // the limits' lines of the canonical text, or ""
  // Every fact named, in the canonical order (share's last): what same_machine compares.
  std::vector<std::pair<std::string, std::string>> facts;
  std::string canonical;    // the text hashed, one fact a line
  std::string fingerprint;  // 64 lowercase hex digits
};
MachineFacts machine_facts(const std::map<std::string, std::string>& inventory);

// Whether two runs ran on the same machine: every fact of the canonical text equal, a fact one
// inventory does not know ("unknown") left out; what one names and the other lacks (a limit, a GPU)
// differs. Runs of an inventory older than a fact still follow the same machine's newer ones.
bool same_machine(const MachineFacts& a, const MachineFacts& b);

}  // namespace rigcheck
