// How a benchmark process keeps the memory it frees (glibc malloc), shared by the cpu/ binaries.
//
// With glibc's defaults every allocation above the mmap threshold (at most 32 MiB) is mmapped and
// unmapped again when freed, and the heap's free top is trimmed: the next case (or the next step)
// touches fresh pages, and on a VM where a first touch costs ~15 us per 4 KiB page that is seconds
// per case, varying with the allocator's history (docs/performance.md). jemalloc, tcmalloc or these
// two settings (what tuned PyTorch CPU training uses) keep the memory for the next allocation.
#pragma once

namespace rigcheck {

// What keep_freed_memory() sets, for a row's params (data/params.csv: `allocator`).
inline constexpr const char* kKeepFreedAllocator =
    "glibc malloc, mallopt M_MMAP_MAX 0 and M_TRIM_THRESHOLD -1: memory a step frees is kept for the next";

// mallopt(M_MMAP_MAX, 0) and mallopt(M_TRIM_THRESHOLD, -1), once per process.
void keep_freed_memory();

}  // namespace rigcheck
