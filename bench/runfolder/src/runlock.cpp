#include "rigcheck/runfolder/runlock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

namespace {
std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string absolute(const std::string& p) {
  char buf[PATH_MAX];
  if (realpath(p.c_str(), buf)) return buf;
  return p;
}
}  // namespace

std::string machine_lock_dir() {
  const char* e = std::getenv("RIGCHECK_LOCK_DIR");
  return e && *e ? e : "/tmp/rigcheck-runs";
}

RunLock::RunLock(const std::string& run_dir) : run_dir_(absolute(run_dir)) {
  folder_lock_ = run_dir + "/.runner.lock";
  folder_fd_ = open(folder_lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (folder_fd_ < 0 || flock(folder_fd_, LOCK_EX | LOCK_NB) != 0)
    throw std::runtime_error(fmt::format("{}: cannot lock: {}", folder_lock_, std::strerror(errno)));
  (void)write_all(folder_fd_, fmt::format("{}\n", getpid()));

  // The machine-wide file appears under its final name only once it is locked, so that no other
  // run takes it for a stale one and removes it.
  const std::string dir = machine_lock_dir();
  if (::mkdir(dir.c_str(), 0777) == 0) ::chmod(dir.c_str(), 01777);  // shared by users, like /tmp
  const std::string tmp = fmt::format("{}/.{}.tmp", dir, getpid()), path = fmt::format("{}/{}.lock", dir, getpid());
  machine_fd_ = open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (machine_fd_ < 0 || flock(machine_fd_, LOCK_EX | LOCK_NB) != 0 || write_all(machine_fd_, run_dir_ + "\n") != 0 ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr,
                 "rigcheck run: warning: cannot register in %s (%s): other runs at the same time will not be seen\n",
                 dir.c_str(), std::strerror(errno));
    if (machine_fd_ >= 0) {
      ::unlink(tmp.c_str());
      close(machine_fd_);
      machine_fd_ = -1;
    }
    return;
  }
  machine_lock_ = path;
}

RunLock::~RunLock() {
  if (machine_fd_ >= 0) {
    ::unlink(machine_lock_.c_str());
    close(machine_fd_);
  }
  if (folder_fd_ >= 0) {
    ::unlink(folder_lock_.c_str());
    close(folder_fd_);
  }
}

std::vector<OtherRun> RunLock::others() const {
  std::vector<OtherRun> out;
  const std::string dir = machine_lock_dir();
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    char* end = nullptr;
    long pid = std::strtol(n.c_str(), &end, 10);
    if (pid <= 0 || std::strcmp(end, ".lock") != 0 || pid == getpid()) continue;
    const std::string path = dir + "/" + n;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) out.push_back({static_cast<int>(pid), read_all(fd)});
    } else {
      ::unlink(path.c_str());  // nobody holds it: its run died; another user's stays (sticky folder)
    }
    close(fd);
  }
  closedir(d);
  return out;
}

RunnerState runner_state(const std::string& run_dir) {
  int fd = open((run_dir + "/.runner.lock").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return RunnerState::no_lock;
  RunnerState s = flock(fd, LOCK_SH | LOCK_NB) == 0 ? RunnerState::gone : RunnerState::alive;
  close(fd);
  return s;
}

}  // namespace rigcheck
