// io_dataloader's options and cases (dataloader_plan.hpp).
#include "dataloader_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"

namespace rigcheck::io {
namespace {

std::vector<double> parse_doubles(const std::string& s) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string item = s.substr(start, end - start);
    size_t pos = 0;
    double v = 0;
    try {
      v = std::stod(item, &pos);
    } catch (...) {
      pos = 0;
    }
    if (pos != item.size() || !(v >= 0)) throw std::invalid_argument(fmt::format("'{}' is not a ratio >= 0", item));
    out.push_back(v);
    start = end + 1;
  }
  return out;
}

// A worker list: parse_int_list's syntax, plus 0 (the step loads its own batch).
std::vector<int64_t> parse_workers(const std::string& s) {
  std::string rest;
  bool zero = false;
  for (size_t start = 0; start <= s.size();) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string item = s.substr(start, end - start);
    if (item == "0")
      zero = true;
    else
      rest += (rest.empty() ? "" : ",") + item;
    start = end + 1;
  }
  std::vector<int64_t> out;
  if (zero) out.push_back(0);
  if (!rest.empty())
    for (int64_t w : parse_int_list(rest, 256)) out.push_back(w);
  return out;
}

}  // namespace

void add_options(CLI::App& app, DlOptions& o) {
  app.add_option("--scratch", o.scratch_dir,
                 "existing directory for the sample files (default: a new temporary directory under $TMPDIR or "
                 "/var/tmp); only files created by this program are touched, and removed at the end");
  app.add_option("--fio-binary", o.fio_binary, "fio executable for the peer runs")->capture_default_str();
  app.add_option("--samples", o.samples, "sample files (default: tiny 48, quick 512, full 4096)");
  app.add_option("--sample-size", o.sample_size_s,
                 "bytes per sample file (default 110592 = 108 KiB, ImageNet-like; a "
                 "multiple of 4096 reads with O_DIRECT)")
      ->capture_default_str();
  app.add_option("--batch", o.batch, "samples per batch (default 64; tiny 8)");
  app.add_option("--steps", o.steps, "training steps per repetition (default: tiny 4, quick 8, full 20)");
  app.add_option("--prefetch", o.prefetch, "prefetch factor of the worker cases")->capture_default_str();
  app.add_option("--ratios", o.ratios_s,
                 "compute:I/O ratios, compute time = ratio x one batch's single-thread load time "
                 "(default: tiny 1, quick 0.1,0.25,0.5,1, full 0.1,0.25,0.5,1,2,4)");
  app.add_option("--workers", o.workers_s,
                 "worker counts swept at ratio 1 (default: tiny 0,4, quick 0,1,2,4, full 0,1,2,4,8)");
  app.add_option("--peer-workers", o.peer_workers_s,
                 "worker counts of the fio comparison (default: tiny 2, quick 1,4,8, "
                 "full 1,2,4,8)");
  app.add_option("--peer-runtime", o.peer_runtime, "seconds per fio peer run (default: tiny 0.3, quick 0.3, full 2)");
  app.add_option("--compute", o.compute_mode, "sleep (the host waits on an accelerator) or spin (CPU busy)")
      ->capture_default_str();
  app.add_flag("--no-peer", o.no_peer, "skip the fio comparison");
}

void validate(DlOptions& o, Profile p) {
  const bool tiny = p == Profile::tiny, quick = p == Profile::quick;
  o.sample_bytes = parse_size(o.sample_size_s);
  if (o.samples == 0) o.samples = tiny ? 48 : quick ? 512 : 4096;
  if (o.batch == 0) o.batch = tiny ? 8 : 64;
  if (o.steps == 0) o.steps = tiny ? 4 : quick ? 8 : 20;
  if (o.peer_runtime == 0) o.peer_runtime = tiny || quick ? 0.3 : 2;
  o.ratios = parse_doubles(o.ratios_s.empty() ? (tiny    ? "1"
                                                 : quick ? "0.1,0.25,0.5,1"
                                                         : "0.1,0.25,0.5,1,2,4")
                                              : o.ratios_s);
  o.workers = parse_workers(o.workers_s.empty() ? (tiny ? "0,4" : quick ? "0,1,2,4" : "0,1,2,4,8") : o.workers_s);
  o.peer_workers = parse_int_list(o.peer_workers_s.empty() ? (tiny    ? "2"
                                                              : quick ? "1,4,8"
                                                                      : "1,2,4,8")
                                                           : o.peer_workers_s,
                                  256);
  if (o.samples < 1 || o.batch < 1 || o.steps < 2 || o.prefetch < 1)
    throw std::invalid_argument("--samples, --batch >= 1, --steps >= 2, --prefetch >= 1");
  if (o.compute_mode != "sleep" && o.compute_mode != "spin")
    throw std::invalid_argument("--compute must be sleep or spin");
}

std::vector<WaitCase> plan_wait(const Session& s, const DlOptions& o) {
  const bool has_ratio1 = std::find(o.ratios.begin(), o.ratios.end(), 1.0) != o.ratios.end();
  std::vector<WaitCase> cases;
  auto add = [&](double r, int w, int p) {
    std::string name = w == 0 ? fmt::format("r{:g}/w0", r) : fmt::format("r{:g}/w{}p{}", r, w, p);
    for (auto& c : cases)
      if (c.name == name) return;
    cases.push_back({name, r, w, w == 0 ? 0 : p, "", 0, 0});
  };
  for (double r : o.ratios) {
    add(r, 0, 0);
    add(r, 4, o.prefetch);
  }
  for (int64_t w : o.workers) add(has_ratio1 ? 1.0 : o.ratios.front(), static_cast<int>(w), o.prefetch);
  if (s.options().profile != Profile::tiny) add(has_ratio1 ? 1.0 : o.ratios.front(), 4, 1);
  std::vector<WaitCase> keep;
  for (auto& c : cases)
    if (s.selected(names::kDataloaderIoWait, c.name)) keep.push_back(c);
  return keep;
}

std::vector<int64_t> plan_peers(const Session& s, const DlOptions& o) {
  std::vector<int64_t> peers;
  if (!o.no_peer)
    for (int64_t w : o.peer_workers)
      if (s.selected(names::kDataloaderVsFio, fmt::format("pipeline/w{}", w)) ||
          s.selected(names::kDataloaderVsFio, fmt::format("fio/w{}", w)))
        peers.push_back(w);
  return peers;
}

}  // namespace rigcheck::io
