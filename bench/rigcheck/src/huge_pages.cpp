// See huge_pages.hpp.
#include "rigcheck/run/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "rigcheck/harness/emulation.hpp"

namespace rigcheck {

void malloc_on_huge_pages(int argc, char** argv) {
  if (argc < 2) return;
  const std::string cmd = argv[1];
  if (cmd != "compare" && cmd != "history" && cmd != "noise") return;
  if (const char* again = std::getenv("RIGCHECK_MALLOC_HUGETLB")) {  // the second start
    if (std::string(again) == "set") ::unsetenv("GLIBC_TUNABLES");
    ::unsetenv("RIGCHECK_MALLOC_HUGETLB");
    return;
  }
  if (std::getenv("GLIBC_TUNABLES")) return;
  // top_pad: the heap grows 64 MiB at a time, so that its huge pages are whole ones (see the header)
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864", 1);
  ::setenv("RIGCHECK_MALLOC_HUGETLB", "set", 1);
  exec_command(self_exec_command({argv, argv + argc}));  // through the exec prefix under an emulator
  ::unsetenv("GLIBC_TUNABLES");                          // could not start again: go on as this process
  ::unsetenv("RIGCHECK_MALLOC_HUGETLB");
}

}  // namespace rigcheck
