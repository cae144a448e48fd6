// io_fio: storage bandwidth, IOPS and completion latency measured by Debian's real fio on a
// scratch file this program creates (IO-2). Profiles: 1 MiB sequential read at queue depth 32,
// 4 KiB random read at QD 1 and at QD 32 x jobs; writes only with --allow-write. The ioengine
// is the first of io_uring, libaio, psync that works here. Safety rules: io/scratch.hpp.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <regex>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "device.hpp"
#include "fio_driver.hpp"
#include "io_common.hpp"
#include "rigcheck/harness/topology.hpp"
#include "scratch.hpp"

namespace rigcheck::io {
namespace {

struct FioCase {
  std::string name, rw;
  int64_t bs;
  int iodepth, numjobs;
  bool writes;
};

std::string us(double ns) { return fmt::format("{:.1f}", ns / 1000); }

int fio_main(int argc, char** argv) {
  const std::string prog = prog_name(argv[0]);
  CLI::App app{"io_fio: fio sequential/random read bandwidth, IOPS and latency on a scratch file (IO-2)"};
  CommonOptions opt;
  add_common_options(app, opt);
  std::string scratch_dir, file_name, fio_binary = "fio", ioengine = "auto", file_size_s, runtime_spec, ramp_spec;
  bool allow_write = false;
  app.add_option("--scratch", scratch_dir,
                 "existing directory for the scratch file (default: a new temporary directory under $TMPDIR or "
                 "/var/tmp); only files created here by this program are touched, and removed at the end");
  app.add_option("--file", file_name, "name of the scratch file inside --scratch (must not exist; default "
                                      "rigcheck-fio.<pid>.dat)");
  app.add_option("--fio-binary", fio_binary, "fio executable (a name looked up in PATH, or a path)")->capture_default_str();
  app.add_option("--ioengine", ioengine, "auto (first of io_uring, libaio, psync that works) or one of them")
      ->capture_default_str();
  app.add_option("--file-size", file_size_s, "scratch file size (default: tiny 16M, quick 256M, full 1G)");
  app.add_option("--runtime", runtime_spec, "seconds fio measures per run (default: tiny 0.3, quick 0.5, full 5)");
  app.add_option("--ramp", ramp_spec, "seconds of ramp before measuring (default: tiny 0, quick 0.2, full 2)");
  app.add_flag("--allow-write", allow_write, "also run the write profiles (sequential and random write on the "
                                             "scratch file)");
  int64_t file_size = 0;
  double runtime = 0, ramp = 0;
  try {
    app.parse(argc, argv);
    finish_common_options(opt, physical_core_count(), hardware_thread_count());
    if (app.count("--reps") == 0) opt.reps = opt.profile == Profile::tiny ? 2 : opt.profile == Profile::quick ? 3 : 5;
    file_size = file_size_s.empty() ? (opt.profile == Profile::tiny ? 16 << 20 : opt.profile == Profile::quick ? 256 << 20 : 1 << 30)
                                    : parse_size(file_size_s);
    runtime = runtime_spec.empty() ? (opt.profile == Profile::tiny ? 0.3 : opt.profile == Profile::quick ? 0.5 : 5)
                                   : std::stod(runtime_spec);
    ramp = ramp_spec.empty() ? (opt.profile == Profile::tiny ? 0 : opt.profile == Profile::quick ? 0.2 : 2)
                             : std::stod(ramp_spec);
    if (!(runtime > 0) || ramp < 0) throw std::invalid_argument("--runtime must be > 0 and --ramp >= 0");
    if (file_size < (4 << 20)) throw std::invalid_argument("--file-size must be at least 4M");
    if (ioengine != "auto" && ioengine != "io_uring" && ioengine != "libaio" && ioengine != "psync")
      throw std::invalid_argument("--ioengine must be auto, io_uring, libaio or psync");
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  if (opt.stem.empty()) opt.stem = prog;
  if (opt.run_id.empty()) opt.run_id = fmt::format("adhoc-{}-{}", host_name(), utc_timestamp_compact());

  const int jobs = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(opt.physical_cores, opt.profile == Profile::full ? 8 : 4)));
  std::vector<FioCase> all = {
      {"seqread_1m_qd32", "read", 1 << 20, 32, 1, false},
      {"randread_4k_qd1", "randread", 4096, 1, 1, false},
      {fmt::format("randread_4k_qd32x{}", jobs), "randread", 4096, 32, jobs, false},
      {"seqwrite_1m_qd32", "write", 1 << 20, 32, 1, true},
      {"randwrite_4k_qd32", "randwrite", 4096, 32, 1, true},
  };
  std::vector<FioCase> cases;
  try {
    std::regex filter(opt.filter.empty() ? ".*" : opt.filter);
    for (const FioCase& c : all)
      if ((!c.writes || allow_write) && std::regex_search("fio/" + c.name, filter)) cases.push_back(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: bad --filter: %s\n", prog.c_str(), e.what());
    return 2;
  }
  if (opt.list) {
    for (const FioCase& c : cases)
      std::printf("fio/%s\trw=%s;bs=%lld;iodepth=%d;numjobs=%d\n", c.name.c_str(), c.rw.c_str(),
                  static_cast<long long>(c.bs), c.iodepth, c.numjobs);
    return 0;
  }
  if (cases.empty()) {
    std::fprintf(stderr, "%s: no case matches --filter '%s'\n", prog.c_str(), opt.filter.c_str());
    return 2;
  }

  // ---- every refusal before anything is written
  if (file_name.empty()) file_name = fmt::format("rigcheck-fio.{}.dat", ::getpid());
  std::unique_ptr<Scratch> scratch;
  std::string file_path;
  try {
    check_name_syntax(file_name);
    if (!scratch_dir.empty()) {
      // Validate the named directory and the file's path before creating anything.
      Scratch probe(scratch_dir);
      probe.check_new_path(file_name);
      probe.check_free_space(file_size, probe.root() + "/" + file_name);
    }
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  const std::string out = result_path(opt, prog);
  if (out.empty()) return 2;
  const std::string jobs_dir = opt.out_dir + "/" + opt.stem + ".jobs";

  std::unique_ptr<ResultWriter> writer;
  try {
    writer = std::make_unique<ResultWriter>(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return 2;
  }
  RowSink sink{opt.run_id, writer.get()};

  // ---- fio present?
  std::unique_ptr<Fio> fio;
  std::string version;
  try {
    fio = std::make_unique<Fio>(fio_binary);
    version = fio->version();
  } catch (const FioError& e) {
    const bool missing = std::string(e.what()).rfind("fio not found", 0) == 0;
    for (const FioCase& c : cases)
      sink.row("fio", c.name, "", "", NAN, "", -1, missing ? Status::skipped : Status::failed, e.what());
    writer->finish();
    std::fprintf(stderr, "%s %s\n", missing ? "SKIP:" : "FAILED:", e.what());
    return missing ? 77 : 1;
  }

  install_cleanup_handlers();
  int rc = 0;
  try {
    scratch = std::make_unique<Scratch>(scratch_dir);
    uint64_t sum = 0;
    std::fprintf(stderr, "%s: creating %.0f MiB scratch file in %s\n", prog.c_str(), file_size / 1048576.0,
                 scratch->root().c_str());
    file_path = scratch->create_file(file_name, file_size, 0x10f10ULL, &sum);
    // fio's job, JSON and log files: in a directory of this process's own, so that two runs on
    // one --scratch (e.g. /dev/shm) never collide and a killed run's leftovers are named by pid.
    const std::string aux = scratch->create_dir(fmt::format("rigcheck-fio.{}.d", ::getpid()));
    const DeviceInfo dev = device_of(scratch->root());
    if (::mkdir(jobs_dir.c_str(), 0755) != 0)
      throw std::runtime_error(fmt::format("{}: cannot create (it must not exist): {}", jobs_dir, std::strerror(errno)));

    // ---- ioengine: the first that runs here
    std::string engine = ioengine, probe_note;
    std::vector<std::string> engines = ioengine == "auto" ? std::vector<std::string>{"io_uring", "libaio", "psync"}
                                                          : std::vector<std::string>{ioengine};
    engine.clear();
    for (const std::string& e : engines) {
      FioJob pj{"probe_" + e, "read", 4096, 1, 1, e, file_path, "", file_size, 0.05, 0, true, {}};
      const std::string jp = scratch->create_empty(aux + "/probe-" + e + ".fio");
      const std::string jo = scratch->create_empty(aux + "/probe-" + e + ".json");
      const std::string lg = scratch->create_empty(aux + "/probe-" + e + ".log");
      std::FILE* f = std::fopen(jp.c_str(), "w");
      std::fputs(job_file_text(pj).c_str(), f);
      std::fclose(f);
      try {
        fio->run(jp, jo, lg, 60);
        FioResult r = parse_fio_json(jo, "read");
        if (r.error != 0 || r.io_bytes <= 0) throw FioError(fmt::format("error {} after {} bytes", r.error, r.io_bytes));
        engine = e;
        break;
      } catch (const FioError& ex) {
        probe_note += fmt::format("{} failed: {}; ", e, ex.what());
        if (std::string(ex.what()).find("not valid JSON") != std::string::npos ||
            std::string(ex.what()).find("JSON") != std::string::npos) {
          // fio printing something that is not its JSON is not an engine problem: stop here.
          throw;
        }
      }
    }
    if (engine.empty()) throw FioError("no ioengine works here: " + probe_note);
    std::fprintf(stderr, "%s: %s, ioengine %s, %s on %s (%s, %s)\n", prog.c_str(), version.c_str(), engine.c_str(),
                 file_path.c_str(), dev.device.empty() ? dev.source.c_str() : dev.device.c_str(), dev.dev_class.c_str(),
                 dev.fstype.c_str());

    struct State {
      std::string params, job_path;
      int wrong = 0, reps_ok = 0;
      std::vector<double> iops, gbps;
    };
    std::vector<State> st(cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const FioCase& c = cases[i];
      FioJob j{c.name, c.rw, c.bs, c.iodepth, c.numjobs, engine, file_path, "", file_size, runtime, ramp, true, {}};
      st[i].job_path = jobs_dir + "/" + c.name + ".fio";
      write_new_file(st[i].job_path, job_file_text(j));
      st[i].params = format_kv({{"rw", c.rw},
                                    {"bs", std::to_string(c.bs)},
                                    {"iodepth", std::to_string(c.iodepth)},
                                    {"numjobs", std::to_string(c.numjobs)},
                                    {"ioengine", engine},
                                    {"fio_version", version},
                                    {"direct", "1"},
                                    {"file_size", std::to_string(file_size)},
                                    {"runtime_s", fmt::format("{}", runtime)},
                                    {"ramp_s", fmt::format("{}", ramp)},
                                    {"device", dev.device.empty() ? dev.source : dev.device},
                                    {"device_class", dev.dev_class},
                                    {"guide_class", guide_class_of(dev.dev_class)},
                                    {"fstype", dev.fstype},
                                    {"model", param_text(dev.model)},
                                    {"rotational", dev.rotational},
                                    {"class_from", param_text(dev.how)},
                                    {"scratch", param_text(scratch->root())},
                                    {"job_file", opt.stem + ".jobs/" + c.name + ".fio"}});
    }
    // Repetition-major: A B C A B C, so that drift spreads over every case.
    for (int rep = 0; rep < opt.reps; ++rep)
      for (size_t i = 0; i < cases.size(); ++i) {
        const FioCase& c = cases[i];
        const std::string tag = fmt::format("{}-{}", c.name, rep);
        const std::string jo = scratch->create_empty(aux + "/" + tag + ".json");
        const std::string lg = scratch->create_empty(aux + "/" + tag + ".log");
        const std::string dir = c.writes ? "write" : "read";
        try {
          fio->run(st[i].job_path, jo, lg, runtime + ramp + 120);
          FioResult r = parse_fio_json(jo, dir);
          std::string bad;
          if (r.error != 0) bad = fmt::format("fio reports error {}", r.error);
          else if (r.io_bytes <= 0 || r.iops <= 0) bad = "fio moved no data";
          else if (r.jobs != 1) bad = fmt::format("{} job entries despite group_reporting", r.jobs);
          else if (std::fabs(r.bw_bytes * r.runtime_ms / 1000 - r.io_bytes) > 0.05 * r.io_bytes)
            bad = "bw_bytes x runtime differs from io_bytes";
          if (!bad.empty()) {
            ++st[i].wrong;
            sink.row("fio", c.name, st[i].params, "gbps", NAN, "GB/s", rep, Status::failed, "fio's figures rejected: " + bad);
            continue;
          }
          const double load = load_average_1m();
          const std::string note = fmt::format("load average {:.2f}", load);
          sink.row("fio", c.name, st[i].params, "gbps", r.bw_bytes / 1e9, "GB/s", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "iops", r.iops, "IOPS", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "clat_p50", r.clat_p50_ns / 1000, "us", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "clat_p99", r.clat_p99_ns / 1000, "us", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "clat_p999", r.clat_p999_ns / 1000, "us", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "clat_mean", r.clat_mean_ns / 1000, "us", rep, Status::ok, note);
          sink.row("fio", c.name, st[i].params, "io_bytes", r.io_bytes, "B", rep, Status::ok, note);
          st[i].iops.push_back(r.iops);
          st[i].gbps.push_back(r.bw_bytes / 1e9);
          ++st[i].reps_ok;
          std::fprintf(stderr, "  fio/%s rep %d: %.3f GB/s, %.0f IOPS, clat p50 %s us p99 %s us\n", c.name.c_str(), rep,
                       r.bw_bytes / 1e9, r.iops, us(r.clat_p50_ns).c_str(), us(r.clat_p99_ns).c_str());
        } catch (const FioError& e) {
          ++st[i].wrong;
          sink.row("fio", c.name, st[i].params, "gbps", NAN, "GB/s", rep, Status::failed, e.what());
          std::fprintf(stderr, "FAILED: %s --filter '^fio/%s$'   # %s\n", argv[0], c.name.c_str(), e.what());
          if (std::string(e.what()).find("JSON") != std::string::npos) {
            // Broken output will not mend itself: stop asking.
            rep = opt.reps;
            break;
          }
        }
      }
    // Correctness: fio's own figures were checked per run; the scratch file must still hold
    // what was written when only reads ran.
    bool any_write = false;
    for (const FioCase& c : cases) any_write |= c.writes;
    std::string file_check = "not checked (write profiles ran)";
    int file_wrong = 0;
    if (!any_write) {
      std::vector<char> buf(1 << 20);
      std::FILE* f = std::fopen(file_path.c_str(), "rb");
      Checksum64 h;  // as create_file computed it (fread is short only at the end)
      size_t n;
      while (f && (n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(buf.data(), n);
      file_wrong = f && h.digest() == sum ? 0 : 1;
      if (f) std::fclose(f);
      file_check = file_wrong ? "the scratch file's checksum CHANGED during read-only runs"
                              : "the scratch file's checksum is unchanged after the read runs";
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      const int wrong = st[i].wrong + file_wrong;
      const Status s = wrong ? Status::failed : Status::ok;
      sink.row("fio", cases[i].name, st[i].params, "check_wrong", wrong, "count", -1, s,
               fmt::format("{} of {} fio runs rejected (error field, no data, more than one job entry, bw_bytes x runtime vs "
                           "io_bytes beyond 5%); {}; ioengine probe: {}",
                           st[i].wrong, opt.reps, file_check, probe_note.empty() ? engine + " worked first" : probe_note + engine + " worked"));
      if (wrong) rc = 1;
    }
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    for (const FioCase& c : cases) sink.row("fio", c.name, "", "", NAN, "", -1, Status::failed, e.what());
    rc = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAILED: %s\n", e.what());
    try {  // the failure may be the results disk itself: the scratch clean-up below must still run
      for (const FioCase& c : cases) sink.row("fio", c.name, "", "", NAN, "", -1, Status::failed, e.what());
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

int main(int argc, char** argv) { return rigcheck::io::fio_main(argc, argv); }
