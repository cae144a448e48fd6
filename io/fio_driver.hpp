// Driving Debian's real fio: a job file written by us, `fio --output-format=json --output=FILE
// JOBFILE` as a child process, the JSON file read with nlohmann-json.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rigcheck::io {

// fio missing, failing or printing something that is not its JSON: the message says which.
struct FioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FioJob {
  std::string name;  // job name (the case)
  std::string rw;    // read, randread, write, randwrite
  int64_t bs = 4096;
  int iodepth = 1;
  int numjobs = 1;
  std::string ioengine = "psync";
  std::string filename;  // one file, or
  std::string opendir;   // every file of a directory
  int64_t size = 0;      // bytes of filename (0: the files' own sizes)
  double runtime_s = 1, ramp_s = 0;
  bool direct = true;
  std::vector<std::string> extra;  // more "key=value" lines
};
std::string job_file_text(const FioJob& j);

struct FioResult {
  std::string jobname;
  double bw_bytes = 0;  // bytes/s (fio's bw_bytes)
  double iops = 0;
  double io_bytes = 0;
  double runtime_ms = 0;
  double clat_p50_ns = 0, clat_p99_ns = 0, clat_p999_ns = 0, clat_mean_ns = 0;
  int error = 0;
  int jobs = 0;             // entries in "jobs" (1 with group_reporting)
  std::string fio_version;  // "fio-3.33" from the JSON
};
// Parses fio's JSON output file; direction "read" or "write". Throws FioError naming the file.
FioResult parse_fio_json(const std::string& path, const std::string& direction);

class Fio {
 public:
  // binary: a name looked up in PATH, or a path. Throws FioError("... not found ...") when absent.
  explicit Fio(const std::string& binary);
  const std::string& path() const { return path_; }
  // `fio --version`, e.g. "fio-3.33"; throws FioError.
  std::string version() const;
  // Runs fio on a job file, JSON to json_path, fio's own stdout/stderr to log_path; throws
  // FioError on a non-zero exit (with the log's last lines) or after timeout_s.
  void run(const std::string& job_path, const std::string& json_path, const std::string& log_path,
           double timeout_s) const;

 private:
  std::string path_;
};

// Writes text to a new file (O_EXCL); throws std::runtime_error.
void write_new_file(const std::string& path, const std::string& text);
std::string read_tail(const std::string& path, size_t max_bytes = 2000);

}  // namespace rigcheck::io
