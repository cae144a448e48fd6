// io_dataloader: the suite's own DataLoader-style pipeline over real sample files (IO-1, IO-3)
// and, beside it, fio reading the same files with the same sizes and queue depth (the peer).
//  - dataloader_io_wait: I/O wait per training step against the compute:I/O ratio and the
//    worker count; IO-3 is batch 64, 4 workers x prefetch 2 against 0 workers.
//  - dataloader_vs_fio: samples/s with no compute (the pipeline's IOPS) against fio psync with
//    numjobs = workers on the same files; ratio per repetition.
// Every sample read is checksummed against what was written (random bytes, never zeros).
#include <unistd.h>

#include <cmath>
#include <regex>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "device.hpp"
#include "fio_driver.hpp"
#include "io_common.hpp"
#include "pipeline.hpp"
#include "rigcheck/harness/topology.hpp"
#include "scratch.hpp"

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

struct WaitCase {
  std::string name;
  double ratio;
  int workers, prefetch;
  std::string params;
  int64_t checked = 0, wrong = 0;
  int reps_failed = 0;
};

int dataloader_main(int argc, char** argv) {
  const std::string prog = prog_name(argv[0]);
  CLI::App app{"io_dataloader: DataLoader-style prefetch pipeline, I/O wait per step, against fio (IO-1, IO-3)"};
  CommonOptions opt;
  add_common_options(app, opt);
  std::string scratch_dir, fio_binary = "fio", ratios_s, workers_s, peer_workers_s, sample_size_s = "110592",
                           compute_mode = "sleep";
  int samples = 0, batch = 0, steps = 0, prefetch = 2;
  double peer_runtime = 0;
  bool no_peer = false;
  app.add_option("--scratch", scratch_dir,
                 "existing directory for the sample files (default: a new temporary directory under $TMPDIR or "
                 "/var/tmp); only files created by this program are touched, and removed at the end");
  app.add_option("--fio-binary", fio_binary, "fio executable for the peer runs")->capture_default_str();
  app.add_option("--samples", samples, "sample files (default: tiny 48, quick 512, full 4096)");
  app.add_option("--sample-size", sample_size_s, "bytes per sample file (default 110592 = 108 KiB, ImageNet-like; a "
                                                 "multiple of 4096 reads with O_DIRECT)")->capture_default_str();
  app.add_option("--batch", batch, "samples per batch (default 64; tiny 8)");
  app.add_option("--steps", steps, "training steps per repetition (default: tiny 4, quick 8, full 40)");
  app.add_option("--prefetch", prefetch, "prefetch factor of the worker cases")->capture_default_str();
  app.add_option("--ratios", ratios_s, "compute:I/O ratios, compute time = ratio x one batch's single-thread load time "
                                       "(default: tiny 1, quick 0.1,0.25,0.5,1, full 0.1,0.25,0.5,1,2,4)");
  app.add_option("--workers", workers_s, "worker counts swept at ratio 1 (default: tiny 0,4, quick 0,1,2,4, full 0,1,2,4,8)");
  app.add_option("--peer-workers", peer_workers_s, "worker counts of the fio comparison (default: tiny 2, quick 1,4,8, "
                                                   "full 1,2,4,8)");
  app.add_option("--peer-runtime", peer_runtime, "seconds per fio peer run (default: tiny 0.3, quick 0.6, full 4)");
  app.add_option("--compute", compute_mode, "sleep (the host waits on an accelerator) or spin (CPU busy)")
      ->capture_default_str();
  app.add_flag("--no-peer", no_peer, "skip the fio comparison");
  int64_t sample_bytes = 0;
  std::vector<double> ratios;
  std::vector<int64_t> workers, peer_workers;
  try {
    app.parse(argc, argv);
    finish_common_options(opt, physical_core_count(), hardware_thread_count());
    const bool tiny = opt.profile == Profile::tiny, quick = opt.profile == Profile::quick;
    if (app.count("--reps") == 0) opt.reps = tiny ? 2 : quick ? 3 : 5;
    sample_bytes = parse_size(sample_size_s);
    if (samples == 0) samples = tiny ? 48 : quick ? 512 : 4096;
    if (batch == 0) batch = tiny ? 8 : 64;
    if (steps == 0) steps = tiny ? 4 : quick ? 8 : 40;
    if (peer_runtime == 0) peer_runtime = tiny ? 0.3 : quick ? 0.6 : 4;
    ratios = parse_doubles(ratios_s.empty() ? (tiny ? "1" : quick ? "0.1,0.25,0.5,1" : "0.1,0.25,0.5,1,2,4") : ratios_s);
    workers = parse_workers(workers_s.empty() ? (tiny ? "0,4" : quick ? "0,1,2,4" : "0,1,2,4,8") : workers_s);
    peer_workers = parse_int_list(peer_workers_s.empty() ? (tiny ? "2" : quick ? "1,4,8" : "1,2,4,8") : peer_workers_s, 256);
    if (samples < 1 || batch < 1 || steps < 2 || prefetch < 1) throw std::invalid_argument("--samples, --batch >= 1, --steps >= 2, --prefetch >= 1");
    if (compute_mode != "sleep" && compute_mode != "spin") throw std::invalid_argument("--compute must be sleep or spin");
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  if (opt.stem.empty()) opt.stem = prog;
  if (opt.run_id.empty()) opt.run_id = fmt::format("adhoc-{}-{}", host_name(), utc_timestamp_compact());
  const int warmup = steps >= 8 ? 2 : 1;
  const bool has_ratio1 = std::find(ratios.begin(), ratios.end(), 1.0) != ratios.end();

  // Cases of dataloader_io_wait: the IO-3 pair at every ratio, the worker sweep at ratio 1.
  std::vector<WaitCase> wcases;
  auto add = [&](double r, int w, int p) {
    std::string name = w == 0 ? fmt::format("r{:g}/w0", r) : fmt::format("r{:g}/w{}p{}", r, w, p);
    for (auto& c : wcases)
      if (c.name == name) return;
    wcases.push_back({name, r, w, w == 0 ? 0 : p, "", 0, 0, 0});
  };
  for (double r : ratios) {
    add(r, 0, 0);
    add(r, 4, prefetch);
  }
  for (int64_t w : workers) add(has_ratio1 ? 1.0 : ratios.front(), static_cast<int>(w), prefetch);
  if (opt.profile != Profile::tiny) add(has_ratio1 ? 1.0 : ratios.front(), 4, 1);
  std::regex filter;
  try {
    filter = std::regex(opt.filter.empty() ? ".*" : opt.filter);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: bad --filter: %s\n", prog.c_str(), e.what());
    return 2;
  }
  std::vector<WaitCase> keep;
  for (auto& c : wcases)
    if (std::regex_search("dataloader_io_wait/" + c.name, filter)) keep.push_back(c);
  wcases = keep;
  std::vector<int64_t> peers;
  if (!no_peer)
    for (int64_t w : peer_workers)
      if (std::regex_search(fmt::format("dataloader_vs_fio/pipeline/w{}", w), filter) ||
          std::regex_search(fmt::format("dataloader_vs_fio/fio/w{}", w), filter))
        peers.push_back(w);
  if (opt.list) {
    for (auto& c : wcases)
      std::printf("dataloader_io_wait/%s\tratio=%g;workers=%d;prefetch=%d;batch=%d\n", c.name.c_str(), c.ratio, c.workers,
                  c.prefetch, batch);
    for (auto w : peers) std::printf("dataloader_vs_fio/pipeline/w%lld\ndataloader_vs_fio/fio/w%lld\n", (long long)w, (long long)w);
    return 0;
  }
  if (wcases.empty() && peers.empty()) {
    std::fprintf(stderr, "%s: no case matches --filter '%s'\n", prog.c_str(), opt.filter.c_str());
    return 2;
  }

  // ---- refusals before anything is written
  const int64_t total = static_cast<int64_t>(samples) * sample_bytes;
  try {
    if (!scratch_dir.empty()) {
      Scratch probe(scratch_dir);
      probe.check_new_path(fmt::format("rigcheck-samples.{}", ::getpid()));
      probe.check_free_space(total, probe.root());
    }
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  const std::string out = result_path(opt, prog);
  if (out.empty()) return 2;
  std::unique_ptr<ResultWriter> writer;
  try {
    writer = std::make_unique<ResultWriter>(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  RowSink sink{opt.run_id, writer.get()};
  install_cleanup_handlers();
  int rc = 0;
  std::unique_ptr<Scratch> scratch;
  try {
    scratch = std::make_unique<Scratch>(scratch_dir);
    scratch->check_free_space(total, scratch->root());
    Dataset d;
    d.sample_bytes = sample_bytes;
    d.dir = scratch->create_dir(fmt::format("rigcheck-samples.{}", ::getpid()));
    // The fio peer's job, JSON and log files: beside the samples, never among them (fio reads
    // every file of d.dir), in a directory of this process's own.
    const std::string aux = scratch->create_dir(fmt::format("rigcheck-dl.{}.d", ::getpid()));
    std::fprintf(stderr, "%s: writing %d sample files of %lld bytes in %s\n", prog.c_str(), samples,
                 static_cast<long long>(sample_bytes), d.dir.c_str());
    const std::string rel = d.dir.substr(scratch->root().size() + 1);
    for (int i = 0; i < samples; ++i) {
      uint64_t sum = 0;
      d.paths.push_back(scratch->create_file(fmt::format("{}/s{:06d}.bin", rel, i), sample_bytes,
                                             0x5a3d1e0000ULL + static_cast<uint64_t>(i), &sum, false));
      d.sums.push_back(sum);
    }
    scratch->sync_and_drop(d.paths);
    d.direct = sample_bytes % 4096 == 0 && direct_io_works(d.paths.front(), sample_bytes);
    const std::string bypass = d.direct ? "o_direct" : "fadvise_dontneed";
    const DeviceInfo dev = device_of(d.dir);
    const std::string block = dev.device;

    // Calibration: one batch loaded by the step itself (0 workers), no compute.
    PipelineConfig cal{batch, 0, 0, 5, 1, 0, false, 7};
    PipelineResult cr = run_pipeline(d, cal, block);
    if (cr.wrong) throw std::runtime_error(fmt::format("calibration: {} of {} samples read back wrong", cr.wrong, cr.checked));
    const double t_io = cr.wait_s / cr.steps;
    std::fprintf(stderr, "%s: %s on %s (%s), %s; one batch of %d loaded by one thread: %.2f ms\n", prog.c_str(),
                 bypass.c_str(), block.empty() ? dev.source.c_str() : block.c_str(), dev.dev_class.c_str(),
                 dev.fstype.c_str(), batch, t_io * 1e3);
    const Params common = {{"batch", std::to_string(batch)},
                           {"sample_bytes", std::to_string(sample_bytes)},
                           {"samples", std::to_string(samples)},
                           {"cache_bypass", bypass},
                           {"t_io_batch_s", fmt::format("{:.6g}", t_io)},
                           {"device", block.empty() ? dev.source : block},
                           {"device_class", dev.dev_class},
                           {"fstype", dev.fstype}};
    for (auto& c : wcases) {
      Params p = {{"ratio", fmt::format("{:g}", c.ratio)},
                  {"workers", std::to_string(c.workers)},
                  {"prefetch", std::to_string(c.prefetch)},
                  {"compute", compute_mode},
                  {"compute_s", fmt::format("{:.6g}", c.ratio * t_io)},
                  {"steps", std::to_string(steps)},
                  {"warmup_steps", std::to_string(warmup)}};
      p.insert(p.end(), common.begin(), common.end());
      c.params = format_kv(p);
    }

    // Peer set-up: fio present?
    std::unique_ptr<Fio> fio;
    std::string fio_version, fio_problem;
    if (!peers.empty()) {
      try {
        fio = std::make_unique<Fio>(fio_binary);
        fio_version = fio->version();
        if (!d.direct) throw FioError("the files refuse O_DIRECT here: fio and the pipeline would not bypass the cache alike");
      } catch (const FioError& e) {
        fio_problem = e.what();
        fio.reset();
      }
    }
    struct PeerState {
      int64_t w;
      std::string params_p, params_f, job;
      int64_t wrong = 0, checked = 0;
      bool fio_failed = false;
    };
    std::vector<PeerState> ps;
    for (int64_t w : peers) {
      PeerState s{w, "", "", "", 0, 0, false};
      Params p = {{"workers", std::to_string(w)}, {"queue_depth", std::to_string(w)}, {"rw", "randread"},
                  {"bs", std::to_string(sample_bytes)}};
      p.insert(p.end(), common.begin(), common.end());
      Params pp = p, pf = p;
      pp.push_back({"impl", fmt::format("rigcheck pipeline {} workers x prefetch {} compute 0 pread", w, prefetch)});
      pf.push_back({"impl", "fio psync numjobs=workers iodepth=1 opendir file_service_type=random"});
      pf.push_back({"fio_version", fio_version});
      s.params_p = format_kv(pp);
      s.params_f = format_kv(pf);
      if (fio) {
        FioJob j{fmt::format("peer_w{}", w), "randread", sample_bytes, 1, static_cast<int>(w), "psync", "", d.dir, 0,
                 peer_runtime, std::min(0.5, peer_runtime / 3), true, {"file_service_type=random"}};
        s.job = scratch->create_empty(fmt::format("{}/peer-w{}.fio", aux, w));
        std::FILE* f = std::fopen(s.job.c_str(), "w");
        std::fputs(job_file_text(j).c_str(), f);
        std::fclose(f);
      }
      ps.push_back(s);
    }

    for (int rep = 0; rep < opt.reps; ++rep) {
      for (auto& c : wcases) {
        PipelineConfig pc{batch, c.workers, c.prefetch, steps, warmup, c.ratio * t_io, compute_mode == "spin",
                          1000u + static_cast<uint64_t>(rep)};
        PipelineResult r = run_pipeline(d, pc, block);
        c.checked += r.checked;
        c.wrong += r.wrong;
        const Status st = r.wrong ? Status::failed : Status::ok;
        const std::string note = r.wrong ? fmt::format("WRONG: {} of {} samples read back differ from what was written",
                                                       r.wrong, r.checked)
                                         : fmt::format("load average {:.2f}", load_average_1m());
        if (r.wrong) ++c.reps_failed;
        auto row = [&](const char* m, double v, const char* u) {
          sink.row("dataloader_io_wait", c.name, c.params, m, st == Status::ok ? v : NAN, u, rep, st, note);
        };
        const double step_time = r.wall_s / r.steps;
        row("io_wait_per_step", r.wait_s / r.steps, "s");
        row("step_time", step_time, "s");
        row("io_wait_fraction", r.wait_s / r.wall_s, "fraction");
        row("step_rate", 1 / step_time, "steps/s");
        row("samples_per_s", static_cast<double>(batch) * r.steps / r.wall_s, "samples/s");
        // Over the whole run (warm-up included: prefetched reads fall before the measured
        // steps): steps per second, reads issued (pread calls) and reads the device completed
        // (its whole count: other processes' reads on the same device are included).
        row("step_rate_run", (r.steps + warmup) / r.run_s, "steps/s");
        row("iops_issued", r.reads / r.run_s, "IOPS");
        row("reads_per_sample", static_cast<double>(r.reads) / r.samples, "count");
        if (r.device_reads >= 0) {
          row("device_iops", r.device_reads / r.run_s, "IOPS");
          row("device_reads_per_sample", static_cast<double>(r.device_reads) / r.samples, "count");
        }
        std::fprintf(stderr, "  dataloader_io_wait/%s rep %d: wait %.2f ms/step of %.2f ms, %.0f samples/s\n",
                     c.name.c_str(), rep, 1e3 * r.wait_s / r.steps, 1e3 * step_time, batch * r.steps / r.wall_s);
      }
      for (auto& s : ps) {
        // A then B in every repetition: pipeline, then fio on the same files.
        // About peer_runtime seconds: one batch takes t_io on one thread; assume at most 2x from
        // parallel reads (a guess for the step count only, not a figure).
        const int tsteps = static_cast<int>(
            std::clamp(peer_runtime / std::max(1e-6, t_io / static_cast<double>(std::min<int64_t>(s.w, 2))), 6.0, 5000.0));
        PipelineConfig pc{batch, static_cast<int>(s.w), prefetch, tsteps, std::min(2, tsteps / 3), 0, false,
                          2000u + static_cast<uint64_t>(rep)};
        PipelineResult r = run_pipeline(d, pc, block);
        s.wrong += r.wrong;
        s.checked += r.checked;
        const double pipe_iops = static_cast<double>(batch) * r.steps / r.wall_s;
        const Status st = r.wrong ? Status::failed : Status::ok;
        const double load = load_average_1m();
        sink.row("dataloader_vs_fio", fmt::format("pipeline/w{}", s.w), s.params_p, "iops", st == Status::ok ? pipe_iops : NAN,
                 "IOPS", rep, st, r.wrong ? "WRONG samples" : fmt::format("load average {:.2f}", load));
        if (!fio) {
          sink.row("dataloader_vs_fio", fmt::format("fio/w{}", s.w), s.params_f, "", NAN, "", rep, Status::skipped,
                   fio_problem);
          continue;
        }
        try {
          const std::string jo = scratch->create_empty(fmt::format("{}/peer-w{}-{}.json", aux, s.w, rep));
          const std::string lg = scratch->create_empty(fmt::format("{}/peer-w{}-{}.log", aux, s.w, rep));
          fio->run(s.job, jo, lg, peer_runtime + 120);
          FioResult f = parse_fio_json(jo, "read");
          if (f.error || f.iops <= 0) throw FioError(fmt::format("fio error {} with {} IOPS", f.error, f.iops));
          sink.row("dataloader_vs_fio", fmt::format("fio/w{}", s.w), s.params_f, "iops", f.iops, "IOPS", rep, Status::ok,
                   fmt::format("load average {:.2f}", load));
          if (st == Status::ok)
            sink.row("dataloader_vs_fio", fmt::format("ratio/w{}", s.w), s.params_p, "iops_ratio", pipe_iops / f.iops,
                     "fraction", rep, Status::ok, "pipeline IOPS / fio IOPS, same repetition, run one after the other");
          std::fprintf(stderr, "  dataloader_vs_fio/w%lld rep %d: pipeline %.0f IOPS, fio %.0f IOPS, ratio %.3f\n",
                       static_cast<long long>(s.w), rep, pipe_iops, f.iops, pipe_iops / f.iops);
        } catch (const FioError& e) {
          s.fio_failed = true;
          sink.row("dataloader_vs_fio", fmt::format("fio/w{}", s.w), s.params_f, "iops", NAN, "IOPS", rep, Status::failed,
                   e.what());
          std::fprintf(stderr, "FAILED: fio peer w%lld: %s\n", static_cast<long long>(s.w), e.what());
          rc = 1;
        }
      }
    }
    // Correctness: every sample read in the timed repetitions was checked; a case with a wrong
    // sample (or none checked) fails.
    for (auto& c : wcases) {
      const Status st = c.wrong || c.checked == 0 ? Status::failed : Status::ok;
      sink.row("dataloader_io_wait", c.name, c.params, "check_wrong", static_cast<double>(c.wrong), "count", -1, st,
               fmt::format("{} wrong of {} samples: every sample read was checksummed (64-bit FNV-1a) against the "
                           "pseudo-random bytes written to it (never zeros)", c.wrong, c.checked));
      if (st == Status::failed) rc = 1;
    }
    for (auto& s : ps) {
      const Status st = s.wrong || s.checked == 0 ? Status::failed : Status::ok;
      sink.row("dataloader_vs_fio", fmt::format("pipeline/w{}", s.w), s.params_p, "check_wrong",
               static_cast<double>(s.wrong), "count", -1, st,
               fmt::format("{} wrong of {} samples: every sample read was checksummed", s.wrong, s.checked));
      if (st == Status::failed) rc = 1;
    }
    if (!fio_problem.empty()) std::fprintf(stderr, "%s: fio peer skipped: %s\n", prog.c_str(), fio_problem.c_str());
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    for (auto& c : wcases) sink.row("dataloader_io_wait", c.name, c.params, "", NAN, "", -1, Status::failed, e.what());
    rc = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    try {  // the failure may be the results disk itself: the scratch clean-up below must still run
      for (auto& c : wcases) sink.row("dataloader_io_wait", c.name, c.params, "", NAN, "", -1, Status::failed, e.what());
    } catch (const std::exception&) {
    }
    rc = 1;
  }
  if (scratch) scratch->remove_all();
  try {
    writer->finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    return 1;
  }
  return rc;
}

}  // namespace
}  // namespace rigcheck::io

int main(int argc, char** argv) { return rigcheck::io::dataloader_main(argc, argv); }
