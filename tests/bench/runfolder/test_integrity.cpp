// Result files that prove they are whole (SHA-256 and row counts in the manifest,
// verify_run_folder, read_run refusing or leaving out a broken file), notes written on one line,
// the runner's clean-up of a dead benchmark's registered scratch, and the report's one-minute
// verdict table (short reasons, the GEMM headline).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/report/report_util.hpp"
#include "rigcheck/run/runner.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;

namespace {
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void spit(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string fresh_dir(const std::string& name) {
  static int n = 0;
  fs::path d = fs::path(::testing::TempDir()) /
               ("integrity-" + name + "-" + std::to_string(getpid()) + "-" + std::to_string(n++));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

// A run folder as the runner leaves it: the inventory of a fixture run, two result files, and a
// manifest with each file's rows and SHA-256 (as the runner records them), plus a skipped one.
std::string checksummed_run(const std::string& name) {
  const std::string d = fresh_dir(name);
  const fs::path good = fs::path(RIGCHECK_FIXTURES) / "runs" / "good";
  for (const char* f : {"inventory.csv", "cpu_peak.csv", "cpu_gemm.csv"}) fs::copy_file(good / f, fs::path(d) / f);
  std::vector<ManifestRow> m(3);
  m[0].benchmark = "cpu_peak", m[1].benchmark = "cpu_gemm", m[2].benchmark = "cpu_isa_native";
  for (ManifestRow& r : m) r.area = "cpu", r.command = "bin/" + r.benchmark, r.status = "ok";
  m[0].output = "cpu_peak.csv", m[1].output = "cpu_gemm.csv";
  m[2].status = "skipped", m[2].reason = "needs isa_avx512f=yes (this machine: no)";
  for (ManifestRow& r : m) {
    if (r.output.empty()) continue;
    FileDigest dg = digest_file(d + "/" + r.output);
    r.rows = dg.rows;
    r.sha256 = dg.sha256;
  }
  spit(d + "/manifest.csv", format_manifest(m));
  return d;
}

const FileIntegrity& state_of(const IntegrityReport& r, std::string_view file) {
  for (const FileIntegrity& f : r.files)
    if (f.file == file) return f;
  throw std::runtime_error("no integrity entry for " + std::string(file));
}

// read_run's refusal: its message names the file, and says what differs.
std::string refusal(const std::string& dir) {
  try {
    read_run(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ResultRows, NotesAreWrittenOnOneLine) {
  ResultRow r;
  r.run_id = "t", r.benchmark = "b", r.case_name = "c", r.params = "n=1", r.metric = "check_wrong", r.unit = "count";
  r.value = 0;
  r.status = Status::failed;
  r.note = "oneDNN said:\nline two\r\nline three\n";
  const std::string line = format_result_row(r);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  const std::string d = fresh_dir("oneline");
  spit(d + "/x.csv", result_header() + "\n" + line + "\n");
  auto rows = read_results(d + "/x.csv");  // a note with a line break used to make a file the reader refuses
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].note, "oneDNN said: | line two | line three | ");
  EXPECT_EQ(one_line("a\r\nb\nc"), "a | b | c");
  EXPECT_EQ(one_line("no break"), "no break");
}

TEST(Manifest, ChecksumsRoundTripAndOldManifestsStillRead) {
  const std::string d = fresh_dir("manifest");
  ManifestRow r;
  r.benchmark = "cpu_gemm", r.area = "cpu", r.command = "x", r.status = "ok", r.output = "cpu_gemm.csv";
  r.reason = "two\nlines";
  r.rows = 24;
  r.sha256 = std::string(64, 'a');
  spit(d + "/m.csv", format_manifest({r}));
  auto back = read_manifest(d + "/m.csv");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].rows, 24);
  EXPECT_EQ(back[0].sha256, r.sha256);
  EXPECT_EQ(back[0].reason, "two | lines");
  // A manifest written before checksums has neither column.
  auto old = read_manifest(std::string(RIGCHECK_FIXTURES) + "/runs/good/manifest.csv");
  ASSERT_FALSE(old.empty());
  for (const ManifestRow& m : old) EXPECT_TRUE(m.rows == -1 && m.sha256.empty());
  // Malformed checksums are refused with the file and the line.
  const std::string h = kManifestHeader;
  for (auto [row, why] : std::vector<std::pair<std::string, std::string>>{
           {"b,cpu,x,0,ok,1,b.csv,,12,ABC", "sha256 'ABC' is not 64 lowercase hex digits"},
           {"b,cpu,x,0,ok,1,b.csv,,-1," + std::string(64, 'a'), "rows '-1' is not a count of rows"},
           {"b,cpu,x,0,ok,1,b.csv,,12,", "rows and sha256 come together"},
           {"b,cpu,x,0,ok,1,,,12," + std::string(64, 'a'), "a checksum without an output file"}}) {
    spit(d + "/bad.csv", h + "\n" + row + "\n");
    try {
      read_manifest(d + "/bad.csv");
      ADD_FAILURE() << "accepted: " << row;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 2) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

TEST(Integrity, AnUntouchedFolderIsVerified) {
  const std::string d = checksummed_run("untouched");
  IntegrityReport rep = verify_run_folder(d);
  EXPECT_TRUE(rep.ok());
  EXPECT_EQ(rep.count(FileState::verified), 2u);
  EXPECT_EQ(rep.summary(), "2 of 2 result files verified (rows and SHA-256 as the manifest recorded them)");
  RunData run = read_run(d);
  EXPECT_EQ(run.result_files.size(), 2u);
  EXPECT_TRUE(run.excluded.empty());
}

TEST(Integrity, ACutFileIsRefusedNamingItAndTheCut) {
  const std::string d = checksummed_run("cut");
  const std::string f = d + "/cpu_gemm.csv", s = slurp(f);
  const size_t second_row = s.find('\n', s.find('\n') + 1);
  spit(f, s.substr(0, second_row + 20));  // in the middle of the second data row, no newline at the end
  EXPECT_EQ(state_of(verify_run_folder(d), "cpu_gemm.csv").state, FileState::broken);
  const std::string why = refusal(d);
  EXPECT_NE(why.find(f + ": cut: it ends in the middle of a row"), std::string::npos) << why;
  EXPECT_NE(why.find("1 whole rows before it, the manifest recorded 128"), std::string::npos) << why;
  // Cut at a row boundary (a newline at the end): the row count tells.
  spit(f, s.substr(0, second_row + 1));
  EXPECT_NE(refusal(d).find("1 rows, the manifest recorded 128: rows were removed after the run"), std::string::npos)
      << refusal(d);
}

TEST(Integrity, AnEditedRowIsRefused) {
  const std::string d = checksummed_run("edited");
  const std::string f = d + "/cpu_peak.csv";
  std::string s = slurp(f);
  const size_t at = s.find(",gflops,") + 8;
  s[at] = s[at] == '9' ? '8' : '9';  // one digit of one measurement
  spit(f, s);
  const std::string why = refusal(d);
  EXPECT_NE(
      why.find(f + ": edited after the run: the 28 rows the manifest recorded are there, but the content differs"),
      std::string::npos)
      << why;
}

TEST(Integrity, ADeletedOrAddedFileIsRefused) {
  const std::string d = checksummed_run("deleted");
  fs::remove(d + "/cpu_peak.csv");
  std::string why = refusal(d);
  EXPECT_NE(why.find(d + "/cpu_peak.csv: missing: the manifest says cpu_peak wrote it (28 rows"), std::string::npos)
      << why;
  const std::string e = checksummed_run("added");
  fs::copy_file(e + "/cpu_gemm.csv", e + "/extra.csv");
  why = refusal(e);
  EXPECT_NE(why.find(e + "/extra.csv: not in the manifest: no benchmark of this run wrote it"), std::string::npos)
      << why;
}

TEST(Integrity, ExcludeBrokenLeavesTheFileOutAndSaysWhy) {
  const std::string d = checksummed_run("exclude");
  std::string s = slurp(d + "/cpu_gemm.csv");
  spit(d + "/cpu_gemm.csv", s.substr(0, s.size() - 10));
  ReadRunOptions o;
  o.exclude_broken = true;
  RunData run = read_run(d, o);
  ASSERT_EQ(run.excluded.size(), 1u);
  EXPECT_EQ(run.excluded[0].rfind("cpu_gemm.csv: cut:", 0), 0u) << run.excluded[0];
  EXPECT_EQ(run.result_files, std::vector<std::string>{"cpu_peak.csv"});
  for (const ResultRow& r : run.results) EXPECT_NE(r.source, "cpu_gemm");
  bool warned = false;
  for (const std::string& w : report_warnings(run))
    warned = warned || w.find("left out of every verdict (--exclude-broken): cpu_gemm.csv") == 0;
  EXPECT_TRUE(warned);
}

// A run's files in memory (RunFiles: how a run is read from the results store) are verified and read
// by the same code as the folder: the same rows and integrity; an edited or missing file refused alike.
TEST(Integrity, FilesInMemoryAreVerifiedAndReadAsTheFolder) {
  const std::string d = checksummed_run("memory");
  RunFiles mem{d + "-in-memory", true, {}, {}};
  for (const auto& e : fs::directory_iterator(d)) mem.files[e.path().filename().string()] = slurp(e.path().string());
  const RunData disk = read_run(d), in = read_run(mem);
  auto rows = [](const RunData& r) {
    std::string s;
    for (const ResultRow& x : r.results) s += x.source + ": " + format_result_row(x) + "\n";
    return s;
  };
  EXPECT_EQ(in.dir, mem.dir);
  EXPECT_EQ(in.inventory, disk.inventory);
  EXPECT_EQ(in.result_files, disk.result_files);
  EXPECT_EQ(in.manifest.size(), disk.manifest.size());
  EXPECT_EQ(in.integrity.count(FileState::verified), 2u);
  EXPECT_EQ(in.integrity.summary(), disk.integrity.summary());
  EXPECT_FALSE(in.results.empty());
  EXPECT_EQ(rows(in), rows(disk));
  std::string& peak = mem.files["cpu_peak.csv"];
  peak.replace(peak.rfind(",ok,"), 4, ",OK,");
  const std::string why = [&] {
    try {
      read_run(mem);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(why.find(mem.dir + "/cpu_peak.csv"), std::string::npos) << why;
  EXPECT_NE(why.find("edited after the run"), std::string::npos) << why;
  mem.files.erase("cpu_peak.csv");
  EXPECT_NE(state_of(verify_run_folder(mem), "cpu_peak.csv").why.find("missing"), std::string::npos);
}

TEST(Integrity, FoldersWrittenBeforeChecksumsAreNotVerifiableNeverRefused) {
  const fs::path good = fs::path(RIGCHECK_FIXTURES) / "runs" / "good";
  IntegrityReport rep = verify_run_folder(good.string());
  EXPECT_TRUE(rep.ok());
  EXPECT_EQ(rep.count(FileState::not_verifiable), 2u);
  EXPECT_EQ(rep.summary(), "not verifiable (written before checksums): cpu_gemm.csv, cpu_peak.csv");
  // No manifest at all (a synthetic fixture): not verifiable either.
  IntegrityReport none = verify_run_folder((fs::path(RIGCHECK_FIXTURES) / "runs" / "avx512_synthetic").string());
  EXPECT_TRUE(none.ok());
  for (const FileIntegrity& f : none.files) EXPECT_EQ(f.why, "not verifiable (no manifest.csv in the folder)");
  // But a cut file is cut, checksums or not: a finished CSV ends with a newline.
  const std::string d = fresh_dir("old-cut");
  fs::copy(good, d, fs::copy_options::recursive);
  std::string s = slurp(d + "/cpu_gemm.csv");
  spit(d + "/cpu_gemm.csv", s.substr(0, s.size() - 5));
  EXPECT_NE(refusal(d).find("cpu_gemm.csv: cut: it ends in the middle of a row"), std::string::npos) << refusal(d);
}

TEST(Integrity, ABenchmarkStillRunningHasNoFileToCheck) {
  const std::string d = checksummed_run("running");
  auto m = read_manifest(d + "/manifest.csv");
  m[2].status = "running";
  m[2].output = "cpu_isa_native.csv";  // named while it runs; only a .partial exists yet
  spit(d + "/manifest.csv", format_manifest(m));
  EXPECT_TRUE(verify_run_folder(d).ok());
}

TEST(Report, VerdictTableLinesAreShortAndTheHeadlineNamesAGemm) {
  const std::string d = fresh_dir("report");
  fs::copy(fs::path(RIGCHECK_FIXTURES) / "runs" / "good", d, fs::copy_options::recursive);
  ReportOptions o;
  o.quiet = true;
  std::vector<Claim> claims = read_claims(std::string(RIGCHECK_FIXTURES) + "/../../data/claims.csv");
  std::vector<Verdict> vs = make_report(d, o);
  ASSERT_EQ(vs.size(), claims.size());
  for (size_t i = 0; i < vs.size(); ++i) {
    const std::string s = verdict_summary(claims[i], vs[i]);
    EXPECT_FALSE(s.empty()) << claims[i].id;
    EXPECT_LE(s.size(), 300u) << claims[i].id << ": " << s;
  }
  const std::string md = slurp(d + "/report.md");
  EXPECT_NE(md.find("Result files: not verifiable (written before checksums): cpu_gemm.csv, cpu_peak.csv."),
            std::string::npos);
  EXPECT_NE(md.find("**What this machine is good for.**"), std::string::npos);
  EXPECT_NE(md.find("| [CPU-1](#cpu-1) | "), std::string::npos);
  EXPECT_NE(md.find("\n### CPU-1\n"), std::string::npos);
  const size_t best = md.find("Best f32 GEMM at 2 threads: ");
  ASSERT_NE(best, std::string::npos) << md;
  EXPECT_EQ(md.compare(md.find("(", best), 6, "(gemm_"), 0) << md.substr(best, 200);
  EXPECT_EQ(md.find("Above the measured peak"), std::string::npos);
  // A peak below the GEMM: said, not passed over.
  std::string peak = slurp(d + "/cpu_peak.csv"), scaled;
  std::istringstream in(peak);
  for (std::string line; std::getline(in, line);) {
    auto f = [&](int k) {
      size_t p = 0;
      for (int i = 0; i < k; ++i) p = line.find(',', p) + 1;
      return p;
    };
    if (line.find(",gflops,") != std::string::npos) {
      const size_t a = f(6), b = line.find(',', a);
      line = line.substr(0, a) + format_double(std::stod(line.substr(a, b - a)) / 4) + line.substr(b);
    }
    scaled += line + "\n";
  }
  spit(d + "/cpu_peak.csv", scaled);
  make_report(d, o);
  EXPECT_NE(
      slurp(d + "/report.md").find("**Above the measured peak**: this GEMM ran faster than the suite's FMA kernel"),
      std::string::npos);
}

TEST(Runner, RecoveredDeadRunGetsTheChecksumOfItsSalvagedFile) {
  const std::string d = checksummed_run("recovered");
  auto m = read_manifest(d + "/manifest.csv");
  m[2].status = "running";
  m[2].output = "cpu_isa_native.csv";
  spit(d + "/manifest.csv", format_manifest(m));
  const std::string s = slurp(d + "/cpu_gemm.csv");
  spit(d + "/cpu_isa_native.csv.partial", s.substr(0, s.size() - 7));  // the runner died mid-row
  EXPECT_NE(recover_dead_run(d), "");
  auto after = read_manifest(d + "/manifest.csv");
  EXPECT_EQ(after[2].status, "interrupted");
  EXPECT_EQ(after[2].rows, 127);  // its whole rows, kept and marked cut short
  EXPECT_NE(after[2].reason.find("cut short: kept the 127 rows"), std::string::npos) << after[2].reason;
  EXPECT_TRUE(verify_run_folder(d).ok()) << verify_run_folder(d).summary();
}

TEST(Runner, RegisteredScratchIsRemovedOnlyWhenItIsTheSuites) {
  const std::string root = fresh_dir("scratch"), other = fresh_dir("scratch-other");
  const std::string reg = root + "/registry";
  fs::create_directories(root + "/rigcheck-io.abc/sub");
  spit(root + "/rigcheck-io.abc/sub/f", "x");
  spit(root + "/rigcheck-fio.1.dat", "x");
  spit(root + "/mine.dat", "x");
  spit(other + "/rigcheck-x.dat", "x");
  fs::create_symlink(other, root + "/rigcheck-link");
  spit(reg, root + "/rigcheck-io.abc\n" + root + "/rigcheck-io.abc/sub/f\n" + root + "/rigcheck-fio.1.dat\n" + root +
                "/mine.dat\n" + other + "/rigcheck-x.dat\n" + root + "/rigcheck-link\n" + root +
                "/../x/rigcheck-y\nrelative/rigcheck-z\n" + root + "/rigcheck-gone\n");
  ScratchCleanup named = remove_registered_scratch(reg, {root}, false);
  EXPECT_TRUE(named.removed.empty());
  EXPECT_TRUE(fs::exists(root + "/rigcheck-fio.1.dat"));
  ScratchCleanup c = remove_registered_scratch(reg, {root});
  EXPECT_EQ(c.removed, (std::vector<std::string>{root + "/rigcheck-io.abc", root + "/rigcheck-fio.1.dat"}));
  EXPECT_FALSE(fs::exists(root + "/rigcheck-io.abc"));
  EXPECT_TRUE(fs::exists(root + "/mine.dat"));           // not the suite's name
  EXPECT_TRUE(fs::exists(other + "/rigcheck-x.dat"));    // not in a scratch root
  EXPECT_TRUE(fs::is_symlink(root + "/rigcheck-link"));  // never a symbolic link, never followed
  std::string kept;
  for (const std::string& k : c.kept) kept += k + "\n";
  EXPECT_NE(kept.find("rigcheck-x.dat: not directly in a scratch root"), std::string::npos) << kept;
  EXPECT_NE(kept.find("rigcheck-link: not a regular file or a directory"), std::string::npos) << kept;
  EXPECT_NE(kept.find("/../x/rigcheck-y: not a plain absolute path"), std::string::npos) << kept;
  EXPECT_NE(kept.find("relative/rigcheck-z: not a plain absolute path"), std::string::npos) << kept;
  EXPECT_EQ(scratch_roots_of({"io_fio", "--scratch", "/dev/shm"}), std::vector<std::string>{"/dev/shm"});
}
