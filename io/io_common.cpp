#include "io_common.hpp"

#include <fstream>

namespace rigcheck::io {

double load_average_1m() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

}  // namespace rigcheck::io
