#include "io_common.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>

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
