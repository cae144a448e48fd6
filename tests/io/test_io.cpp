// Unit tests of the storage area's pieces: fio's JSON, the job file's safety lines, path
// refusals, device classes, the checksum and the pipeline's answer.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "device.hpp"
#include "fio_driver.hpp"
#include "io_common.hpp"
#include "pipeline.hpp"
#include "scratch.hpp"
#include "support/paths.hpp"

using namespace rigcheck::io;

namespace {
std::string write_tmp(const std::string& text) {
  char tmpl[] = "/tmp/rigcheck-io-test.XXXXXX";
  int fd = mkstemp(tmpl);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return tmpl;
}
}  // namespace

TEST(FioJson, RealFioOutput) {
  FioResult r = parse_fio_json(std::string(RIGCHECK_IO_FIXTURES) + "/fio-3.33-randread-qd32x2.json", "read");
  EXPECT_EQ(r.fio_version, "fio-3.33");
  EXPECT_EQ(r.jobs, 1);
  EXPECT_EQ(r.error, 0);
  EXPECT_NEAR(r.iops, 72003.289474, 1e-6);
  EXPECT_DOUBLE_EQ(r.bw_bytes, 294925473);
  EXPECT_DOUBLE_EQ(r.io_bytes, 89657344);
  EXPECT_GT(r.clat_p50_ns, 0);
  EXPECT_GE(r.clat_p99_ns, r.clat_p50_ns);
  EXPECT_GE(r.clat_p999_ns, r.clat_p99_ns);
}

TEST(FioJson, BrokenJsonNamesTheFile) {
  std::string p = write_tmp("{ \"jobs\" : [ { \"jobname\" : ");
  try {
    parse_fio_json(p, "read");
    FAIL() << "no error";
  } catch (const FioError& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  unlink(p.c_str());
}

TEST(FioJson, FioNoticesBeforeJson) {
  // fio writes notices into the --output file before the JSON (opendir, psync with iodepth > 1):
  // lines starting "fio: " or "note: " are skipped, anything else is an error.
  std::ifstream in(std::string(RIGCHECK_IO_FIXTURES) + "/fio-3.33-randread-qd32x2.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string p = write_tmp(
      "fio: opendir added 48 files\nnote: both iodepth >= 1 and synchronous I/O engine are "
      "selected, queue depth will be capped at 1\n" +
      json);
  EXPECT_NEAR(parse_fio_json(p, "read").iops, 72003.289474, 1e-6);
  unlink(p.c_str());
  p = write_tmp("something else\n" + json);
  EXPECT_THROW(parse_fio_json(p, "read"), FioError);
  unlink(p.c_str());
}

TEST(FioJson, MissingFields) {
  std::string p = write_tmp(R"({"fio version":"fio-3.33","jobs":[{"jobname":"x","error":0,"read":{"iops":1}}]})");
  try {
    parse_fio_json(p, "read");
    FAIL() << "no error";
  } catch (const FioError& e) {
    EXPECT_NE(std::string(e.what()).find("bw_bytes"), std::string::npos) << e.what();
  }
  unlink(p.c_str());
  p = write_tmp(R"({"jobs":[]})");
  EXPECT_THROW(parse_fio_json(p, "read"), FioError);
  unlink(p.c_str());
}

// Inputs found by tests/fuzz (fio_json; tests/fixtures/fuzz/fio_json): each is refused with
// FioError naming the file, which io_fio catches per case; before the fix, nlohmann-json's own
// exceptions (a number past double, a value of the wrong type) escaped and ended the whole sweep,
// and an error field past int was an undefined cast.
TEST(FioJson, FuzzFindingsAreFioErrors) {
  const std::string dir = std::string(RIGCHECK_IO_FIXTURES) + "/../fuzz/fio_json/";
  for (const char* name :
       {"number_past_double.json", "jobname_not_a_string.json", "job_not_an_object.json", "error_past_int.json"}) {
    const std::string p = dir + name;
    try {
      parse_fio_json(p, "read");
      ADD_FAILURE() << name << ": accepted";
    } catch (const FioError& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

TEST(FioJob, NeverCreatesOrDeletes) {
  FioJob j{"seqread", "read", 1 << 20, 32, 1, "io_uring", "/scratch/f.dat", "", 1 << 28, 1.5, 0.5, true, {}};
  std::string t = job_file_text(j);
  for (const char* line : {"allow_file_create=0\n", "create_on_open=0\n", "unlink=0\n", "filename=/scratch/f.dat\n",
                           "direct=1\n", "iodepth=32\n", "runtime=1500ms\n", "ramp_time=500ms\n", "time_based=1\n",
                           "thread=1\n"})  // jobs die with fio (fio.cpp: job_file_text)
    EXPECT_NE(t.find(line), std::string::npos) << line;
}

// The fio peer at 8 workers over the full profile's 4096 samples: 32768 descriptors.
TEST(FioJob, OpenFilesFitTheLimit) {
  EXPECT_EQ(fio_open_files_per_job(4096, 8, 1048576), 4096);  // fits: every file open (fio's default)
  EXPECT_EQ(fio_open_files_per_job(4096, 8, 20000), (20000 - 64) / 8);
  EXPECT_EQ(fio_open_files_per_job(300, 8, 200), 17);
  EXPECT_EQ(fio_open_files_per_job(300, 8, 8 * 300 + 64), 300);
  EXPECT_EQ(fio_open_files_per_job(300, 8, 8 * 300 + 63), 299);
  EXPECT_EQ(fio_open_files_per_job(300, 8, 70), 0);   // not one per job: the caller refuses with the reason
  EXPECT_EQ(fio_open_files_per_job(300, 8, 0), 300);  // limit unknown
}

TEST(FioJob, RaisedLimitIsTheHardLimit) {
  const OpenFileLimit l = raise_open_file_limit();
  EXPECT_GT(l.soft, 0);
  EXPECT_EQ(l.soft, l.hard);
  EXPECT_LE(l.before, l.soft);
}

TEST(FioBinary, MissingIsNamed) {
  try {
    Fio f("/no/such/dir/fio");
    FAIL();
  } catch (const FioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("fio not found", 0), 0u) << e.what();
  }
}

TEST(Scratch, Refusals) {
  Scratch s("");  // a new temporary directory
  const std::string root = s.root();
  ASSERT_TRUE(s.created_root());
  EXPECT_THROW(check_name_syntax("a/../b"), Refusal);
  EXPECT_THROW(check_name_syntax(".."), Refusal);
  EXPECT_NO_THROW(check_name_syntax("a..b/c"));  // only a ".." component is refused
  EXPECT_THROW(s.check_new_path("/dev/null"), Refusal);
  EXPECT_THROW(s.check_new_path("/etc/elsewhere.dat"), Refusal);
  std::string f = s.create_file("x.dat", 4096, 1);
  EXPECT_THROW(s.check_new_path("x.dat"), Refusal);        // exists
  EXPECT_THROW(s.create_file("x.dat", 4096, 1), Refusal);  // never overwritten
  ASSERT_EQ(symlink("/etc/passwd", (root + "/l").c_str()), 0);
  try {
    s.check_new_path("l");
    FAIL();
  } catch (const Refusal& e) {
    EXPECT_NE(e.reason().find("symbolic link to /etc/passwd, outside"), std::string::npos) << e.what();
  }
  unlink((root + "/l").c_str());
  EXPECT_THROW(s.check_free_space(int64_t{1} << 60, "huge"), Refusal);
  EXPECT_EQ(s.check_new_path("new.dat"), root + "/new.dat");
  s.remove_all();
  struct stat sb;
  EXPECT_NE(stat(f.c_str(), &sb), 0);
  EXPECT_NE(stat(root.c_str(), &sb), 0) << "the temporary directory is removed too";
}

TEST(Scratch, FileContentIsRandomAndChecksummed) {
  Scratch s("");
  uint64_t sum = 0;
  std::string f = s.create_file("c.dat", 3 * 4096 + 8, 42, &sum);
  std::ifstream in(f, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(data.size(), 3u * 4096 + 8);
  EXPECT_EQ(checksum64(data.data(), data.size()), sum);
  size_t zeros = 0;
  for (size_t i = 0; i + 8 <= data.size(); i += 8) zeros += data.compare(i, 8, std::string(8, '\0')) == 0;
  EXPECT_EQ(zeros, 0u);
}

TEST(Scratch, ChecksumStreamsAcrossChunksAndSeesOneBit) {
  // A file larger than create_file's 1 MiB chunk, with a tail that is not a multiple of 8:
  // the streamed checksum equals the one-shot one over the bytes read back.
  Scratch s("");
  uint64_t sum = 0;
  const size_t n = (size_t{1} << 20) * 2 + 4096 + 5;
  std::string f = s.create_file("big.dat", static_cast<int64_t>(n), 7, &sum);
  std::ifstream in(f, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(data.size(), n);
  EXPECT_EQ(checksum64(data.data(), data.size()), sum);
  Checksum64 pieces;  // odd word counts per call: lanes must follow the global word index
  pieces.update(data.data(), 24);
  pieces.update(data.data() + 24, 800);
  pieces.update(data.data() + 824, n - 824);
  EXPECT_EQ(pieces.digest(), sum);
  for (size_t pos : {size_t{0}, size_t{9}, n / 2, n - 1}) {
    std::string bad = data;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x10);
    EXPECT_NE(checksum64(bad.data(), bad.size()), sum) << "one flipped bit at byte " << pos;
  }
  std::string swapped = data;  // two words exchanged between lanes
  std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 8);
  if (swapped != data) {
    EXPECT_NE(checksum64(swapped.data(), swapped.size()), sum);
  }
  s.remove_all();
}

TEST(Device, TmpfsIsTheRamDisk) {
  DeviceInfo d = device_of("/dev/shm");
  if (d.fstype != "tmpfs") GTEST_SKIP() << "/dev/shm is not tmpfs here";
  EXPECT_EQ(d.dev_class, "tmpfs");
  EXPECT_EQ(guide_class_of(d.dev_class), "RAM disk");
}

// A filesystem that refuses O_DIRECT (tmpfs before Linux 6.6): a RAM disk is read buffered and says so, any
// other is skipped with the reason; neither fails.
TEST(DirectIo, TmpfsFallsBackOtherwiseSkipped) {
  const DirectIo ok = direct_io_plan("", "tmpfs");
  EXPECT_TRUE(ok.direct);
  EXPECT_TRUE(ok.skip.empty());
  EXPECT_TRUE(ok.note.empty());
  const DirectIo ram = direct_io_plan("open with O_DIRECT: Invalid argument", "tmpfs");
  EXPECT_FALSE(ram.direct);
  EXPECT_TRUE(ram.skip.empty());
  EXPECT_NE(ram.note.find("direct=0"), std::string::npos) << ram.note;
  EXPECT_NE(ram.note.find("Invalid argument"), std::string::npos) << ram.note;
  const DirectIo disk = direct_io_plan("open with O_DIRECT: Invalid argument", "virtio");
  EXPECT_FALSE(disk.skip.empty());
  EXPECT_NE(disk.skip.find("virtio"), std::string::npos) << disk.skip;
  EXPECT_NE(disk.skip.find("Invalid argument"), std::string::npos) << disk.skip;
}

TEST(DirectIo, ProbeNamesTheFailingCall) {
  const std::string why = o_direct_refused("/nonexistent-rigcheck-dir/file");
  EXPECT_NE(why.find("open with O_DIRECT"), std::string::npos) << why;
}

TEST(Device, RootHasAClass) {
  DeviceInfo d = device_of("/");
  EXPECT_FALSE(d.dev_class.empty());
  EXPECT_FALSE(d.how.empty());
  if (d.device.rfind("vd", 0) == 0) {
    EXPECT_EQ(d.dev_class, "virtio");
  }
}

TEST(Pipeline, EverySampleChecked) {
  Scratch s("");
  Dataset d;
  d.sample_bytes = 8192;
  d.dir = s.create_dir("samples");
  for (int i = 0; i < 20; ++i) {
    uint64_t sum = 0;
    d.paths.push_back(s.create_file("samples/s" + std::to_string(i), d.sample_bytes, 100 + i, &sum, false));
    d.sums.push_back(sum);
  }
  s.sync_and_drop(d.paths);
  d.direct = direct_io_works(d.paths[0], d.sample_bytes);
  for (int w : {0, 1, 3}) {
    PipelineConfig c{4, w, 2, 10, 2, 0.0005, false, 9};
    PipelineResult r = run_pipeline(d, c, "");
    EXPECT_EQ(r.wrong, 0) << w;
    EXPECT_EQ(r.samples, 40) << w;
    EXPECT_EQ(r.steps, 8);
    EXPECT_GE(r.wall_s, 8 * 0.0005);
  }
  // A corrupted sample is caught.
  d.sums[3] ^= 1;
  PipelineResult r = run_pipeline(d, PipelineConfig{20, 2, 2, 2, 0, 0, false, 1}, "");
  EXPECT_EQ(r.wrong, 2);  // sample 3 read once in each of the 2 steps
}

// Every storage class the device code can name is a row of the guide's table (IO-1 looks its
// figures up by that name): a class renamed on one side only would leave the claim with no row.
TEST(Device, EveryGuideClassIsARowOfTheGuidesTable) {
  std::ifstream in(rigcheck::test::source_dir() + "/data/guide_storage_classes.csv");
  ASSERT_TRUE(in) << "data/guide_storage_classes.csv";
  std::string line, rows;
  std::getline(in, line);  // header
  while (std::getline(in, line)) rows += "|" + line.substr(0, line.find(',')) + "|";
  int named = 0;
  for (const char* c :
       {"sata_ssd", "nvme", "optane", "tmpfs", "zram", "hdd", "usb", "virtio_scsi", "sas_ssd", "loop"}) {
    const std::string g = guide_class_of(c);
    if (g.empty()) continue;
    ++named;
    EXPECT_NE(rows.find("|" + g + "|"), std::string::npos)
        << c << " -> " << g << " is not a class of the guide's table";
  }
  EXPECT_EQ(named, 5);
}
