// Two processes of one benchmark binary taking turns: alternate.hpp says how and why.
#include "alternate.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/scratch_registry.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/session.hpp"

namespace rigcheck {

Turns::Turns(int read_fd, int write_fd, bool goes_first) : rfd_(read_fd), wfd_(write_fd), goes_first_(goes_first) {
  ::signal(SIGPIPE, SIG_IGN);  // a side that ended: EPIPE, not death
}

Turns::~Turns() { close_ends(); }

void Turns::close_ends() {
  if (rfd_ >= 0) ::close(rfd_);
  if (wfd_ >= 0) ::close(wfd_);
  rfd_ = wfd_ = -1;
  alive_ = false;
}

bool Turns::before_round() {
  const bool first = first_;
  first_ = false;
  if (first && goes_first_) return false;
  if (!alive_) return false;
  const char token = 't';
  if (!first) {
    ssize_t w;
    do w = ::write(wfd_, &token, 1);
    while (w < 0 && errno == EINTR);
    if (w != 1) {  // the other side ended
      alive_ = false;
      return false;
    }
  }
  char got;
  ssize_t r;
  do r = ::read(rfd_, &got, 1);
  while (r < 0 && errno == EINTR);
  if (r != 1) alive_ = false;  // EOF: the other side ended; go on alone
  return r == 1;
}

TurnsSpec parse_turns_spec(const std::string& s) {
  TurnsSpec t;
  const size_t a = s.find(','), b = a == std::string::npos ? a : s.find(',', a + 1);
  if (b == std::string::npos) throw std::invalid_argument("--turns " + s + ": expected R,W,KEY");
  try {
    t.read_fd = std::stoi(s.substr(0, a));
    t.write_fd = std::stoi(s.substr(a + 1, b - a - 1));
  } catch (const std::exception&) {
    throw std::invalid_argument("--turns " + s + ": expected two file descriptors and a key");
  }
  t.key = s.substr(b + 1);
  if (t.read_fd < 0 || t.write_fd < 0 || t.key.empty())
    throw std::invalid_argument("--turns " + s + ": expected R,W,KEY");
  return t;
}

void check_assignment(const std::string& s) {
  const size_t eq = s.find('=');
  bool ok = eq != std::string::npos && eq > 0;
  for (size_t i = 0; ok && i < eq; ++i) ok = std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_';
  if (!ok) throw std::invalid_argument("--alternate-env '" + s + "': expected VAR=VALUE");
}

namespace {
// This process's arguments for the second side: without the options it gets its own values of.
std::vector<std::string> peer_args(int argc, char** argv) {
  static const char* dropped[] = {"--alternate-env", "--out", "--stem", "--reps-target", "--turns"};
  std::vector<std::string> out{argv[0]};  // started as /proc/self/exe, named as this one
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    bool drop = false;
    for (const char* d : dropped) {
      const std::string o = d;
      if (a == o) {
        drop = true;
        ++i;  // and its value
      } else if (a.rfind(o + "=", 0) == 0) {
        drop = true;
      }
      if (drop) break;
    }
    if (!drop) out.push_back(a);
  }
  return out;
}
}  // namespace

AlternateSide::AlternateSide(const std::string& assignment, int argc, char** argv, Session& session,
                             const std::vector<int>& cpus)
    : session_(session), assignment_(assignment), prog_(session.prog()) {
  check_assignment(assignment);
  key_ = assignment.substr(0, assignment.find('='));
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/rigcheck-alternate-XXXXXX";
  if (!::mkdtemp(templ.data())) throw std::runtime_error(fmt::format("mkdtemp {}: {}", templ, std::strerror(errno)));
  scratch_ = templ;
  register_scratch_path(scratch_);
  int to_peer[2], from_peer[2];
  if (::pipe2(to_peer, O_CLOEXEC) != 0 || ::pipe2(from_peer, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<std::string> args = peer_args(argc, argv);
  for (std::string s :
       {std::string("--out"), scratch_, std::string("--stem"), std::string("peer"), std::string("--reps-target"),
        std::string("0"), std::string("--turns"), fmt::format("{},{},{}", to_peer[0], from_peer[1], key_)})
    args.push_back(s);
  // This binary again, through the exec prefix under an emulator (emulation.hpp).
  ExecCommand self = self_exec_command(std::move(args));
  std::vector<char*> cargs;
  for (std::string& s : self.argv) cargs.push_back(s.data());
  cargs.push_back(nullptr);
  // The environment with VAR=VALUE, made before fork (nothing after it may allocate).
  std::vector<char*> env;
  const std::string prefix = key_ + "=";
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) env.push_back(*e);
  env.push_back(assignment_.data());
  env.push_back(nullptr);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &mask);
  std::fflush(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!cpus.empty()) ::sched_setaffinity(0, sizeof(mask), &mask);  // the process's CPUs, not this thread's one
    ::fcntl(to_peer[0], F_SETFD, 0);                                 // these two ends stay open across exec
    ::fcntl(from_peer[1], F_SETFD, 0);
    ::execve(self.file.c_str(), cargs.data(), env.data());
    ::_exit(127);  // finish() says the second side exited 127
  }
  ::close(to_peer[0]);
  ::close(from_peer[1]);
  turns_ = std::make_unique<Turns>(from_peer[0], to_peer[1], false);
  std::fprintf(stderr, "%s: taking turns with a second process (pid %d) with %s, repetition by repetition\n",
               prog_.c_str(), static_cast<int>(pid_), assignment_.c_str());
}

AlternateSide::~AlternateSide() {
  if (pid_ > 0) {  // an exception left finish() out: do not leave the second side running
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
}

void AlternateSide::before_round() {
  turns_->before_round();
  if (!turns_->peer_alive()) reap();
  relay();
}

void AlternateSide::reap() {
  if (pid_ <= 0) return;
  while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

// The second side's rows not yet copied: it is waiting for the turn (or has ended), so it writes
// nothing while they are read.
void AlternateSide::relay() {
  std::string path = scratch_ + "/peer.csv.partial";
  struct stat sb;
  if (::stat(path.c_str(), &sb) != 0) path = scratch_ + "/peer.csv";
  if (::stat(path.c_str(), &sb) != 0) return;
  std::vector<ResultRow> rows = read_results(path);
  for (size_t i = relayed_; i < rows.size(); ++i) {
    ResultRow r = rows[i];
    r.run_id.clear();  // this run's id
    session_.row(std::move(r));
  }
  relayed_ = std::max(relayed_, rows.size());
}

void AlternateSide::finish() {
  turns_->close_ends();
  reap();
  relay();
  std::string why;
  if (WIFSIGNALED(status_))
    why = fmt::format("the second side ({}) died of signal {} ({})", assignment_, WTERMSIG(status_),
                      strsignal(WTERMSIG(status_)));
  else if (WIFEXITED(status_) && WEXITSTATUS(status_) != 0 && WEXITSTATUS(status_) != kExitSkipped)
    why = fmt::format("the second side ({}) exited {}", assignment_, WEXITSTATUS(status_));
  if (!why.empty()) session_.case_failed(prog_, "second side", why, "--alternate-env " + assignment_);
}

}  // namespace rigcheck
