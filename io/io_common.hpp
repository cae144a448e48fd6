// What the two io binaries (io_fio, io_dataloader) share besides scratch/device/fio. Their own
// main() cannot use the Google Benchmark harness (fio times itself in another process; the
// pipeline's figures are waits inside a loop); options, filter, results and exit codes come from
// the harness's Session like every binary's.
#pragma once
#include <string>

namespace rigcheck::io {

// Current 1-minute load average (the report of a peer ratio states the load seen).
double load_average_1m();

// A free-text parameter value made safe for the params column: no ';' (the separator) and no
// ',' (so that line tools reading the CSV need no quoting).
inline std::string param_text(std::string s) {
  for (char& c : s)
    if (c == ';' || c == ',') c = ' ';
  return s;
}

}  // namespace rigcheck::io
