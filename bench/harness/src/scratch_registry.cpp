#include "rigcheck/harness/scratch_registry.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

void register_scratch_path(const std::string& path) {
  const char* file = std::getenv(kScratchRegistryEnv);
  if (!file || !*file || path.empty() || path.find('\n') != std::string::npos) return;
  int fd = ::open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)write_all(fd, path + "\n");  // one write(2) with O_APPEND: a whole line or nothing useful
  ::close(fd);
}

}  // namespace rigcheck
