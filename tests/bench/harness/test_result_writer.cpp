// bench/harness/src/result_writer.cpp (and csv.cpp's write_file_atomic) on a full disk: no file that
// looks complete is left (a piece under tests/bench/rigcheck/faults.sh).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/harness/schema.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
// Runs f in a child process; returns its exit status (f's return value).
int in_child(const std::function<int()>& f) {
  pid_t p = fork();
  if (p == 0) _exit(f());
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
}  // namespace

TEST(Faults, AFullDiskLeavesNoFileThatLooksComplete) {
  // Under a file-size limit of 4 KiB (EFBIG, as ENOSPC would be): write_file_atomic throws naming
  // the file and leaves neither the file nor its .tmp; ResultWriter throws, keeps the .partial and
  // never renames it.
  std::string dir = fresh_dir("fsize");
  int rc = in_child([&] {
    signal(SIGXFSZ, SIG_IGN);
    rlimit rl{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &rl);
    try {
      write_file_atomic(dir + "/big.csv", std::string(10000, 'x'));
      return 10;
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("big.csv.tmp: write failed: File too large") == std::string::npos) return 11;
    }
    if (fs::exists(dir + "/big.csv") || fs::exists(dir + "/big.csv.tmp")) return 12;
    ResultWriter w(dir + "/r.csv");
    ResultRow r;
    r.benchmark = "b";
    r.case_name = "c";
    r.metric = "m";
    r.note = std::string(300, 'n');
    try {
      for (int i = 0; i < 100; ++i) w.write(r);
      return 13;
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("r.csv.partial: cannot write a result row: File too large") == std::string::npos)
        return 14;
    }
    try {
      w.finish();
      return 15;
    } catch (const std::exception&) {
    }
    return fs::exists(dir + "/r.csv") ? 16 : fs::exists(dir + "/r.csv.partial") ? 0 : 17;
  });
  EXPECT_EQ(rc, 0);
}
