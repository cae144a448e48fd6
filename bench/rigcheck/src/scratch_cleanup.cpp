// What the runner removes of a benchmark's registered scratch entries (harness/scratch_registry.hpp)
// once the benchmark has ended, and the rules that keep it from removing anything else:
// an entry is removed only when its path is absolute and plain (no ".", ".." or empty component),
// its name starts with "rigcheck-" (every top-level scratch entry the suite creates does:
// rigcheck-io.XXXXXX, rigcheck-fio.<pid>.dat, rigcheck-fio.<pid>.d, rigcheck-samples.<pid>,
// rigcheck-dl.<pid>.d), it lies directly in one of the scratch roots of that benchmark (its
// --scratch DIR, else $TMPDIR or /var/tmp), it is a regular file or a directory (never a
// symbolic link) owned by this user; a directory is removed with what is inside it, without
// following symbolic links or crossing into another file system. Entries inside such a directory
// are registered too and go with it.
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/run/runner.hpp"

namespace rigcheck {

namespace {
bool plain_absolute(const std::string& p) {
  if (p.size() < 2 || p[0] != '/' || p.back() == '/') return false;
  size_t start = 1;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    const std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string real(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

int remove_one(const char* path, const struct stat*, int type, struct FTW*) {
  // Depth first: a directory's entries are gone when it comes. Symbolic links are unlinked, never followed.
  if (type == FTW_DP) return ::rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
  return ::unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}
}  // namespace

std::vector<std::string> scratch_roots_of(const std::vector<std::string>& argv) {
  std::vector<std::string> roots;
  for (size_t i = 0; i + 1 < argv.size(); ++i)
    if (argv[i] == "--scratch") roots.push_back(argv[i + 1]);
  if (roots.empty()) {
    const char* t = std::getenv("TMPDIR");
    roots.push_back(t && *t ? t : "/var/tmp");  // io/scratch.cpp's default, rigcheck-io.XXXXXX under it
  }
  return roots;
}

ScratchCleanup remove_registered_scratch(const std::string& registry_file, const std::vector<std::string>& roots,
                                         bool remove) {
  ScratchCleanup out;
  std::ifstream in(registry_file);
  if (!in) return out;
  std::vector<std::string> real_roots;
  for (const std::string& r : roots)
    if (std::string rr = real(r); !rr.empty()) real_roots.push_back(rr);
  std::vector<std::string> seen;
  for (std::string p; std::getline(in, p);) {
    if (p.empty() || std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    if (!plain_absolute(p)) {
      out.kept.push_back(p + ": not a plain absolute path");
      continue;
    }
    const size_t slash = p.rfind('/');
    const std::string name = p.substr(slash + 1), parent = slash == 0 ? "/" : p.substr(0, slash);
    if (name.rfind("rigcheck-", 0) != 0) continue;  // inside a registered folder, or not the suite's name
    struct stat sb;
    if (::lstat(p.c_str(), &sb) != 0) continue;  // already removed (by the benchmark itself)
    if (std::find(real_roots.begin(), real_roots.end(), real(parent)) == real_roots.end()) {
      out.kept.push_back(p + ": not directly in a scratch root of this benchmark");
      continue;
    }
    if (S_ISLNK(sb.st_mode) || !(S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))) {
      out.kept.push_back(p + ": not a regular file or a directory");
      continue;
    }
    if (sb.st_uid != ::geteuid()) {
      out.kept.push_back(p + ": owned by another user");
      continue;
    }
    if (!remove) {
      out.kept.push_back(p + ": left in place");
      continue;
    }
    const int rc =
        S_ISDIR(sb.st_mode) ? ::nftw(p.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) : ::unlink(p.c_str());
    if (rc == 0)
      out.removed.push_back(p);
    else
      out.kept.push_back(fmt::format("{}: cannot remove: {}", p, std::strerror(errno)));
  }
  return out;
}

}  // namespace rigcheck
