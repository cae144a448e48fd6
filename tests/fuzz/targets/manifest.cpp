// manifest.csv of a run folder (each benchmark's command, exit code, status, duration, reason, and
// in newer manifests the output file's rows and SHA-256; older manifests have neither column):
// read_manifest, then the runner's writer (format_manifest) and the reader again.
#include <cmath>

#include "fuzz.hpp"
#include "rigcheck/report/report.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(manifest) {
  std::vector<ManifestRow> rows;
  if (!accepted(data, size, "manifest.csv", rows, [](const std::string& p) { return read_manifest(p); })) return 0;
  for (const ManifestRow& r : rows) {
    check(std::isfinite(r.duration_s), "accepted a duration that is not finite");
    // The checksums: both or neither, a count, 64 lowercase hex digits, an output file.
    check((r.rows >= 0) == !r.sha256.empty(), "accepted rows without sha256 or sha256 without rows");
    check(r.sha256.empty() || (r.sha256.size() == 64 && !r.output.empty()), "accepted a malformed checksum");
  }
  const std::vector<ManifestRow> back = read_back(format_manifest(rows), "manifest-again.csv", "format_manifest",
                                                  [](const std::string& p) { return read_manifest(p); });
  check(back.size() == rows.size(), "format_manifest's copy has another number of rows");
  for (size_t i = 0; i < rows.size(); ++i)
    check(back[i].benchmark == rows[i].benchmark && back[i].area == rows[i].area &&
              back[i].command == rows[i].command && back[i].exit_code == rows[i].exit_code &&
              back[i].status == rows[i].status && back[i].output == rows[i].output &&
              back[i].reason == rows[i].reason && back[i].rows == rows[i].rows && back[i].sha256 == rows[i].sha256,
          "manifest row " + std::to_string(i) + " reads back differently after format_manifest");
  return 0;
}
