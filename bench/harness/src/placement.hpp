// Binds a case to the CPUs its placement chose (machine_topology.hpp): every thread of the process
// confined to those CPUs, the OpenMP team's threads each pinned to one of them (thread i on CPU i),
// memory bound to their NUMA nodes. Called before a case's kernel is made (its memory is touched
// there) and before each timed call (interleaved cases of other thread counts share the process).
// Private to the harness (harness_main).
#pragma once
#include <string>
#include <vector>

#include "rigcheck/harness/machine_topology.hpp"

namespace rigcheck::detail {

// The placement of `threads` threads on the CPUs this process was given (`allowed`, sorted); on
// one NUMA node's CPUs with the memory on `memory_node` when `numa_node` >= 0 (Case::numa_node).
ThreadPlacement case_placement(int threads, Placement p, const std::vector<int>& allowed, int numa_node = -1,
                               int memory_node = -1);
// Applies it; returns what could not be done (empty when all was), for the row's note.
std::string bind_case(const ThreadPlacement& where);
// Every thread of the process on `cpus` (each OpenMP worker's own pin undone): for what is not timed,
// a kernel's check against its reference, which may use every CPU the process was given.
void confine_all_threads(const std::vector<int>& cpus);
// The observed params of a placed case: cpus=0-3;numa_nodes=0;memory_nodes=0;l3_domains=0;sockets=0;placement=compact
// (memory_nodes: those its memory was bound to, "any" on a machine of one host node, where no binding is made)
std::vector<std::pair<std::string, std::string>> placement_params(const ThreadPlacement& where, Placement p);

}  // namespace rigcheck::detail
