#include "io_common.hpp"

#include <sys/stat.h>

#include <fstream>

#include <fmt/format.h>

namespace rigcheck::io {

std::string prog_name(const char* argv0) {
  std::string p = argv0;
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::string result_path(const CommonOptions& o, const std::string& prog) {
  const std::string out = o.out_dir + "/" + o.stem + ".csv";
  struct stat sb;
  if (::stat(out.c_str(), &sb) == 0) {
    std::fprintf(stderr, "%s: %s exists; results are never overwritten (choose another --out or --stem)\n",
                 prog.c_str(), out.c_str());
    return "";
  }
  return out;
}

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

}  // namespace rigcheck::io
