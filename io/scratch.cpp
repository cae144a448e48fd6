#include "scratch.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/scratch_registry.hpp"

namespace rigcheck::io {

// ------------------------------------------------------------------ cleanup registry
// Paths live in a fixed table of C strings so that the signal handler can walk it without
// allocating. An entry is published (count incremented) before the file is created.
namespace {
constexpr int kMaxEntries = 1 << 16;
const char* g_entries[kMaxEntries];
std::atomic<bool> g_is_dir[kMaxEntries];
std::atomic<int> g_count{0};
std::atomic<pid_t> g_child{0};

int register_entry(const std::string& path, bool is_dir) {
  int i = g_count.load();
  if (i >= kMaxEntries) throw std::runtime_error("too many scratch files");
  g_entries[i] = strdup(path.c_str());
  g_is_dir[i] = is_dir;
  g_count.store(i + 1);
  // Also for the runner, which removes what is left if this process is killed outright (SIGKILL:
  // no handler runs). Registered before it is created, like the table above.
  register_scratch_path(path);
  return i;
}

// Async-signal-safe: unlink/rmdir only.
void remove_entries() {
  for (int i = g_count.load() - 1; i >= 0; --i) {
    const char* p = g_entries[i];
    if (!p) continue;
    if (g_is_dir[i])
      ::rmdir(p);
    else
      ::unlink(p);
    g_entries[i] = nullptr;  // leaked on purpose: free() is not async-signal-safe
  }
}

void on_signal(int sig) {
  pid_t c = g_child.load();
  if (c > 0) {
    ::kill(-c, SIGKILL);  // fio and its job processes: their own process group (fio.cpp)
    int st;
    ::waitpid(c, &st, 0);
  }
  remove_entries();
  const char msg[] = "rigcheck io: interrupted; scratch files removed\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool has_dotdot(const std::string& p) {
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (p.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

std::string kind_of(mode_t m) {
  if (S_ISBLK(m)) return "a block device";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISDIR(m)) return "a directory";
  return "a file";
}

std::string real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return "";
  return buf;
}

bool inside(const std::string& root, const std::string& p) {
  return p.size() > root.size() && p.compare(0, root.size(), root) == 0 && (root == "/" || p[root.size()] == '/');
}

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

Refusal::Refusal(const std::string& path, const std::string& reason)
    : std::runtime_error(fmt::format("refused: {}: {}; nothing was written", path, reason)),
      path_(path),
      reason_(reason) {}

void check_name_syntax(const std::string& name) {
  if (name.empty()) throw Refusal("(empty)", "an empty path");
  if (has_dotdot(name))
    throw Refusal(name, "the path has a '..' component; name a path inside the scratch directory without '..'");
}

Scratch::Scratch(const std::string& dir) {
  if (dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    std::string base = t && *t ? t : "/var/tmp";
    std::string tmpl = base + "/rigcheck-io.XXXXXX";
    std::vector<char> b(tmpl.begin(), tmpl.end());
    b.push_back('\0');
    if (!::mkdtemp(b.data()))
      throw Refusal(tmpl, fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    root_ = real_path(b.data());
    created_root_ = true;
    register_entry(root_, true);
    return;
  }
  check_name_syntax(dir);
  struct stat sb;
  if (::lstat(dir.c_str(), &sb) != 0)
    throw Refusal(dir, fmt::format("the scratch directory does not exist ({}); create it first", std::strerror(errno)));
  if (!S_ISDIR(sb.st_mode))
    throw Refusal(dir, fmt::format("is {}, not a directory: rigcheck writes only files it creates itself inside a "
                                   "scratch directory",
                                   kind_of(sb.st_mode)));
  root_ = real_path(dir);
  if (root_.empty()) throw Refusal(dir, fmt::format("cannot resolve: {}", std::strerror(errno)));
  if (::access(root_.c_str(), W_OK) != 0) throw Refusal(dir, "the scratch directory is not writable");
}

Scratch::~Scratch() { remove_all(); }

std::string Scratch::check_new_path(const std::string& name) const {
  check_name_syntax(name);
  std::string p = name[0] == '/' ? name : root_ + "/" + name;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  struct stat sb;
  if (::lstat(p.c_str(), &sb) == 0) {
    if (S_ISBLK(sb.st_mode) || S_ISCHR(sb.st_mode))
      throw Refusal(
          p, fmt::format("is {}: rigcheck never writes to devices, only to files it creates", kind_of(sb.st_mode)));
    if (S_ISLNK(sb.st_mode)) {
      std::string target = real_path(p);
      throw Refusal(
          p, fmt::format("is a symbolic link{}: rigcheck only creates new files",
                         target.empty()
                             ? ""
                             : " to " + target + (inside(root_, target) ? "" : ", outside the scratch directory")));
    }
    throw Refusal(p, fmt::format("already exists ({}): rigcheck only creates new files and never overwrites one",
                                 kind_of(sb.st_mode)));
  }
  size_t slash = p.rfind('/');
  std::string parent = slash == 0 ? "/" : p.substr(0, slash);
  std::string rparent = real_path(parent);
  if (rparent.empty()) throw Refusal(p, fmt::format("its directory {} does not exist", parent));
  if (rparent != root_ && !inside(root_, rparent))
    throw Refusal(p, fmt::format("resolves to {}, outside the scratch directory {}", rparent + p.substr(slash), root_));
  return rparent + p.substr(slash);
}

void Scratch::check_free_space(int64_t bytes, const std::string& what) const {
  struct statvfs vs;
  if (::statvfs(root_.c_str(), &vs) != 0) throw Refusal(root_, fmt::format("statvfs failed: {}", std::strerror(errno)));
  const double avail = static_cast<double>(vs.f_bavail) * static_cast<double>(vs.f_frsize);
  const double total = static_cast<double>(vs.f_blocks) * static_cast<double>(vs.f_frsize);
  const double margin = std::max(64.0 * 1048576, 0.05 * total);
  if (static_cast<double>(bytes) + margin > avail)
    throw Refusal(what, fmt::format("needs {:.1f} MiB plus a margin of {:.0f} MiB, but the file system of {} has "
                                    "{:.1f} MiB free; choose a smaller size or another --scratch",
                                    bytes / 1048576.0, margin / 1048576.0, root_, avail / 1048576.0));
}

std::string Scratch::create_file(const std::string& name, int64_t bytes, uint64_t seed, uint64_t* checksum, bool sync) {
  std::string p = check_new_path(name);
  check_free_space(bytes, p);
  int idx = register_entry(p, false);
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    g_entries[idx] = nullptr;
    throw std::runtime_error(fmt::format("{}: cannot create: {}", p, std::strerror(errno)));
  }
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<uint64_t[]> buf(new uint64_t[kChunk / 8]);
  Checksum64 h;  // of the whole file, streamed (every chunk but the last is a multiple of 8 bytes)
  for (int64_t off = 0; off < bytes;) {
    size_t n = static_cast<size_t>(std::min<int64_t>(kChunk, bytes - off));
    fill_random(buf.get(), (n + 7) & ~size_t{7}, seed, static_cast<uint64_t>(off) / 8);
    h.update(buf.get(), n);
    for (size_t done = 0; done < n;) {
      ssize_t k = ::write(fd, reinterpret_cast<const char*>(buf.get()) + done, n - done);
      if (k < 0) {
        int e = errno;
        ::close(fd);
        throw std::runtime_error(fmt::format("{}: write failed: {}", p, std::strerror(e)));
      }
      done += static_cast<size_t>(k);
    }
    off += static_cast<int64_t>(n);
  }
  if (sync && ::fsync(fd) != 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: fsync failed: {}", p, std::strerror(e)));
  }
  if (sync) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // our own file only: out of the page cache
  ::close(fd);
  if (checksum) *checksum = h.digest();
  return p;
}

std::string Scratch::create_empty(const std::string& name) {
  std::string p = check_new_path(name);
  int idx = register_entry(p, false);
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    g_entries[idx] = nullptr;
    throw std::runtime_error(fmt::format("{}: cannot create: {}", p, std::strerror(errno)));
  }
  ::close(fd);
  return p;
}

std::string Scratch::create_dir(const std::string& name) {
  std::string p = check_new_path(name);
  int idx = register_entry(p, true);
  if (::mkdir(p.c_str(), 0700) != 0) {
    g_entries[idx] = nullptr;
    throw std::runtime_error(fmt::format("{}: cannot create: {}", p, std::strerror(errno)));
  }
  return p;
}

void Scratch::remove_all() {
  // Block the handled signals so that a handler does not walk the table at the same time.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  remove_entries();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void install_cleanup_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

void set_running_child(pid_t pid) { g_child.store(pid); }

void fill_random(void* buf, size_t len, uint64_t seed, uint64_t word_offset) {
  auto* w = static_cast<uint64_t*>(buf);
  const uint64_t s = splitmix(seed);
  for (size_t i = 0; i < len / 8; ++i) {
    uint64_t v = splitmix(s ^ (word_offset + i) * 0xd1342543de82ef95ULL);
    w[i] = v ? v : 0x5a5a5a5a5a5a5a5aULL;  // never a zero word
  }
}

void Checksum64::update(const void* buf, size_t len) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  if (ended_) throw std::logic_error("Checksum64::update after a call whose length was not a multiple of 8");
  const auto* p = static_cast<const unsigned char*>(buf);
  const size_t nw = len / 8;
  size_t i = 0;
  for (; i < nw && (words_ + i) % 8 != 0; ++i) {  // up to the next lane-0 word
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    uint64_t& l = lane_[(words_ + i) % 8];
    l = (l ^ w) * kPrime;
  }
  for (; i + 8 <= nw; i += 8)
    for (size_t j = 0; j < 8; ++j) {
      uint64_t w;
      std::memcpy(&w, p + 8 * (i + j), 8);
      lane_[j] = (lane_[j] ^ w) * kPrime;
    }
  for (; i < nw; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    uint64_t& l = lane_[(words_ + i) % 8];
    l = (l ^ w) * kPrime;
  }
  words_ += nw;
  for (size_t k = nw * 8; k < len; ++k) tail_ = (tail_ ^ p[k]) * kPrime;
  ended_ = len % 8 != 0;
}

uint64_t Checksum64::digest() const {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t h = tail_;
  for (uint64_t l : lane_) h = (h ^ l) * kPrime;
  return (h ^ words_) * kPrime;
}

uint64_t checksum64(const void* buf, size_t len) {
  Checksum64 c;
  c.update(buf, len);
  return c.digest();
}

}  // namespace rigcheck::io

namespace rigcheck::io {
void Scratch::sync_and_drop(const std::vector<std::string>& paths) const {
  int dfd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::syncfs(dfd);
    ::close(dfd);
  }
  for (const std::string& p : paths) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // our own files only
    ::close(fd);
  }
}
}  // namespace rigcheck::io
