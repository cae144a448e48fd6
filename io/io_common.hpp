// What the two io binaries (io_fio, io_dataloader) share besides scratch/device/fio. Their own
// main() cannot use the Google Benchmark harness (fio times itself in another process; the
// pipeline's figures are waits inside a loop); options, filter, results and exit codes come from
// the harness's Session like every binary's.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rigcheck/harness/session.hpp"
#include "scratch.hpp"

namespace rigcheck::io {

// Current 1-minute load average (the report of a peer ratio states the load seen).
double load_average_1m();

// The per-process open-file limit (RLIMIT_NOFILE), its soft limit raised to the hard limit (no
// privilege needed): fio runs its jobs as threads of one process (fio_driver.cpp), and every job
// opens every file of an opendir job, so 8 jobs over 4096 sample files need 32768 descriptors.
// Children (fio) inherit the raised limit. All 0 when getrlimit fails.
struct OpenFileLimit {
  int64_t before = 0;  // soft limit found
  int64_t soft = 0;    // soft limit now (the hard limit, unless raising it failed)
  int64_t hard = 0;
};
OpenFileLimit raise_open_file_limit();

// fio's `openfiles` (files each job keeps open) for `jobs` jobs (threads of one process) over
// `files` files under an open-file limit: every file when jobs x files + reserve fits, else as many
// as fit ((limit - reserve) / jobs); 0 when not even one per job fits. reserve: descriptors fio
// needs for itself (its output, log, libraries).
int64_t fio_open_files_per_job(int64_t files, int64_t jobs, int64_t limit, int64_t reserve = 64);

// A free-text parameter value made safe for the params column: no ';' (the separator) and no
// ',' (so that line tools reading the CSV need no quoting).
inline std::string param_text(std::string s) {
  for (char& c : s)
    if (c == ';' || c == ',') c = ' ';
  return s;
}

// Runs `measure` as the session's body. When it throws (a refusal, a fio that fails, or the
// results disk itself), `fail_rows(reason)` writes every case's failed row as far as rows can still
// be written, and the exception reaches Session::run, which reports it. The scratch area `measure`
// made is removed in any case. Returns Session::run's exit code.
int run_measure(Session& s, std::unique_ptr<Scratch>& scratch, const std::function<void()>& measure,
                const std::function<void(const std::string& reason)>& fail_rows);

}  // namespace rigcheck::io

namespace rigcheck::io {

// Whether the file at `path` (at least 4 KiB long) can be read with O_DIRECT: "" when a 4 KiB
// aligned read of it succeeds, else why not (the failing call and its error). tmpfs accepts O_DIRECT
// only from Linux 6.6 (Debian 12's 6.1 refuses it: EINVAL at open).
std::string o_direct_refused(const std::string& path);

// What io_fio does on a scratch directory whose files refuse O_DIRECT.
struct DirectIo {
  bool direct = true;  // fio's direct=1
  std::string skip;    // non-empty: every case is skipped, for this reason
  std::string note;    // non-empty when direct is false: said in every row's note
};
// `refused`: o_direct_refused's answer; `dev_class`: device_of's class of the scratch directory. A RAM
// disk (tmpfs) falls back to buffered reads: its files live in the page cache either way, so
// buffered reads still time the RAM disk. Any other filesystem is skipped: buffered reads there would
// time the page cache, not the device.
DirectIo direct_io_plan(const std::string& refused, const std::string& dev_class);

}  // namespace rigcheck::io
