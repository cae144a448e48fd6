// Scratch entries a benchmark creates outside the run folder (io's files in /var/tmp or
// /dev/shm), registered so that the runner can remove them when the benchmark dies without
// cleaning up (SIGKILL by the OOM killer, the runner's timeout escalation).
// The runner names a file in the run folder (logs/<stem>.scratch) in $RIGCHECK_SCRATCH_REGISTRY;
// register_scratch_path appends one absolute path per line to it, before the entry is created.
// What the runner then removes, and what it never touches: bench/rigcheck/src/scratch_cleanup.cpp.
#pragma once
#include <string>

namespace rigcheck {

inline constexpr const char* kScratchRegistryEnv = "RIGCHECK_SCRATCH_REGISTRY";

// Appends `path` (absolute) to the registry file; does nothing when $RIGCHECK_SCRATCH_REGISTRY is
// unset (a benchmark run by hand). Best effort: a registry that cannot be written is ignored (the
// benchmark still removes its own entries whenever it ends normally or by a catchable signal).
void register_scratch_path(const std::string& path);

}  // namespace rigcheck
