// Whether a run folder's result files are whole: the manifest records, for the output file of
// every benchmark that ended, its data rows and its SHA-256 (runner.cpp writes them once the
// benchmark has ended; recover_dead_run for a salvaged one). verify_run_folder checks every
// result file against them; read_run (report.hpp) calls it, so report, compare and history all
// refuse, or with --exclude-broken leave out with the reason, a file that was cut, edited after
// the run, deleted, or added to the folder. Folders written before checksums are
// "not verifiable", never refused for that. The checksums catch damage and casual edits, not a
// forger who rewrites the manifest too (docs/threat-model.md).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace rigcheck {

// Where a run's files are: the folder `dir` on disk, or, `in_memory`, their bytes in `files` by name:
// a run read from the results store (bench/store), `dir` then standing for its folder (errors name
// dir/FILE; compare labels a run by dir's last part). verify_run_folder and read_run check and parse
// the one as the other, by the same code.
struct RunFiles {
  std::string dir;
  bool in_memory = false;
  std::map<std::string, std::string> files;   // in memory: name in the folder (logs/x.log below it) -> bytes
  std::map<std::string, std::string> sha256;  // in memory: a file's SHA-256, where already computed from its bytes

  std::string path(const std::string& name) const { return dir + "/" + name; }
  bool has(const std::string& name) const;                 // on disk: the path exists
  const std::string* text(const std::string& name) const;  // in memory: its bytes; null on disk, or when absent
};

// A result file as the manifest records it, computed from the file.
struct FileDigest {
  bool exists = false;             // false: missing or unreadable (then nothing else is set)
  long long size = 0;              // bytes
  long rows = 0;                   // data rows: whole lines after the header line
  bool ends_with_newline = false;  // a finished CSV does; a cut one does not
  std::string sha256;              // of the whole file, 64 lowercase hex digits
};
FileDigest digest_file(const std::string& path);
// The same of bytes in memory; `sha256`, when given, is theirs, computed already (RunFiles::sha256).
FileDigest digest_bytes(const std::string& bytes, const std::string& sha256 = "");

enum class FileState {
  verified,        // rows and SHA-256 as the manifest recorded them
  not_verifiable,  // no checksum to check against (a folder written before checksums, no manifest)
  broken,          // cut, edited, missing, or not written by this run: refused unless excluded
};
const char* to_string(FileState s);

struct FileIntegrity {
  std::string file;  // its name in the run folder, e.g. cpu_gemm.csv
  FileState state = FileState::not_verifiable;
  std::string why;  // what differs, or why it cannot be verified, in words; empty when verified
};

struct IntegrityReport {
  std::string dir;
  std::vector<FileIntegrity> files;  // every result file the folder holds or its manifest names, by name
  bool ok() const;                   // no file is broken
  size_t count(FileState s) const;
  // One sentence for the report: how many files were verified, which are not verifiable and why,
  // which are broken.
  std::string summary() const;
};

// The result CSVs of a run folder: every *.csv but the folder's own (inventory, manifest,
// verdicts, concurrent_runs), sorted by name.
std::vector<std::string> result_file_names(const std::string& dir);
std::vector<std::string> result_file_names(const RunFiles& run);

// Checks every result file of the run folder against its manifest. Reads and hashes the files;
// changes nothing. Throws InputError only when manifest.csv itself cannot be read (file, line,
// reason). A benchmark still running or pending has no file to check yet.
IntegrityReport verify_run_folder(const std::string& dir);
IntegrityReport verify_run_folder(const RunFiles& run);

}  // namespace rigcheck
