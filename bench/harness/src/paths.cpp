#include "rigcheck/harness/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace rigcheck {

namespace {
bool is_dir(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}
}  // namespace

std::string executable_dir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

std::string data_dir() {
  if (const char* e = std::getenv("RIGCHECK_DATA_DIR"); e && *e) {
    if (!is_dir(e)) throw std::runtime_error(std::string("RIGCHECK_DATA_DIR=") + e + " is not a directory");
    return e;
  }
  const std::string beside = executable_dir() + "/../share/rigcheck/data";
  if (is_dir(beside)) return beside;
  throw std::runtime_error("the suite's data folder is not at " + beside +
                           " (beside this executable, as an install or the build tree has it); set RIGCHECK_DATA_DIR");
}

std::string data_path(const std::string& name) { return data_dir() + "/" + name; }

}  // namespace rigcheck
