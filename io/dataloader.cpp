// io_dataloader: the suite's own DataLoader-style pipeline over real sample files (IO-1, IO-3)
// and, beside it, fio reading the same files with the same sizes and queue depth (the peer).
//  - dataloader_io_wait: I/O wait per training step against the compute:I/O ratio and the
//    worker count; IO-3 is batch 64, 4 workers x prefetch 2 against 0 workers.
//  - dataloader_vs_fio: samples/s with no compute (the pipeline's IOPS) against fio psync with
//    numjobs = workers on the same files; ratio per repetition.
// Every sample read is checksummed against what was written (random bytes, never zeros).
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "dataloader_plan.hpp"
#include "device.hpp"
#include "fio_driver.hpp"
#include "io_common.hpp"
#include "pipeline.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/session.hpp"
#include "scratch.hpp"

namespace rigcheck::io {
namespace {

// The sample files, written with pseudo-random bytes (their checksums kept), synced and dropped
// from the page cache.
Dataset make_dataset(Scratch& scratch, const DlOptions& o, const std::string& prog) {
  Dataset d;
  d.sample_bytes = o.sample_bytes;
  d.dir = scratch.create_dir(fmt::format("rigcheck-samples.{}", ::getpid()));
  std::fprintf(stderr, "%s: writing %d sample files of %lld bytes in %s\n", prog.c_str(), o.samples,
               static_cast<long long>(o.sample_bytes), d.dir.c_str());
  const std::string rel = d.dir.substr(scratch.root().size() + 1);
  for (int i = 0; i < o.samples; ++i) {
    uint64_t sum = 0;
    d.paths.push_back(scratch.create_file(fmt::format("{}/s{:06d}.bin", rel, i), o.sample_bytes,
                                          0x5a3d1e0000ULL + static_cast<uint64_t>(i), &sum, false));
    d.sums.push_back(sum);
  }
  scratch.sync_and_drop(d.paths);
  d.direct = o.sample_bytes % 4096 == 0 && direct_io_works(d.paths.front(), o.sample_bytes);
  return d;
}

// One repetition of a dataloader_io_wait case: its rows.
void run_wait_case(Session& s, const Dataset& d, const DlOptions& o, WaitCase& c, double t_io, int warmup, int rep,
                   const std::string& block) {
  PipelineConfig pc{o.batch,
                    c.workers,
                    c.prefetch,
                    o.steps,
                    warmup,
                    c.ratio * t_io,
                    o.compute_mode == "spin",
                    1000u + static_cast<uint64_t>(rep)};
  PipelineResult r = run_pipeline(d, pc, block);
  c.checked += r.checked;
  c.wrong += r.wrong;
  std::string emulated;  // the pipeline's own clock: mistrusted under emulation (session.hpp)
  const Status st = r.wrong ? Status::failed : trust_emulated(&emulated);
  const std::string note =
      r.wrong ? fmt::format("WRONG: {} of {} samples read back differ from what was written", r.wrong, r.checked)
      : !emulated.empty() ? emulated
                          : fmt::format("load average {:.2f}", load_average_1m());
  auto row = [&](const char* m, double v, const char* u) {
    s.row(names::kDataloaderIoWait, c.name, c.params, m, st != Status::failed ? v : NAN, u, rep, st, note);
  };
  const double step_time = r.wall_s / r.steps;
  row(names::kIoWaitPerStep, r.wait_s / r.steps, "s");
  row(names::kStepTime, step_time, "s");
  row("io_wait_fraction", r.wait_s / r.wall_s, "fraction");
  row("step_rate", 1 / step_time, "steps/s");
  row("samples_per_s", static_cast<double>(o.batch) * r.steps / r.wall_s, "samples/s");
  // Over the whole run (warm-up included: prefetched reads fall before the measured steps): steps
  // per second, reads issued (pread calls) and reads the device completed (its whole count: other
  // processes' reads on the same device are included).
  row(names::kStepRateRun, (r.steps + warmup) / r.run_s, "steps/s");
  row(names::kIopsIssued, r.reads / r.run_s, "IOPS");
  row(names::kReadsPerSample, static_cast<double>(r.reads) / r.samples, "count");
  if (r.device_reads >= 0) {
    row(names::kDeviceIops, r.device_reads / r.run_s, "IOPS");
    row(names::kDeviceReadsPerSample, static_cast<double>(r.device_reads) / r.samples, "count");
  }
  std::fprintf(stderr, "  dataloader_io_wait/%s rep %d: wait %.2f ms/step of %.2f ms, %.0f samples/s\n", c.name.c_str(),
               rep, 1e3 * r.wait_s / r.steps, 1e3 * step_time, o.batch * r.steps / r.wall_s);
}

// One repetition of a peer pair: the pipeline, then fio on the same files (A then B).
void run_peer(Session& s, const Dataset& d, const DlOptions& o, PeerCase& pc, Fio* fio, const std::string& fio_problem,
              Scratch& scratch, const std::string& aux, double t_io, int rep, const std::string& block) {
  // About peer_runtime seconds: one batch takes t_io on one thread; assume at most 2x from
  // parallel reads (a guess for the step count only, not a figure).
  const int tsteps = static_cast<int>(
      std::clamp(o.peer_runtime / std::max(1e-6, t_io / static_cast<double>(std::min<int64_t>(pc.w, 2))), 6.0, 5000.0));
  PipelineConfig cfg{o.batch,
                     static_cast<int>(pc.w),
                     o.prefetch,
                     tsteps,
                     std::min(2, tsteps / 3),
                     0,
                     false,
                     2000u + static_cast<uint64_t>(rep)};
  PipelineResult r = run_pipeline(d, cfg, block);
  pc.wrong += r.wrong;
  pc.checked += r.checked;
  const double pipe_iops = static_cast<double>(o.batch) * r.steps / r.wall_s;
  std::string emulated;  // the pipeline's own clock: mistrusted under emulation (session.hpp)
  const Status st = r.wrong ? Status::failed : trust_emulated(&emulated);
  const double load = load_average_1m();
  const std::string pipe = fmt::format("pipeline/w{}", pc.w), peer = fmt::format("fio/w{}", pc.w);
  s.row(names::kDataloaderVsFio, pipe, pc.params_p, names::kIops, st != Status::failed ? pipe_iops : NAN, "IOPS", rep,
        st,
        r.wrong             ? "WRONG samples"
        : !emulated.empty() ? emulated
                            : fmt::format("load average {:.2f}", load));
  if (!fio) {
    s.row(names::kDataloaderVsFio, peer, pc.params_f, "", NAN, "", rep, Status::skipped, fio_problem);
    return;
  }
  if (!pc.no_fio.empty()) {
    pc.fio_error = pc.no_fio;
    s.row(names::kDataloaderVsFio, peer, pc.params_f, names::kIops, NAN, "IOPS", rep, Status::failed, pc.no_fio);
    return;
  }
  try {
    const std::string jo = scratch.create_empty(fmt::format("{}/peer-w{}-{}.json", aux, pc.w, rep));
    const std::string lg = scratch.create_empty(fmt::format("{}/peer-w{}-{}.log", aux, pc.w, rep));
    fio->run(pc.job, jo, lg, o.peer_runtime + 120);
    FioResult f = parse_fio_json(jo, "read");
    if (f.error || f.iops <= 0) throw FioError(fmt::format("fio error {} with {} IOPS", f.error, f.iops));
    std::string emulated;  // fio times itself: under an emulator its figure is the emulator's
    const Status fio_status = trust_emulated(&emulated);
    s.row(names::kDataloaderVsFio, peer, pc.params_f, names::kIops, f.iops, "IOPS", rep, fio_status,
          (emulated.empty() ? std::string() : emulated + "; ") + fmt::format("load average {:.2f}", load));
    if (st == Status::ok)
      s.row(names::kDataloaderVsFio, fmt::format("ratio/w{}", pc.w), pc.params_p, "iops_ratio", pipe_iops / f.iops,
            "fraction", rep, Status::ok, "pipeline IOPS / fio IOPS, same repetition, run one after the other");
    std::fprintf(stderr, "  dataloader_vs_fio/w%lld rep %d: pipeline %.0f IOPS, fio %.0f IOPS, ratio %.3f\n",
                 static_cast<long long>(pc.w), rep, pipe_iops, f.iops, pipe_iops / f.iops);
  } catch (const FioError& e) {
    pc.fio_error = e.what();
    s.row(names::kDataloaderVsFio, peer, pc.params_f, names::kIops, NAN, "IOPS", rep, Status::failed, e.what());
  }
}

// The peer pairs' parameters and fio job files; *fio_problem says why fio cannot run (then no fio).
std::vector<PeerCase> set_up_peers(const DlOptions& o, const std::vector<int64_t>& peers, const Params& common,
                                   const Dataset& d, Scratch& scratch, const std::string& aux,
                                   std::unique_ptr<Fio>& fio, std::string* fio_problem) {
  std::string fio_version;
  // fio runs its jobs as threads of one process, each job opening the files of the directory:
  // the soft open-file limit is raised to the hard limit, and where even that is too few for
  // workers x samples, fio's openfiles caps the files each job keeps open (tests/io/open_files.sh).
  const OpenFileLimit lim = peers.empty() ? OpenFileLimit{} : raise_open_file_limit();
  if (!peers.empty() && lim.before != lim.soft)
    std::fprintf(stderr, "io_dataloader: open-file limit raised from %lld to the hard limit %lld for the fio peer\n",
                 static_cast<long long>(lim.before), static_cast<long long>(lim.soft));
  if (!peers.empty()) {
    try {
      fio = std::make_unique<Fio>(o.fio_binary);
      fio_version = fio->version();
      if (!d.direct)
        throw FioError("the files refuse O_DIRECT here: fio and the pipeline would not bypass the cache alike");
    } catch (const FioError& e) {
      *fio_problem = e.what();
      fio.reset();
    }
  }
  std::vector<PeerCase> ps;
  for (int64_t w : peers) {
    PeerCase pc{w, "", "", "", 0, 0, "", ""};
    Params p = {{"workers", std::to_string(w)},
                {"queue_depth", std::to_string(w)},
                {"rw", "randread"},
                {"bs", std::to_string(o.sample_bytes)}};
    p.insert(p.end(), common.begin(), common.end());
    Params pp = p, pf = p;
    pp.push_back({"impl", fmt::format("rigcheck pipeline {} workers x prefetch {} compute 0 pread", w, o.prefetch)});
    pf.push_back({"impl", "fio psync numjobs=workers iodepth=1 opendir file_service_type=random"});
    pf.push_back({"fio_version", fio_version});
    const int64_t nfiles = static_cast<int64_t>(d.paths.size());
    const int64_t openfiles = fio_open_files_per_job(nfiles, w, lim.soft);
    pf.push_back({"fio_openfiles", std::to_string(openfiles)});
    pf.push_back({"open_file_limit", std::to_string(lim.soft)});
    if (openfiles == 0)
      pc.no_fio = fmt::format(
          "the open-file limit {} (hard limit {}) leaves fewer than one file per fio job for {} jobs "
          "(fio keeps 64 descriptors for itself): raise it with ulimit -n",
          lim.soft, lim.hard, w);
    else if (openfiles < nfiles)
      std::fprintf(stderr,
                   "io_dataloader: fio peer w%lld: %lld jobs x %lld files exceed the open-file limit %lld: "
                   "openfiles=%lld per job\n",
                   static_cast<long long>(w), static_cast<long long>(w), static_cast<long long>(nfiles),
                   static_cast<long long>(lim.soft), static_cast<long long>(openfiles));
    pc.params_p = format_params(pp);
    pc.params_f = format_params(pf);
    if (fio && pc.no_fio.empty()) {
      FioJob j{fmt::format("peer_w{}", w),
               "randread",
               o.sample_bytes,
               1,
               static_cast<int>(w),
               "psync",
               "",
               d.dir,
               0,
               o.peer_runtime,
               std::min(0.5, o.peer_runtime / 3),
               true,
               {"file_service_type=random"}};
      if (openfiles < nfiles) j.extra.push_back(fmt::format("openfiles={}", openfiles));
      pc.job = scratch.create_empty(fmt::format("{}/peer-w{}.fio", aux, w));
      std::FILE* f = std::fopen(pc.job.c_str(), "w");
      std::fputs(job_file_text(j).c_str(), f);
      std::fclose(f);
    }
    ps.push_back(pc);
  }
  return ps;
}

// Everything after the refusals: the samples, the calibration, every repetition, the checks.
void measure(Session& s, const DlOptions& o, std::vector<WaitCase>& wcases, const std::vector<int64_t>& peers,
             std::unique_ptr<Scratch>& scratch) {
  const int64_t total = static_cast<int64_t>(o.samples) * o.sample_bytes;
  scratch = std::make_unique<Scratch>(o.scratch_dir);
  scratch->check_free_space(total, scratch->root());
  const Dataset d = make_dataset(*scratch, o, s.prog());
  // The fio peer's job, JSON and log files: beside the samples, never among them (fio reads every
  // file of d.dir), in a directory of this process's own.
  const std::string aux = scratch->create_dir(fmt::format("rigcheck-dl.{}.d", ::getpid()));
  const std::string bypass = d.direct ? "o_direct" : "fadvise_dontneed";
  const DeviceInfo dev = device_of(d.dir);
  const std::string block = dev.device;
  const int warmup = o.steps >= 8 ? 2 : 1;

  // Calibration: one batch loaded by the step itself (0 workers), no compute.
  PipelineConfig cal{o.batch, 0, 0, 5, 1, 0, false, 7};
  PipelineResult cr = run_pipeline(d, cal, block);
  if (cr.wrong)
    throw std::runtime_error(fmt::format("calibration: {} of {} samples read back wrong", cr.wrong, cr.checked));
  const double t_io = cr.wait_s / cr.steps;
  std::fprintf(stderr, "%s: %s on %s (%s), %s; one batch of %d loaded by one thread: %.2f ms\n", s.prog().c_str(),
               bypass.c_str(), block.empty() ? dev.source.c_str() : block.c_str(), dev.dev_class.c_str(),
               dev.fstype.c_str(), o.batch, t_io * 1e3);
  const Params common = {{"batch", std::to_string(o.batch)},
                         {"sample_bytes", std::to_string(o.sample_bytes)},
                         {"samples", std::to_string(o.samples)},
                         {"cache_bypass", bypass},
                         {"t_io_batch_s", fmt::format("{:.6g}", t_io)},
                         {"device", block.empty() ? dev.source : block},
                         {"device_class", dev.dev_class},
                         {"fstype", dev.fstype}};
  for (auto& c : wcases) {
    Params p = {{"ratio", fmt::format("{:g}", c.ratio)},
                {"workers", std::to_string(c.workers)},
                {"prefetch", std::to_string(c.prefetch)},
                {"compute", o.compute_mode},
                {"compute_s", fmt::format("{:.6g}", c.ratio * t_io)},
                {"steps", std::to_string(o.steps)},
                {"warmup_steps", std::to_string(warmup)}};
    p.insert(p.end(), common.begin(), common.end());
    c.params = format_params(p);
  }
  std::unique_ptr<Fio> fio;
  std::string fio_problem;
  std::vector<PeerCase> ps = set_up_peers(o, peers, common, d, *scratch, aux, fio, &fio_problem);

  for (int rep = 0; rep < s.options().reps; ++rep) {
    for (auto& c : wcases) run_wait_case(s, d, o, c, t_io, warmup, rep, block);
    for (auto& pc : ps) run_peer(s, d, o, pc, fio.get(), fio_problem, *scratch, aux, t_io, rep, block);
  }
  // Correctness: every sample read in the timed repetitions was checked; a case with a wrong
  // sample (or none checked) fails.
  for (auto& c : wcases) {
    const bool bad = c.wrong || c.checked == 0;
    const std::string note = fmt::format(
        "{} wrong of {} samples: every sample read was checksummed against the "
        "pseudo-random bytes written to it (never zeros)",
        c.wrong, c.checked);
    s.row(names::kDataloaderIoWait, c.name, c.params, names::kCheckWrong, static_cast<double>(c.wrong), "count", -1,
          bad ? Status::failed : Status::ok, note);
    if (bad)
      s.case_failed(names::kDataloaderIoWait, c.name, note);
    else
      s.case_ok();
  }
  for (auto& pc : ps) {
    const bool bad = pc.wrong || pc.checked == 0;
    const std::string note =
        fmt::format("{} wrong of {} samples: every sample read was checksummed", pc.wrong, pc.checked);
    s.row(names::kDataloaderVsFio, fmt::format("pipeline/w{}", pc.w), pc.params_p, names::kCheckWrong,
          static_cast<double>(pc.wrong), "count", -1, bad ? Status::failed : Status::ok, note);
    if (bad)
      s.case_failed(names::kDataloaderVsFio, fmt::format("pipeline/w{}", pc.w), note);
    else if (!pc.fio_error.empty())
      s.case_failed(names::kDataloaderVsFio, fmt::format("fio/w{}", pc.w), "fio peer: " + pc.fio_error);
    else
      s.case_ok();
  }
  if (!fio_problem.empty()) std::fprintf(stderr, "%s: fio peer skipped: %s\n", s.prog().c_str(), fio_problem.c_str());
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh), and the
// benchmark names it writes.
const bool entry_io_dataloader = declare_entry(
    {"io_dataloader", "io", "", "", "", 60, 180, 1800,
     R"(DataLoader-style prefetch pipeline over sample files: I/O wait per step against compute:I/O ratio and
workers, IOPS issued; fio on the same files as the peer (IO-1, IO-3))"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(the suite's own DataLoader-style pipeline: ~108 KiB sample files read with O_DIRECT, workers x prefetch
factor feeding a bounded queue, a training step of set compute time; I/O wait per step against the
compute:I/O ratio and the worker count; the IOPS it issues; fio on the same files beside it)",
     "IO-1, IO-3"});
const bool writes = declare_writes({names::kDataloaderIoWait, names::kDataloaderVsFio});

int dataloader_main(int argc, char** argv) {
  SharedOptions shared;
  shared.threads = shared.sizes = shared.min_time = false;  // the pipeline runs --steps steps per repetition
  shared.reps[0] = 2, shared.reps[1] = 3, shared.reps[2] = 5;
  Session s(argv[0], "io_dataloader: DataLoader-style prefetch pipeline, I/O wait per step, against fio (IO-1, IO-3)",
            shared);
  DlOptions o;
  add_options(s.app(), o);
  if (auto rc = s.parse(argc, argv, [&] { validate(o, s.options().profile); })) return *rc;
  std::vector<WaitCase> wcases = plan_wait(s, o);
  const std::vector<int64_t> peers = plan_peers(s, o);
  if (s.listing()) {
    for (auto& c : wcases)
      s.list_case(names::kDataloaderIoWait, c.name,
                  fmt::format("ratio={:g};workers={};prefetch={};batch={}", c.ratio, c.workers, c.prefetch, o.batch));
    for (auto w : peers) {
      s.list_case(names::kDataloaderVsFio, fmt::format("pipeline/w{}", w), "");
      s.list_case(names::kDataloaderVsFio, fmt::format("fio/w{}", w), "");
    }
    return kExitOk;
  }
  if (auto rc = s.require_cases(wcases.size() + peers.size())) return *rc;

  // ---- refusals before anything is written
  try {
    if (!o.scratch_dir.empty()) {
      Scratch probe(o.scratch_dir);
      probe.check_new_path(fmt::format("rigcheck-samples.{}", ::getpid()));
      probe.check_free_space(static_cast<int64_t>(o.samples) * o.sample_bytes, probe.root());
    }
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", s.prog().c_str(), e.what());
    return kExitUsage;
  }
  if (!s.open_results()) return kExitUsage;
  install_cleanup_handlers();
  std::unique_ptr<Scratch> scratch;
  return run_measure(
      s, scratch, [&] { measure(s, o, wcases, peers, scratch); },
      [&](const std::string& why) {
        for (auto& c : wcases) s.row(names::kDataloaderIoWait, c.name, c.params, "", NAN, "", -1, Status::failed, why);
      });
}

}  // namespace
}  // namespace rigcheck::io

int main(int argc, char** argv) { return rigcheck::io::dataloader_main(argc, argv); }
