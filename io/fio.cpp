// io_fio: storage bandwidth, IOPS and completion latency measured by Debian's real fio on a
// scratch file this program creates (IO-2). Profiles: 1 MiB sequential read at queue depth 32,
// 4 KiB random read at QD 1 and at QD 32 x jobs; writes only with --allow-write. The ioengine
// is the first of io_uring, libaio, psync that works here. Safety rules: io/scratch.hpp.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "device.hpp"
#include "fio_driver.hpp"
#include "io_common.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/session.hpp"
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

struct FioOptions {
  std::string scratch_dir, file_name, fio_binary = "fio", ioengine = "auto", file_size_s, runtime_spec, ramp_spec;
  bool allow_write = false;
  int64_t file_size = 0;
  double runtime = 0, ramp = 0;
};

void add_options(CLI::App& app, FioOptions& f) {
  app.add_option("--scratch", f.scratch_dir,
                 "existing directory for the scratch file (default: a new temporary directory under $TMPDIR or "
                 "/var/tmp); only files created here by this program are touched, and removed at the end");
  app.add_option("--file", f.file_name,
                 "name of the scratch file inside --scratch (must not exist; default "
                 "rigcheck-fio.<pid>.dat)");
  app.add_option("--fio-binary", f.fio_binary, "fio executable (a name looked up in PATH, or a path)")
      ->capture_default_str();
  app.add_option("--ioengine", f.ioengine, "auto (first of io_uring, libaio, psync that works) or one of them")
      ->capture_default_str();
  app.add_option("--file-size", f.file_size_s, "scratch file size (default: tiny 16M, quick 256M, full 1G)");
  app.add_option("--runtime", f.runtime_spec, "seconds fio measures per run (default: tiny 0.3, quick 0.3, full 3)");
  app.add_option("--ramp", f.ramp_spec, "seconds of ramp before measuring (default: tiny 0, quick 0.1, full 1)");
  app.add_flag("--allow-write", f.allow_write,
               "also run the write profiles (sequential and random write on the "
               "scratch file)");
}

void validate(FioOptions& f, Profile p) {
  const int i = static_cast<int>(p);
  f.file_size =
      f.file_size_s.empty() ? std::array<int64_t, 3>{16 << 20, 256 << 20, 1 << 30}[i] : parse_size(f.file_size_s);
  f.runtime = f.runtime_spec.empty() ? std::array<double, 3>{0.3, 0.3, 3}[i] : std::stod(f.runtime_spec);
  f.ramp = f.ramp_spec.empty() ? std::array<double, 3>{0, 0.1, 1}[i] : std::stod(f.ramp_spec);
  if (!(f.runtime > 0) || f.ramp < 0) throw std::invalid_argument("--runtime must be > 0 and --ramp >= 0");
  if (f.file_size < (4 << 20)) throw std::invalid_argument("--file-size must be at least 4M");
  if (f.ioengine != "auto" && f.ioengine != "io_uring" && f.ioengine != "libaio" && f.ioengine != "psync")
    throw std::invalid_argument("--ioengine must be auto, io_uring, libaio or psync");
}

// The profiles. QD32 x jobs: one job per usable core (affinity mask and cgroup quota), at most 4
// (8 in the full profile).
std::vector<FioCase> plan(const Session& session, bool allow_write) {
  const CommonOptions& opt = session.options();
  const int jobs =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(opt.usable_cores, opt.profile == Profile::full ? 8 : 4)));
  std::vector<FioCase> all = {
      {"seqread_1m_qd32", "read", 1 << 20, 32, 1, false},
      {"randread_4k_qd1", "randread", 4096, 1, 1, false},
      {fmt::format("randread_4k_qd32x{}", jobs), "randread", 4096, 32, jobs, false},
      {"seqwrite_1m_qd32", "write", 1 << 20, 32, 1, true},
      {"randwrite_4k_qd32", "randwrite", 4096, 32, 1, true},
  };
  std::vector<FioCase> cases;
  for (const FioCase& c : all)
    if ((!c.writes || allow_write) && session.selected(names::kFio, c.name)) cases.push_back(c);
  return cases;
}

// The first ioengine of `engines` that reads the file here. Throws FioError when none does, or at
// once when fio's output is not its JSON (not an engine problem).
std::string probe_engine(Fio& fio, Scratch& scratch, const std::string& aux, const FioOptions& f,
                         const std::string& file_path, bool direct, std::string& probe_note) {
  std::vector<std::string> engines = f.ioengine == "auto" ? std::vector<std::string>{"io_uring", "libaio", "psync"}
                                                          : std::vector<std::string>{f.ioengine};
  for (const std::string& e : engines) {
    FioJob pj{"probe_" + e, "read", 4096, 1, 1, e, file_path, "", f.file_size, 0.05, 0, direct, {}};
    const std::string jp = scratch.create_empty(aux + "/probe-" + e + ".fio");
    const std::string jo = scratch.create_empty(aux + "/probe-" + e + ".json");
    const std::string lg = scratch.create_empty(aux + "/probe-" + e + ".log");
    std::FILE* out = std::fopen(jp.c_str(), "w");
    std::fputs(job_file_text(pj).c_str(), out);
    std::fclose(out);
    try {
      fio.run(jp, jo, lg, 60);
      FioResult r = parse_fio_json(jo, "read");
      if (r.error != 0 || r.io_bytes <= 0) throw FioError(fmt::format("error {} after {} bytes", r.error, r.io_bytes));
      return e;
    } catch (const FioError& ex) {
      probe_note += fmt::format("{} failed: {}; ", e, ex.what());
      if (std::string(ex.what()).find("JSON") != std::string::npos) throw;
    }
  }
  throw FioError("no ioengine works here: " + probe_note);
}

struct CaseState {
  std::string params, job_path;
  std::string direct_note;  // why the reads are buffered (DirectIo::note); "" when direct
  int wrong = 0, reps_ok = 0;
};

// Why fio's figures of one run are not to be trusted; "" when they are.
std::string rejected_because(const FioResult& r) {
  if (r.error != 0) return fmt::format("fio reports error {}", r.error);
  if (r.io_bytes <= 0 || r.iops <= 0) return "fio moved no data";
  if (r.jobs != 1) return fmt::format("{} job entries despite group_reporting", r.jobs);
  if (std::fabs(r.bw_bytes * r.runtime_ms / 1000 - r.io_bytes) > 0.05 * r.io_bytes)
    return fmt::format("bw_bytes x runtime differs from io_bytes ({:.0f} B/s x {:.0f} ms against {:.0f} B)", r.bw_bytes,
                       r.runtime_ms, r.io_bytes);
  return "";
}

// fio's figures of one run, checked, as rows; "" when accepted, else why they were rejected.
// `retried`: why the first try of this repetition was rejected (it is run again once: see run_cases).
std::string record_run(Session& s, const FioCase& c, const CaseState& st, const FioResult& r, int rep,
                       const std::string& retried = "") {
  const std::string bad = rejected_because(r);
  if (!bad.empty()) {
    s.row(names::kFio, c.name, st.params, names::kGbps, NAN, "GB/s", rep, Status::failed,
          "fio's figures rejected: " + bad + (retried.empty() ? "" : " (a second try; the first: " + retried + ")"));
    return bad;
  }
  // fio times itself: under an emulator (a whole machine under QEMU's TCG) its figures are the
  // emulator's, mistrusted as every harness-timed row is (trust_emulated).
  std::string emulated;
  const Status status = trust_emulated(&emulated);
  const std::string note =
      (emulated.empty() ? std::string() : emulated + "; ") +
      fmt::format("load average {:.2f}{}{}", load_average_1m(),
                  retried.empty() ? "" : "; a second try: the first was rejected (" + retried + ")",
                  st.direct_note.empty() ? "" : "; " + st.direct_note);
  s.row(names::kFio, c.name, st.params, names::kGbps, r.bw_bytes / 1e9, "GB/s", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kIops, r.iops, "IOPS", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kClatP50, r.clat_p50_ns / 1000, "us", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kClatP99, r.clat_p99_ns / 1000, "us", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kClatP999, r.clat_p999_ns / 1000, "us", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kClatMean, r.clat_mean_ns / 1000, "us", rep, status, note);
  s.row(names::kFio, c.name, st.params, names::kIoBytes, r.io_bytes, "B", rep, status, note);
  std::fprintf(stderr, "  fio/%s rep %d: %.3f GB/s, %.0f IOPS, clat p50 %s us p99 %s us\n", c.name.c_str(), rep,
               r.bw_bytes / 1e9, r.iops, us(r.clat_p50_ns).c_str(), us(r.clat_p99_ns).c_str());
  return "";
}

// The scratch file's checksum after read-only runs: 1 when it changed, 0 when not; the words in *how.
int check_file(const std::string& file_path, uint64_t sum, const std::vector<FioCase>& cases, std::string* how) {
  for (const FioCase& c : cases)
    if (c.writes) {
      *how = "not checked (write profiles ran)";
      return 0;
    }
  std::vector<char> buf(1 << 20);
  std::FILE* f = std::fopen(file_path.c_str(), "rb");
  Checksum64 h;  // as create_file computed it (fread is short only at the end)
  size_t n;
  while (f && (n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(buf.data(), n);
  const int wrong = f && h.digest() == sum ? 0 : 1;
  if (f) std::fclose(f);
  *how = wrong ? "the scratch file's checksum CHANGED during read-only runs"
               : "the scratch file's checksum is unchanged after the read runs";
  return wrong;
}

// What a case's rows say of it: the job, fio's version and engine, and the device and file it read.
std::string case_params(const FioCase& c, const FioOptions& f, const std::string& engine, const std::string& version,
                        bool direct, const DeviceInfo& dev, const std::string& scratch_root, const std::string& stem) {
  return format_params({{"rw", c.rw},
                        {"bs", std::to_string(c.bs)},
                        {"iodepth", std::to_string(c.iodepth)},
                        {"numjobs", std::to_string(c.numjobs)},
                        {"ioengine", engine},
                        {"fio_version", version},
                        {"direct", direct ? "1" : "0"},
                        {"file_size", std::to_string(f.file_size)},
                        {"runtime_s", fmt::format("{}", f.runtime)},
                        {"ramp_s", fmt::format("{}", f.ramp)},
                        {"device", dev.device.empty() ? dev.source : dev.device},
                        {"device_class", dev.dev_class},
                        {"guide_class", guide_class_of(dev.dev_class)},
                        {"fstype", dev.fstype},
                        {"model", param_text(dev.model)},
                        {"rotational", dev.rotational},
                        {"class_from", param_text(dev.how)},
                        {"scratch", param_text(scratch_root)},
                        {"job_file", stem + ".jobs/" + c.name + ".fio"}});
}

// Creates the scratch file, probes the engine, runs every case repetition-major (A B C A B C, so
// that drift spreads over every case), checks the file, writes the rows.
void measure(Session& s, const FioOptions& f, const std::vector<FioCase>& cases, Fio& fio, const std::string& version,
             std::unique_ptr<Scratch>& scratch) {
  const CommonOptions& opt = s.options();
  const std::string file_name = f.file_name.empty() ? fmt::format("rigcheck-fio.{}.dat", ::getpid()) : f.file_name;
  const std::string jobs_dir = opt.out_dir + "/" + opt.stem + ".jobs";
  scratch = std::make_unique<Scratch>(f.scratch_dir);
  uint64_t sum = 0;
  std::fprintf(stderr, "%s: creating %.0f MiB scratch file in %s\n", s.prog().c_str(), f.file_size / 1048576.0,
               scratch->root().c_str());
  const std::string file_path = scratch->create_file(file_name, f.file_size, 0x10f10ULL, &sum);
  // fio's job, JSON and log files: in a directory of this process's own, so that two runs on
  // one --scratch (e.g. /dev/shm) never collide and a killed run's leftovers are named by pid.
  const std::string aux = scratch->create_dir(fmt::format("rigcheck-fio.{}.d", ::getpid()));
  const DeviceInfo dev = device_of(scratch->root());
  if (::mkdir(jobs_dir.c_str(), 0755) != 0)
    throw std::runtime_error(fmt::format("{}: cannot create (it must not exist): {}", jobs_dir, std::strerror(errno)));
  const DirectIo dio = direct_io_plan(o_direct_refused(file_path), dev.dev_class);
  if (!dio.skip.empty()) {
    std::fprintf(stderr, "%s: %s\n", s.prog().c_str(), dio.skip.c_str());
    for (const FioCase& c : cases) {
      s.row(names::kFio, c.name, "", "", NAN, "", -1, Status::skipped, dio.skip);
      s.case_skipped(dio.skip);
    }
    return;
  }
  if (!dio.note.empty()) std::fprintf(stderr, "%s: %s\n", s.prog().c_str(), dio.note.c_str());
  std::string probe_note;
  const std::string engine = probe_engine(fio, *scratch, aux, f, file_path, dio.direct, probe_note);
  std::fprintf(stderr, "%s: %s, ioengine %s, %s on %s (%s, %s)\n", s.prog().c_str(), version.c_str(), engine.c_str(),
               file_path.c_str(), dev.device.empty() ? dev.source.c_str() : dev.device.c_str(), dev.dev_class.c_str(),
               dev.fstype.c_str());

  std::vector<CaseState> st(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const FioCase& c = cases[i];
    FioJob j{c.name, c.rw,        c.bs,      c.iodepth, c.numjobs,  engine, file_path,
             "",     f.file_size, f.runtime, f.ramp,    dio.direct, {}};
    st[i].job_path = jobs_dir + "/" + c.name + ".fio";
    st[i].direct_note = dio.note;
    write_new_file(st[i].job_path, job_file_text(j));
    st[i].params = case_params(c, f, engine, version, dio.direct, dev, scratch->root(), opt.stem);
  }
  bool broken_output = false;
  for (int rep = 0; rep < opt.reps && !broken_output; ++rep)
    for (size_t i = 0; i < cases.size() && !broken_output; ++i) {
      const FioCase& c = cases[i];
      const std::string tag = fmt::format("{}-{}", c.name, rep);
      const std::string jo = scratch->create_empty(aux + "/" + tag + ".json");
      const std::string lg = scratch->create_empty(aux + "/" + tag + ".log");
      try {
        fio.run(st[i].job_path, jo, lg, f.runtime + f.ramp + 120);
        FioResult r = parse_fio_json(jo, c.writes ? "write" : "read");
        // fio's own figures disagreeing with each other once (1 run in about 50 at 0.5 s on the
        // 2-vCPU VM's tmpfs, 2026-12-05) is not the device's answer: the repetition is run again
        // once, and the row says so; twice is a failure.
        std::string first = rejected_because(r);
        if (!first.empty()) {
          fio.run(st[i].job_path, jo, lg, f.runtime + f.ramp + 120);
          r = parse_fio_json(jo, c.writes ? "write" : "read");
        }
        if (record_run(s, c, st[i], r, rep, first).empty())
          ++st[i].reps_ok;
        else
          ++st[i].wrong;
      } catch (const FioError& e) {
        ++st[i].wrong;
        s.row(names::kFio, c.name, st[i].params, names::kGbps, NAN, "GB/s", rep, Status::failed, e.what());
        // Broken output will not mend itself: stop asking.
        broken_output = std::string(e.what()).find("JSON") != std::string::npos;
      }
    }
  std::string file_check;
  const int file_wrong = check_file(file_path, sum, cases, &file_check);
  for (size_t i = 0; i < cases.size(); ++i) {
    const int wrong = st[i].wrong + file_wrong;
    const std::string note = fmt::format(
        "{} of {} fio runs rejected (error field, no data, more than one job entry, bw_bytes x runtime vs "
        "io_bytes beyond 5%); {}; ioengine probe: {}{}",
        st[i].wrong, opt.reps, file_check,
        probe_note.empty() ? engine + " worked first" : probe_note + engine + " worked",
        dio.note.empty() ? "" : "; " + dio.note);
    s.row(names::kFio, cases[i].name, st[i].params, names::kCheckWrong, wrong, "count", -1,
          wrong ? Status::failed : Status::ok, note);
    if (wrong)
      s.case_failed(names::kFio, cases[i].name, note);
    else
      s.case_ok();
  }
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh), and the
// benchmark names it writes.
const bool entry_io_fio_disk = declare_entry(
    {"io_fio_disk", "io", "", "", "", 60, 120, 900,
     R"(fio (Debian's) on a scratch file in a new directory under /var/tmp: 1 MiB sequential read QD32, 4 KiB
random read QD1 and QD32 x jobs (IO-2))"});
const bool entry_io_fio_tmpfs =
    declare_entry({"io_fio_tmpfs", "io", "--scratch /dev/shm", "", "", 60, 120, 900,
                   "the same fio profiles on tmpfs (/dev/shm): the guide's RAM disk row (IO-2)"});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(Debian's real fio on a scratch file it creates: 1 MiB sequential read QD32, 4 KiB random read QD1 and
QD32 x jobs (writes only with `--allow-write`); GB/s, IOPS, completion latency p50/p99/p99.9; ioengine
io_uring, else libaio, else psync; the device class from sysfs. Run twice: a new directory under
`/var/tmp` (the disk) and `/dev/shm` (tmpfs, the RAM disk row))",
     "IO-2"});
const bool writes = declare_writes({names::kFio});

int fio_main(int argc, char** argv) {
  SharedOptions shared;
  shared.threads = shared.sizes = shared.min_time = false;  // fio's runs are timed by --runtime
  shared.reps[0] = 2, shared.reps[1] = 3, shared.reps[2] = 5;
  Session s(argv[0], "io_fio: fio sequential/random read bandwidth, IOPS and latency on a scratch file (IO-2)", shared);
  FioOptions f;
  add_options(s.app(), f);
  if (auto rc = s.parse(argc, argv, [&] { validate(f, s.options().profile); })) return *rc;
  const std::vector<FioCase> cases = plan(s, f.allow_write);
  if (s.listing()) {
    for (const FioCase& c : cases)
      s.list_case(names::kFio, c.name,
                  fmt::format("rw={};bs={};iodepth={};numjobs={}", c.rw, c.bs, c.iodepth, c.numjobs));
    return kExitOk;
  }
  if (auto rc = s.require_cases(cases.size())) return *rc;

  // ---- every refusal before anything is written
  try {
    const std::string name = f.file_name.empty() ? fmt::format("rigcheck-fio.{}.dat", ::getpid()) : f.file_name;
    check_name_syntax(name);
    if (!f.scratch_dir.empty()) {
      // Validate the named directory and the file's path before creating anything.
      Scratch probe(f.scratch_dir);
      probe.check_new_path(name);
      probe.check_free_space(f.file_size, probe.root() + "/" + name);
    }
  } catch (const Refusal& e) {
    std::fprintf(stderr, "%s: %s\n", s.prog().c_str(), e.what());
    return kExitUsage;
  }
  if (!s.open_results()) return kExitUsage;

  // ---- fio present?
  std::unique_ptr<Fio> fio;
  std::string version;
  try {
    fio = std::make_unique<Fio>(f.fio_binary);
    version = fio->version();
  } catch (const FioError& e) {
    const bool missing = std::string(e.what()).rfind("fio not found", 0) == 0;
    return s.run([&] {
      for (const FioCase& c : cases) {
        s.row(names::kFio, c.name, "", "", NAN, "", -1, missing ? Status::skipped : Status::failed, e.what());
        if (missing)
          s.case_skipped(e.what());
        else
          s.case_failed(names::kFio, c.name, e.what());
      }
    });
  }

  install_cleanup_handlers();
  std::unique_ptr<Scratch> scratch;
  return run_measure(
      s, scratch, [&] { measure(s, f, cases, *fio, version, scratch); },
      [&](const std::string& why) {
        for (const FioCase& c : cases) s.row(names::kFio, c.name, "", "", NAN, "", -1, Status::failed, why);
      });
}

}  // namespace
}  // namespace rigcheck::io

int main(int argc, char** argv) { return rigcheck::io::fio_main(argc, argv); }
