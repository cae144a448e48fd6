// Facts of a run's inventory that several evaluator files read (bench/claims/src only).
#pragma once
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck::run_facts {

inline int physical_cores(const RunData& run) {
  auto it = run.facts.find("physical_cores");
  return it == run.facts.end() ? 0 : std::atoi(it->second.c_str());
}

inline std::string fact(const RunData& run, const std::string& key) { return fact_or(run.facts, key, kNotInInventory); }

inline std::string cpu_budget_text(const RunData& run) {
  return fmt::format("affinity {}, cgroup CPU quota {}", fact(run, "cpu_affinity"), fact(run, "cgroup_cpu_quota"));
}

// The cores this process may use: the inventory's `usable_cores` (affinity mask and cgroup
// quota) when the run has it, else the physical cores.
inline int usable_cores(const RunData& run) {
  auto it = run.facts.find("usable_cores");
  if (it != run.facts.end() && std::atoi(it->second.c_str()) > 0) return std::atoi(it->second.c_str());
  return physical_cores(run);
}

// The ISA the run's binaries executed (the inventory's cpu_arch: x86_64, aarch64; older runs have none,
// and were x86-64). A claim about x86 (CPU-5, CPU-6) is not measurable by a run of
// another ISA: true with the verdict set when so.
inline bool x86_claim_elsewhere(const RunData& run, Verdict& v) {
  auto it = run.facts.find("cpu_arch");
  if (it == run.facts.end() || it->second == "x86_64" || it->second.rfind("unknown", 0) == 0) return false;
  v.verdict = Outcome::not_measurable;
  v.reason = "an x86 claim; this machine is " + it->second;
  v.evidence = fmt::format("cpu_arch {}, {}{}", it->second, fact(run, "cpu_arm_name"),
                           fact(run, "emulated").rfind("yes", 0) == 0 ? " (the run was emulated)" : "");
  return true;
}

}  // namespace rigcheck::run_facts
