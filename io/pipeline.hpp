// The suite's own DataLoader-style input pipeline (IO-1, IO-3): N sample files read whole
// with O_DIRECT (or posix_fadvise(DONTNEED) on our own files where O_DIRECT is refused),
// `workers` threads each building whole batches, at most workers x prefetch_factor batches in
// flight (PyTorch DataLoader semantics), a consumer "training step" of a given compute time
// taking batches in order. workers = 0 loads the batch inside the step (num_workers=0).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck::io {

struct Dataset {
  std::string dir;  // holds only the sample files
  std::vector<std::string> paths;
  std::vector<uint64_t> sums;  // checksum64 of each file's content, recorded when written
  int64_t sample_bytes = 0;
  bool direct = false;  // O_DIRECT reads (else buffered + fadvise DONTNEED)
};

struct PipelineConfig {
  int batch = 64;
  int workers = 4;
  int prefetch = 2;
  int steps = 16;
  int warmup = 2;        // first steps left out of the waits (the queue filling up)
  double compute_s = 0;  // the training step's compute time
  bool spin = false;     // busy-wait compute instead of sleeping
  uint64_t seed = 1;     // shuffles the sample order
};

struct PipelineResult {
  double wall_s = 0;    // measured steps (after warm-up), consumer's wall time
  double wait_s = 0;    // of which waiting for (or, with 0 workers, loading) data
  int steps = 0;        // measured steps
  double run_s = 0;     // the whole run, warm-up included
  int64_t samples = 0;  // samples loaded over the whole run
  int64_t reads = 0;    // pread calls over the whole run
  int64_t bytes = 0;
  int64_t wrong = 0;  // samples whose bytes differ from what was written
  int64_t checked = 0;
  long long device_reads = -1;  // reads completed by the block device over the run (whole device)
  // The same counts within the measured steps (from the start of step `warmup` to the end).
  int64_t reads_window = 0, samples_window = 0;
  long long device_reads_window = -1;
};

// Throws std::runtime_error on an I/O error.
PipelineResult run_pipeline(const Dataset& d, const PipelineConfig& c, const std::string& block_device);

// Whether O_DIRECT reads of this file work (tmpfs and some file systems refuse them).
bool direct_io_works(const std::string& path, int64_t bytes);

}  // namespace rigcheck::io
