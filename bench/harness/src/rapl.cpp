#include "rigcheck/harness/rapl.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace rigcheck {

double parse_rapl_uj(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(fmt::format("not a RAPL energy counter (microjoules): '{}'", text));
  // The kernel's counter is a u64: 20 digits at most. Without this limit, 309 digits made std::stod
  // throw std::out_of_range, not the documented invalid_argument (tests/fuzz, kernel_text).
  if (t.size() > 20)
    throw std::invalid_argument(fmt::format("not a RAPL energy counter (more than 20 digits): '{}'", text));
  return std::stod(t) * 1e-6;
}

double rapl_delta_j(double before_j, double after_j, double range_j) {
  return after_j >= before_j ? after_j - before_j : after_j + range_j - before_j;
}

namespace {
std::string slurp(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  ok = ok && !in.bad();
  return ss.str();
}

// The counter of a file in joules, -1 when unreadable or malformed.
double read_j(const std::string& path) {
  bool ok = false;
  const std::string t = slurp(path, ok);
  if (!ok) return -1;
  try {
    return parse_rapl_uj(t);
  } catch (const std::exception&) {
    return -1;
  }
}
}  // namespace

std::vector<std::string> rapl_package_files(std::string* why) {
  std::vector<std::string> files;
  const std::string root = "/sys/class/powercap";
  DIR* d = opendir(root.c_str());
  if (!d) {
    if (why) *why = root + " is absent (no powercap/RAPL driver)";
    return files;
  }
  std::string denied;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    // Top-level zones only ("intel-rapl:0", also used for AMD packages), not "intel-rapl:0:0".
    if (n.rfind("intel-rapl:", 0) != 0 || std::count(n.begin(), n.end(), ':') != 1) continue;
    bool ok = false;
    std::string name = slurp(root + "/" + n + "/name", ok);
    if (!ok || name.rfind("package", 0) != 0) continue;
    std::string f = root + "/" + n + "/energy_uj";
    slurp(f, ok);
    if (ok)
      files.push_back(f);
    else
      denied = f;
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty() && why) *why = denied.empty() ? "no RAPL package zone under " + root : denied + " is not readable";
  return files;
}

RaplCounters::RaplCounters() : files_(rapl_package_files()) {
  for (const std::string& f : files_) {
    const double r = read_j(f.substr(0, f.rfind('/')) + "/max_energy_range_uj");
    ranges_.push_back(r > 0 ? r : 0);
  }
  last_.assign(files_.size(), -1);
  total_.assign(files_.size(), 0);
}

double RaplCounters::total_j() {
  if (files_.empty()) return -1;
  double sum = 0;
  bool all = true;
  for (size_t i = 0; i < files_.size(); ++i) {
    const double j = read_j(files_[i]);
    if (j < 0) {
      all = false;
      continue;
    }
    if (last_[i] >= 0) total_[i] += rapl_delta_j(last_[i], j, ranges_[i]);
    last_[i] = j;
    sum += total_[i];
  }
  return all ? sum : -1;
}

}  // namespace rigcheck
