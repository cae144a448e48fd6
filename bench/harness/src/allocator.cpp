#include "rigcheck/harness/allocator.hpp"

#include <malloc.h>

namespace rigcheck {

void keep_freed_memory() {
  static const bool once = [] {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    return true;
  }();
  (void)once;
}

}  // namespace rigcheck
