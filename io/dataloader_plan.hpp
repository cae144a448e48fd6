// io_dataloader's plan: its options, the profile's defaults, and the cases they make (the IO-3 pair at
// every compute:I/O ratio, the worker sweep, the fio comparison). dataloader.cpp runs them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rigcheck/harness/session.hpp"

namespace rigcheck::io {

struct WaitCase {
  std::string name;
  double ratio;
  int workers, prefetch;
  std::string params;
  int64_t checked = 0, wrong = 0;
};

struct PeerCase {
  int64_t w;
  std::string params_p, params_f, job;
  int64_t wrong = 0, checked = 0;
  std::string fio_error;  // the last fio failure, if any
  std::string no_fio;     // why fio cannot run this case (too few file descriptors), if so
};

struct DlOptions {
  std::string scratch_dir, fio_binary = "fio", ratios_s, workers_s, peer_workers_s, sample_size_s = "110592",
                           compute_mode = "sleep";
  int samples = 0, batch = 0, steps = 0, prefetch = 2;
  double peer_runtime = 0;
  bool no_peer = false;
  int64_t sample_bytes = 0;
  std::vector<double> ratios;
  std::vector<int64_t> workers, peer_workers;
};

void add_options(CLI::App& app, DlOptions& o);
// The profile's defaults where an option was not given, then the lists parsed; throws
// std::invalid_argument naming the option.
void validate(DlOptions& o, Profile p);
// Cases of dataloader_io_wait: the IO-3 pair at every ratio, the worker sweep at ratio 1.
std::vector<WaitCase> plan_wait(const Session& s, const DlOptions& o);
// The worker counts of dataloader_vs_fio that --filter selects (none with --no-peer).
std::vector<int64_t> plan_peers(const Session& s, const DlOptions& o);

}  // namespace rigcheck::io
