#include "fio_driver.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scratch.hpp"

namespace rigcheck::io {
namespace {

bool is_executable(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Runs argv with stdout+stderr to log_path; returns the exit status (128+signal if killed).
// Runs argv with stdout and stderr on logfd (left open), killed after timeout_s.
int run_to_fd(const std::vector<std::string>& argv, int logfd, double timeout_s, bool* timed_out) {
  *timed_out = false;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  // The clean-up handlers (scratch.cpp) kill the registered child: no signal may land between
  // the fork and the registration, or fio would outlive us.
  sigset_t block, old;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    throw FioError(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);  // exec keeps the mask: fio must see signals
    // fio forks one process per job: in a process group of their own, so that a timeout or a
    // signal kills them all (killing fio's main process alone left its jobs reading on); and
    // fio dies with us if we are killed outright.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(127);
    ::dup2(logfd, STDOUT_FILENO);
    ::dup2(logfd, STDERR_FILENO);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    ::execv(args[0], args.data());
    dprintf(STDERR_FILENO, "exec %s failed: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  ::setpgid(pid, pid);  // also here: no window in which a kill of the group misses the child
  set_running_child(pid);
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  auto t0 = std::chrono::steady_clock::now();
  int st = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (el > timeout_s) {
      *timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  set_running_child(0);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

int run_to_log(const std::vector<std::string>& argv, const std::string& log_path, double timeout_s, bool* timed_out) {
  int logfd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (logfd < 0) throw FioError(fmt::format("{}: cannot write: {}", log_path, std::strerror(errno)));
  int rc = -1;
  try {
    rc = run_to_fd(argv, logfd, timeout_s, timed_out);
  } catch (...) {
    ::close(logfd);
    throw;
  }
  ::close(logfd);
  return rc;
}

double num(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number())
    throw FioError(fmt::format("{}: no number '{}' in fio's JSON", where, key));
  return j[key].get<double>();
}

}  // namespace

std::string job_file_text(const FioJob& j) {
  std::string s = "; written by rigcheck io_fio; run by hand with: fio --output-format=json JOBFILE\n";
  s += fmt::format("[{}]\n", j.name);
  s += fmt::format("ioengine={}\n", j.ioengine);
  s += fmt::format("rw={}\nbs={}\niodepth={}\nnumjobs={}\n", j.rw, j.bs, j.iodepth, j.numjobs);
  s += fmt::format("direct={}\n", j.direct ? 1 : 0);
  if (!j.filename.empty()) s += fmt::format("filename={}\n", j.filename);
  if (!j.opendir.empty()) s += fmt::format("opendir={}\n", j.opendir);
  if (j.size > 0) s += fmt::format("size={}\n", j.size);
  s += fmt::format("time_based=1\nruntime={}ms\n", static_cast<long long>(j.runtime_s * 1000));
  if (j.ramp_s > 0) s += fmt::format("ramp_time={}ms\n", static_cast<long long>(j.ramp_s * 1000));
  s += "group_reporting=1\n";
  // Jobs as threads of the one fio process, not forked processes: a forked job runs in a session
  // of its own and, when fio's main process was killed before it let the job start, waited on
  // forever (seen: an orphan fio job alive 12 minutes after io_fio's SIGINT clean-up).
  s += "thread=1\n";
  // Never create, extend, truncate or delete anything: the files exist already (created by
  // rigcheck) and belong to rigcheck's clean-up.
  s += "create_on_open=0\nallow_file_create=0\nunlink=0\nfile_append=0\n";
  for (const auto& e : j.extra) s += e + "\n";
  return s;
}

FioResult parse_fio_json(const std::string& path, const std::string& direction) {
  std::ifstream in(path);
  if (!in) throw FioError(fmt::format("{}: fio wrote no JSON output file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.empty()) throw FioError(fmt::format("{}: fio's JSON output is empty", path));
  // fio writes its own notices into the output file before the JSON ("fio: opendir added 48
  // files", "note: both iodepth >= 1 and synchronous I/O engine..."): skip lines with those
  // prefixes, and only those.
  size_t start = 0;
  while (start < text.size() && (text.compare(start, 5, "fio: ") == 0 || text.compare(start, 6, "note: ") == 0)) {
    size_t nl = text.find('\n', start);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(start), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw FioError(fmt::format("{}: fio's output is not valid JSON (byte {}): {}", path, e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number beyond double (found by tests/fuzz)
    throw FioError(fmt::format("{}: fio's output is not valid JSON: {}", path, e.what()));
  }
  FioResult r;
  if (j.contains("fio version") && j["fio version"].is_string()) r.fio_version = j["fio version"].get<std::string>();
  if (!j.contains("jobs") || !j["jobs"].is_array() || j["jobs"].empty())
    throw FioError(fmt::format("{}: fio's JSON has no \"jobs\" array", path));
  r.jobs = static_cast<int>(j["jobs"].size());
  // Every value's type is checked before it is read: nlohmann-json's own type errors are not
  // FioError, and io_fio catches FioError per case (found by tests/fuzz).
  auto text_of = [](const nlohmann::json& o, const char* key, const char* fallback) {
    return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string(fallback);
  };
  size_t index = 0;
  for (const auto& job : j["jobs"]) {
    if (!job.is_object()) throw FioError(fmt::format("{}: jobs[{}] is not an object", path, index));
    ++index;
    const std::string where = fmt::format("{}: jobs[{}]", path, text_of(job, "jobname", "?"));
    if (!job.contains(direction) || !job[direction].is_object())
      throw FioError(fmt::format("{}: no \"{}\" section", where, direction));
    const auto& d = job[direction];
    r.jobname = text_of(job, "jobname", "");
    if (job.contains("error") && job["error"].is_number()) {
      // fio's errno; a double cast to int must fit (anything else is not fio's).
      const double e = job["error"].get<double>();
      if (!(e >= 0 && e < 1e6)) throw FioError(fmt::format("{}: error {} is not an error number", where, e));
      r.error += static_cast<int>(e);
    }
    r.bw_bytes += num(d, "bw_bytes", where);
    r.iops += num(d, "iops", where);
    r.io_bytes += num(d, "io_bytes", where);
    r.runtime_ms = std::max(r.runtime_ms, num(d, "runtime", where));
    if (!d.contains("clat_ns") || !d["clat_ns"].is_object()) throw FioError(where + ": no clat_ns");
    const auto& c = d["clat_ns"];
    r.clat_mean_ns = num(c, "mean", where + ".clat_ns");
    if (c.contains("percentile") && c["percentile"].is_object()) {
      const auto& p = c["percentile"];
      auto pct = [&](const char* k) { return p.contains(k) && p[k].is_number() ? p[k].get<double>() : 0.0; };
      r.clat_p50_ns = pct("50.000000");
      r.clat_p99_ns = pct("99.000000");
      r.clat_p999_ns = pct("99.900000");
    }
  }
  return r;
}

Fio::Fio(const std::string& binary) {
  if (binary.find('/') != std::string::npos) {
    if (!is_executable(binary))
      throw FioError(
          fmt::format("fio not found: {} is not an executable file (--fio-binary); install Debian's fio "
                      "(scripts/setup.sh)",
                      binary));
    path_ = binary;
    return;
  }
  const char* env = std::getenv("PATH");
  std::string p = env ? env : "/usr/bin:/bin";
  std::istringstream dirs(p);
  for (std::string d; std::getline(dirs, d, ':');) {
    if (d.empty()) d = ".";
    if (is_executable(d + "/" + binary)) {
      path_ = d + "/" + binary;
      return;
    }
  }
  throw FioError(
      fmt::format("fio not found: no executable '{}' in PATH ({}); install Debian's fio (scripts/setup.sh) "
                  "or name it with --fio-binary",
                  binary, p));
}

std::string Fio::version() const {
  // An anonymous in-memory file (no path anywhere: the io binaries write only inside their
  // scratch directory, and this runs before it exists).
  int fd = ::memfd_create("rigcheck-fio-version", MFD_CLOEXEC);
  if (fd < 0) throw FioError(fmt::format("memfd_create for fio --version failed: {}", std::strerror(errno)));
  bool to = false;
  int rc = -1;
  std::string out;
  try {
    rc = run_to_fd({path_, "--version"}, fd, 30, &to);
    char buf[200];
    const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
    if (n > 0) out.assign(buf, static_cast<size_t>(n));
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (rc != 0 || out.rfind("fio-", 0) != 0)
    throw FioError(fmt::format("{} --version exited {} and printed '{}', not a fio version", path_, rc, out));
  return out;
}

void Fio::run(const std::string& job_path, const std::string& json_path, const std::string& log_path,
              double timeout_s) const {
  bool to = false;
  int rc = run_to_log({path_, "--output-format=json", "--output=" + json_path, job_path}, log_path, timeout_s, &to);
  if (to) throw FioError(fmt::format("{} did not finish within {:.0f} s on {}", path_, timeout_s, job_path));
  if (rc != 0) {
    std::string tail = read_tail(log_path, 600);
    for (char& c : tail)
      if (c == '\n') c = ' ';
    throw FioError(fmt::format("{} exited {} on {}: {}", path_, rc, job_path, tail));
  }
}

void write_new_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
  ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(text.size())) throw std::runtime_error(fmt::format("{}: short write", path));
}

std::string read_tail(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_bytes) s = s.substr(s.size() - max_bytes);
  return s;
}

}  // namespace rigcheck::io
