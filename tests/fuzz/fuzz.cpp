#include "fuzz.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

namespace fs = std::filesystem;

namespace rigcheck::fuzz {

namespace {
std::map<std::string, TargetFn>& targets() {
  static std::map<std::string, TargetFn> t;
  return t;
}

std::string make_scratch() {
  // tmpfs first: libFuzzer runs thousands of inputs a second through this folder.
  std::string base = "/dev/shm";
  struct stat sb;
  if (::stat(base.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode) || ::access(base.c_str(), W_OK) != 0) {
    const char* t = std::getenv("TMPDIR");
    base = t && *t ? t : "/tmp";
  }
  const std::string dir = base + "/rigcheck-fuzz-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "fuzz: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    std::abort();
  }
  return dir;
}

void remove_scratch() {
  std::error_code ec;
  fs::remove_all(scratch_dir(), ec);
}
}  // namespace

bool register_target(const char* name, TargetFn fn) {
  targets()[name] = fn;
  return true;
}

TargetFn find_target(const std::string& name) {
  auto it = targets().find(name);
  return it == targets().end() ? nullptr : it->second;
}

const std::string& scratch_dir() {
  // Never destroyed: remove_scratch runs at exit, after the static destructors.
  static const std::string* dir = [] {
    auto* d = new std::string(make_scratch());
    std::atexit(remove_scratch);
    return d;
  }();
  return *dir;
}

std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  f.close();
  check(static_cast<bool>(f), "cannot write " + path);
  return path;
}

std::string write_input(const std::string& text, const std::string& name) {
  return write_input(reinterpret_cast<const uint8_t*>(text.data()), text.size(), name);
}

std::string make_dir(const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::error_code ec;
  fs::create_directories(path, ec);
  check(!ec, "cannot create " + path);
  return path;
}

void clear_dir(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);
}

void check(bool cond, const std::string& what) {
  if (cond) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace rigcheck::fuzz
