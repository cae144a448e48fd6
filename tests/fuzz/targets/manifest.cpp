// manifest.csv of a run folder (each benchmark's command, exit code, status, duration, reason):
// read_manifest, then the runner's writer (format_manifest) and the reader again.
#include <cmath>

#include "fuzz.hpp"
#include "rigcheck/tool/report.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(manifest) {
  const std::string path = write_input(data, size, "manifest.csv");
  std::vector<ManifestRow> rows;
  if (refused_with_input_error(path, [&] { rows = read_manifest(path); })) return 0;
  for (const ManifestRow& r : rows) check(std::isfinite(r.duration_s), "accepted a duration that is not finite");
  const std::string again = write_input(format_manifest(rows), "manifest-again.csv");
  std::vector<ManifestRow> back;
  try {
    back = read_manifest(again);
  } catch (const InputError& e) {
    check(false, std::string("format_manifest's copy of an accepted manifest is refused: ") + e.what());
  }
  check(back.size() == rows.size(), "format_manifest's copy has another number of rows");
  for (size_t i = 0; i < rows.size(); ++i)
    check(back[i].benchmark == rows[i].benchmark && back[i].area == rows[i].area && back[i].command == rows[i].command &&
              back[i].exit_code == rows[i].exit_code && back[i].status == rows[i].status &&
              back[i].output == rows[i].output && back[i].reason == rows[i].reason,
          "manifest row " + std::to_string(i) + " reads back differently after format_manifest");
  return 0;
}
