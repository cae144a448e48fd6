// A whole run folder, as `rigcheck report RUN` and `rigcheck compare BASE RUN` read it: the input
// is a folder of files, written as sections
//     === inventory.csv
//     key,value
//     ...
//     === cpu_gemm.csv
//     schema_version,run_id,...
// (file names of letters, digits, '_', '-', '.'; other sections are dropped). Then recover_and_report
// (read_run, every claim's evaluator, report.md, verdicts.csv, report.html with the plots'
// scripts; gnuplot kept out of reach so no child process starts) and run_compare against a
// fixture run (load_run, confounders, the row comparison, cross-run claims, compare.md/.csv/.html).
// Both may refuse the folder only with InputError naming a file in it.
// A folder left by a killed runner (manifest rows running or pending, a .partial, a .runner.lock
// nobody holds, concurrent_runs.csv: corpus/run/killed_runner.txt) is first finished by
// recover_dead_run before make_report, which writes into the folder.
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "fuzz.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/run/runner.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

namespace {
bool good_name(std::string_view n) {
  if (n.empty() || n.size() > 64 || n == "." || n == "..") return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

// Splits the input at lines "=== NAME" into files of scratch_dir()/sub.
void write_sections(std::string_view text, const std::string& sub) {
  std::string name, body;
  auto flush = [&] {
    if (good_name(name)) write_input(body, sub + "/" + name);
    body.clear();
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, end - pos);
    if (line.substr(0, 4) == "=== ") {
      flush();
      name = std::string(line.substr(4));
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' ')) name.pop_back();
    } else {
      body += line;
    }
    pos = end;
  }
  flush();
}

void setup_once() {
  static const bool done = [] {
    // No gnuplot: the plots' scripts are still built from the run's rows, but no child process
    // is started per input (report.html then says that gnuplot is missing).
    ::unsetenv("RIGCHECK_GNUPLOT");
    ::setenv("PATH", "", 1);
    return true;
  }();
  (void)done;
}
}  // namespace

RIGCHECK_FUZZ_TARGET(run) {
  setup_once();
  const std::string dir = scratch_dir() + "/run", out = scratch_dir() + "/compare-out";
  clear_dir(scratch_dir());
  make_dir("run");
  write_sections(std::string_view(reinterpret_cast<const char*>(data), size), "run");

  ReportOptions ro;
  ro.quiet = true;
  refused_with_input_error(dir, [&] { recover_and_report(dir, ro); });

  CompareOptions co;
  co.out_dir = out;
  refused_with_input_error(dir, [&] {
    run_compare({std::string(RIGCHECK_FUZZ_FIXTURES) + "/runs/compare_a", dir}, co);
  });
  return 0;
}
