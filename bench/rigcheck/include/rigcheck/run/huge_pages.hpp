// The comparing commands' start-up: glibc's malloc on transparent huge pages (src/huge_pages.cpp).
#pragma once

namespace rigcheck {

// compare, history and noise hold every run's cases at once (about 400 MB of small allocations over
// 1,000 stored quick runs), and first-touch page faults were a third of history's time on the 2-vCPU
// VM. glibc's malloc takes transparent huge pages where told so at start-up (the tunable
// glibc.malloc.hugetlb=1), so these commands start themselves once more with it (history of 1,000
// stored runs: 1.3-1.6 s against 1.8-2.2 s, docs/performance.md), and with glibc.malloc.top_pad at
// 64 MiB: the heap then grows in steps that huge pages fill whole, where growing it by what each
// allocation needed left most of it on 4 KiB pages (23,000-42,000 faults a history, 2,300-3,600 after;
// 0.66 s against 0.83 s, medians of 8 interleaved rounds, docs/performance.md). Not where GLIBC_TUNABLES is set
// already (the user's), nor for run or ab, whose benchmark children must start as they always do;
// the second start takes the variable out again, so that nothing it starts inherits it.
// Called first in main(): may start the process again (execv of /proc/self/exe) with the same argv.
void malloc_on_huge_pages(int argc, char** argv);

}  // namespace rigcheck
