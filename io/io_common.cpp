#include "io_common.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace rigcheck::io {

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

OpenFileLimit raise_open_file_limit() {
  OpenFileLimit r;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return r;
  auto as_int = [](rlim_t v) { return v == RLIM_INFINITY ? int64_t(1) << 40 : static_cast<int64_t>(v); };
  r.before = as_int(lim.rlim_cur);
  r.hard = as_int(lim.rlim_max);
  if (lim.rlim_cur != lim.rlim_max) {
    struct rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  r.soft = as_int(lim.rlim_cur);
  return r;
}

int64_t fio_open_files_per_job(int64_t files, int64_t jobs, int64_t limit, int64_t reserve) {
  if (files < 1 || jobs < 1) return 0;
  if (limit <= 0) return files;  // no limit known: fio's default (every file open)
  if (jobs * files + reserve <= limit) return files;
  const int64_t per = (limit - reserve) / jobs;
  return per < 1 ? 0 : std::min(per, files);
}

int run_measure(Session& s, std::unique_ptr<Scratch>& scratch, const std::function<void()>& measure,
                const std::function<void(const std::string& reason)>& fail_rows) {
  const int rc = s.run([&] {
    try {
      measure();
    } catch (const std::exception& e) {
      try {
        fail_rows(e.what());
      } catch (const std::exception&) {
      }
      throw;
    }
  });
  if (scratch) scratch->remove_all();
  return rc;
}

}  // namespace rigcheck::io

namespace rigcheck::io {

std::string o_direct_refused(const std::string& path) {
  constexpr size_t kBlock = 4096;
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return fmt::format("open with O_DIRECT: {}", std::strerror(errno));
  void* buf = nullptr;
  std::string why;
  if (::posix_memalign(&buf, kBlock, kBlock) != 0) {
    why = "no aligned buffer for the probe";
  } else {
    const ssize_t n = ::pread(fd, buf, kBlock, 0);
    if (n < 0)
      why = fmt::format("read with O_DIRECT: {}", std::strerror(errno));
    else if (n != static_cast<ssize_t>(kBlock))
      why = fmt::format("read with O_DIRECT returned {} of {} bytes", n, kBlock);
  }
  std::free(buf);
  ::close(fd);
  return why;
}

DirectIo direct_io_plan(const std::string& refused, const std::string& dev_class) {
  DirectIo d;
  if (refused.empty()) return d;
  if (dev_class == "tmpfs") {
    d.direct = false;
    d.note = fmt::format(
        "buffered reads (direct=0): this tmpfs refuses O_DIRECT ({}; tmpfs accepts it from Linux 6.6), "
        "and a tmpfs file lives in the page cache either way",
        refused);
  } else {
    d.skip = fmt::format(
        "the scratch directory's filesystem ({}) refuses O_DIRECT ({}): buffered reads would time the "
        "page cache, not the device; name a --scratch on a filesystem that accepts O_DIRECT",
        dev_class.empty() ? "of unknown class" : dev_class, refused);
  }
  return d;
}

}  // namespace rigcheck::io
