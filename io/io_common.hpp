// What the two io binaries (io_fio, io_dataloader) share besides scratch/device/fio: their
// own main() cannot use the Google Benchmark harness (fio times itself in another process; the
// pipeline's figures are waits inside a loop), but they take the same common options and write
// the same result CSV (rigcheck::ResultWriter, one row per repetition).
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/harness/schema.hpp"

namespace rigcheck::io {

struct RowSink {
  std::string run_id;
  ResultWriter* writer = nullptr;
  int failed = 0;
  void row(const std::string& bench, const std::string& case_name, const std::string& params,
           const std::string& metric, double value, const std::string& unit, int rep, Status st,
           const std::string& note) {
    ResultRow r;
    r.run_id = run_id;
    r.benchmark = bench;
    r.case_name = case_name;
    r.params = params;
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.repetition = rep;
    r.status = st;
    r.note = note;
    if (st == Status::failed) ++failed;
    writer->write(r);
  }
};

// Program name without its directory.
std::string prog_name(const char* argv0);
// "<out>/<stem>.csv" after the never-overwrite check; returns an empty string (message
// printed) when it exists.
std::string result_path(const CommonOptions& o, const std::string& prog);
// Current 1-minute load average (the report of a peer ratio states the load seen).
double load_average_1m();

}  // namespace rigcheck::io

namespace rigcheck::io {
// A free-text parameter value made safe for the params column: no ';' (the separator) and no
// ',' (so that line tools reading the CSV need no quoting).
inline std::string param_text(std::string s) {
  for (char& c : s)
    if (c == ';' || c == ',') c = ' ';
  return s;
}
}  // namespace rigcheck::io

namespace rigcheck::io {
// key=value;key=value, as the harness writes params (format_params lives in the Google
// Benchmark harness library, which these binaries do not link).
inline std::string format_kv(const Params& p) {
  std::string s;
  for (auto& [k, v] : p) s += (s.empty() ? "" : ";") + k + "=" + v;
  return s;
}
}  // namespace rigcheck::io
