// The results store (bench/store, docs/store.md): CSV records kept verbatim, the machine
// fingerprint, the schema's versions, and run folders into SQLite and back byte for byte.
// The CLI's faults (two writers, SIGKILL mid-import, odd folder names) are store_cli.sh's.
#include <gtest/gtest.h>

#include <filesystem>

#include "rigcheck/store/records.hpp"
#include "rigcheck/store/schema.hpp"
#include "rigcheck/store/store.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

using namespace rigcheck;
using rigcheck::testsupport::fresh_dir;
using rigcheck::testsupport::slurp;
namespace fs = std::filesystem;

namespace {
const std::string kRuns = std::string(RIGCHECK_FIXTURES) + "/runs";

long long count(StoreBackend& db, const std::string& table) {
  return std::stoll(db.query("SELECT COUNT(*) FROM " + table)[0][0].text);
}
std::vector<long long> counts(StoreBackend& db) {
  std::vector<long long> c;
  for (const char* t :
       {"machines", "runs", "run_files", "csv_records", "results", "inventory_facts", "manifest_entries"})
    c.push_back(count(db, t));
  return c;
}
}  // namespace

TEST(StoreRecords, ConcatenatedTheyAreTheFile) {
  const std::string text = "a,b\r\n1,\"two\nlines, \"\"quoted\"\"\"\n3,x\nlast,no-newline";
  const std::vector<std::string> r = split_csv_records(text);
  ASSERT_EQ(r.size(), 4u);
  std::string joined;
  for (const std::string& s : r) joined += s;
  EXPECT_EQ(joined, text);
  EXPECT_EQ(r[0], "a,b\r\n");
  EXPECT_EQ(csv_record_fields(r[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(csv_record_fields(r[1]), (std::vector<std::string>{"1", "two\nlines, \"quoted\""}));
  EXPECT_EQ(csv_record_fields(r[3]), (std::vector<std::string>{"last", "no-newline"}));
}

TEST(StoreFingerprint, TheCpusIdentityTheShapeAndThePartOfTheMachineGiven) {
  const std::map<std::string, std::string> a = {{"cpu_vendor", "AuthenticAMD"},
                                                {"cpu_family", "25"},
                                                {"cpu_model_number", "1"},
                                                {"cpu_stepping", "1"},
                                                {"cpu_microarch", "zen3"},
                                                {"cpu_model", "AMD EPYC"},
                                                {"sockets", "1"},
                                                {"physical_cores", "2"},
                                                {"hardware_threads", "2"},
                                                {"numa_nodes", "1"},
                                                {"gpu_count", "0"},
                                                {"hostname", "vm"},
                                                {"memory_total_bytes", "25275990016"},
                                                {"kernel", "6.1"}};
  const MachineFacts fa = machine_facts(a);
  EXPECT_EQ(fa.canonical,
            "cpu_vendor=AuthenticAMD\ncpu_family=25\ncpu_model_number=1\ncpu_stepping=1\ncpu_microarch=zen3\n"
            "cpu_model=AMD EPYC\nsockets=1\nphysical_cores=2\nhardware_threads=2\nnuma_nodes=1\nmemory_gib=24\n"
            "gpu_count=0\n");
  EXPECT_EQ(fa.cpu_id, "AuthenticAMD family 25 model 1 stepping 1 (zen3)");
  EXPECT_EQ(fa.fingerprint.size(), 64u);
  EXPECT_EQ(fa.share, "");
  const auto with = [&](std::map<std::string, std::string> changes) {
    std::map<std::string, std::string> m = a;
    for (auto& [k, v] : changes) m[k] = v;
    return machine_facts(m);
  };
  // Not the machine: the host's name, the kernel, MemTotal within its GiB, libraries, the whole machine allowed.
  EXPECT_EQ(with({{"hostname", "other"},
                  {"kernel", "6.18"},
                  {"memory_total_bytes", "25275000000"},
                  {"onednn_version", "3.7.2"},
                  {"allowed_hardware_threads", "2"},
                  {"usable_cores", "2"},
                  {"memory_limit_bytes", "none"}})
                .fingerprint,
            fa.fingerprint);
  // A Zen 5 VM whose hypervisor shows the same model text is another CPU.
  EXPECT_NE(with({{"cpu_family", "26"}, {"cpu_model_number", "2"}, {"cpu_microarch", "zen5"}}).fingerprint,
            fa.fingerprint);
  EXPECT_NE(with({{"cpu_stepping", "2"}}).fingerprint, fa.fingerprint);
  EXPECT_NE(with({{"sockets", "2"}}).fingerprint, fa.fingerprint);
  EXPECT_NE(with({{"numa_nodes", "2"}}).fingerprint, fa.fingerprint);
  EXPECT_NE(with({{"physical_cores", "4"}}).fingerprint, fa.fingerprint);
  // A run given part of the machine is not filed as the whole of it.
  const MachineFacts cpuset = with({{"hardware_threads", "4"}, {"allowed_hardware_threads", "2"}});
  EXPECT_EQ(cpuset.share, "allowed_hardware_threads=2\n");
  EXPECT_NE(cpuset.fingerprint, with({{"hardware_threads", "4"}}).fingerprint);
  EXPECT_EQ(with({{"usable_cores", "1"}}).share, "usable_cores=1\n");
  EXPECT_EQ(with({{"memory_limit_bytes", "6442450944"}}).share, "memory_limit_gib=6\n");
  EXPECT_NE(with({{"memory_limit_bytes", "6442450944"}}).fingerprint, fa.fingerprint);
  const MachineFacts fg =
      with({{"gpu_count", "1"}, {"gpu0_name", "NVIDIA H200"}, {"gpu0_memory_bytes", "150754820096"}});
  EXPECT_EQ(fg.gpus, "1 x NVIDIA H200 (140 GiB)");
  EXPECT_NE(fg.fingerprint, fa.fingerprint);
  // The same machine for history: an older inventory without the family follows the newer ones; a
  // Zen 5, a cpuset or a GPU more does not.
  std::map<std::string, std::string> older = a;
  older.erase("cpu_family"), older.erase("cpu_stepping");
  EXPECT_NE(machine_facts(older).fingerprint, fa.fingerprint);
  EXPECT_TRUE(same_machine(machine_facts(older), fa));
  EXPECT_FALSE(same_machine(with({{"cpu_family", "26"}, {"cpu_microarch", "zen5"}}), fa));
  EXPECT_FALSE(same_machine(cpuset, with({{"hardware_threads", "4"}})));
  EXPECT_FALSE(same_machine(fg, fa));
}

// A store of version 3 filed the Zen 3 and the Zen 5 VM's runs (both "AMD EPYC", 2 cores, 24 GiB) as one
// machine; opened by this rigcheck it files them apart, from the inventories it keeps.
TEST(StoreSchema, Version3StoresAreFiledAnewByTheNewFingerprint) {
  const std::string path = fresh_dir("store-refile") + "/s.db";
  std::map<std::string, long long> run;  // fixture -> run id
  {
    std::unique_ptr<StoreBackend> db = open_store(path);
    for (const std::string r : {"good", "compare_a", "quick_vm"}) {
      const StoreAddOutcome o = store_add(*db, {kRuns + "/" + r})[0];
      ASSERT_EQ(o.what, StoreAddOutcome::What::added) << o.message;
      run[r] = o.run_id;
    }
    ASSERT_EQ(count(*db, "machines"), 2);
    // Version 3 as it was: one machine row for all three, without the new columns.
    db->exec("UPDATE runs SET machine_id = (SELECT MIN(id) FROM machines)");
    db->exec("DELETE FROM machines WHERE id <> (SELECT MIN(id) FROM machines)");
    db->exec("UPDATE machines SET fingerprint = 'the fingerprint of version 3', facts = 'cpu_model=AMD EPYC\n'");
    for (const char* c : {"cpu_id", "shape", "share"}) db->exec(std::string("ALTER TABLE machines DROP COLUMN ") + c);
    db->exec("DELETE FROM schema_version WHERE version = 4");
    ASSERT_EQ(store_version(*db), 3);
  }
  std::unique_ptr<StoreBackend> db = open_store(path);
  EXPECT_EQ(store_version(*db), kStoreSchemaVersion);
  EXPECT_EQ(count(*db, "machines"), 2);
  const auto machine_of = [&](const std::string& r) {
    return db
        ->query("SELECT m.cpu_id FROM runs r JOIN machines m ON m.id = r.machine_id WHERE r.id = ?", {run[r]})[0][0]
        .text;
  };
  EXPECT_EQ(machine_of("good"), machine_of("compare_a"));
  EXPECT_EQ(machine_of("good"), "AuthenticAMD family 25 model 1 stepping 1 (zen3)");
  EXPECT_EQ(machine_of("quick_vm"), "AuthenticAMD family 26 model 2 stepping 1 (zen5)");
  EXPECT_TRUE(store_verify(*db).problems.empty());
}

TEST(StoreSchema, EachEarlierVersionMigratesAndANewerOneIsRefused) {
  const std::string dir = fresh_dir("store-schema");
  for (int v = 1; v <= kStoreSchemaVersion; ++v) {  // a store built at each version opens at the newest
    const std::string path = dir + "/v" + std::to_string(v) + ".db";
    {
      std::unique_ptr<StoreBackend> b = open_backend(path);
      migrate_store(*b, v);
      EXPECT_EQ(store_version(*b), v);
    }
    std::unique_ptr<StoreBackend> s = open_store(path);
    EXPECT_EQ(store_version(*s), kStoreSchemaVersion);
    EXPECT_TRUE(s->has_table("runs"));
    EXPECT_EQ(count(*s, "runs"), 0);
  }
  const std::string newer = dir + "/v999.db";
  {
    std::unique_ptr<StoreBackend> s = open_store(newer);
    s->query("INSERT INTO schema_version (version, applied_utc) VALUES (999, 'later')");
  }
  try {
    open_store(newer);
    FAIL() << "a store of version 999 was opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("store " + newer + " is schema version 999; this rigcheck knows versions up to " +
                                   std::to_string(kStoreSchemaVersion)),
        std::string::npos)
        << e.what();
  }
}

// Fixture runs in, exported back: every file byte for byte; adding them again adds nothing.
TEST(StoreRuns, ExportGivesTheFolderBackAndASecondAddAddsNothing) {
  const std::string dir = fresh_dir("store-runs");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  const std::vector<std::string> runs = {"good", "quick_vm", "compare_a", "avx512_synthetic"};
  std::vector<std::string> dirs;
  for (const std::string& r : runs) dirs.push_back(kRuns + "/" + r);
  const std::vector<StoreAddOutcome> first = store_add(*db, dirs);
  ASSERT_EQ(first.size(), runs.size());
  for (const StoreAddOutcome& o : first) ASSERT_EQ(o.what, StoreAddOutcome::What::added) << o.dir << ": " << o.message;
  const std::vector<long long> before = counts(*db);
  EXPECT_EQ(before[0], 3);  // good and compare_a ran on a Zen 3 VM, quick_vm on a Zen 5; avx512_synthetic is a Zen 4
  EXPECT_EQ(before[1], 4);
  for (const StoreAddOutcome& o : store_add(*db, dirs))
    EXPECT_EQ(o.what, StoreAddOutcome::What::already_stored) << o.message;
  EXPECT_EQ(counts(*db), before);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string out = dir + "/" + runs[i];
    store_export_run(*db, first[i].run_id, out);
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dirs[i])) {
      ++n;
      EXPECT_EQ(slurp(out + "/" + e.path().filename().string()), slurp(e.path().string()))
          << runs[i] << " " << e.path();
    }
    EXPECT_EQ(static_cast<size_t>(std::distance(fs::directory_iterator(out), fs::directory_iterator())), n);
    EXPECT_THROW(store_export_run(*db, first[i].run_id, out), std::runtime_error) << "an existing folder overwritten";
  }
  EXPECT_TRUE(store_verify(*db).problems.empty());
}

// A folder that fails verify_run_folder (one byte of a result edited) is refused: nothing written.
TEST(StoreRuns, BrokenFolderIsRefusedAndNothingWritten) {
  const std::string dir = fresh_dir("store-broken");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  ASSERT_EQ(store_add(*db, {kRuns + "/good"})[0].what, StoreAddOutcome::What::added);
  const std::vector<long long> before = counts(*db);
  fs::copy(kRuns + "/quick_vm", dir + "/edited");
  std::string text = slurp(dir + "/edited/cpu_peak.csv");
  const size_t at = text.find(",ok,");
  ASSERT_NE(at, std::string::npos);
  text[at + 1] = 'O';
  std::ofstream(dir + "/edited/cpu_peak.csv", std::ios::trunc) << text;
  const StoreAddOutcome o = store_add(*db, {dir + "/edited"})[0];
  EXPECT_EQ(o.what, StoreAddOutcome::What::refused);
  EXPECT_NE(o.message.find("cpu_peak.csv"), std::string::npos) << o.message;
  EXPECT_EQ(counts(*db), before);
}

// store verify finds a stored record edited after the import, and export-run then writes nothing.
TEST(StoreRuns, VerifyFindsAnEditedRecord) {
  const std::string dir = fresh_dir("store-verify");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  const StoreAddOutcome o = store_add(*db, {kRuns + "/good"})[0];
  ASSERT_EQ(o.what, StoreAddOutcome::What::added);
  db->query(
      "UPDATE csv_records SET raw = REPLACE(raw, ',ok,', ',OK,') WHERE record_no = 2 AND file_id = "
      "(SELECT id FROM run_files WHERE name = 'cpu_peak.csv')");
  const StoreVerifyResult v = store_verify(*db);
  ASSERT_EQ(v.problems.size(), 1u);
  EXPECT_NE(v.problems[0].find("cpu_peak.csv: SHA-256"), std::string::npos) << v.problems[0];
  EXPECT_THROW(store_export_run(*db, o.run_id, dir + "/out"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

// A stored file's name never leads export-run out of its folder (a store edited by hand).
TEST(StoreRuns, ExportRefusesANameOutsideTheFolder) {
  const std::string dir = fresh_dir("store-names");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  const StoreAddOutcome o = store_add(*db, {kRuns + "/good"})[0];
  ASSERT_EQ(o.what, StoreAddOutcome::What::added);
  for (const char* bad : {"../escaped.csv", "/tmp/escaped.csv", "logs//x", "logs/../../x"}) {
    db->query("UPDATE run_files SET name = ? WHERE name = 'cpu_peak.csv' OR name LIKE '%escaped%' OR name LIKE '%x'",
              {std::string(bad)});
    EXPECT_THROW(store_export_run(*db, o.run_id, dir + "/out"), std::runtime_error) << bad;
    EXPECT_FALSE(fs::exists(dir + "/out")) << bad;
  }
}

// Selections (select.hpp): the terms, what they keep, and a term that is not one, named.
TEST(StoreSelect, TermsParseAndSelect) {
  const RunSelector s = parse_run_selector(
      "7, machine=vm,since=2026-12-01,until=2026-12-03,last=2,"
      "gpu_driver=580.65.06,folder=a,folder=b,id=9");
  EXPECT_EQ(s.ids, (std::vector<long long>{7, 9}));
  EXPECT_EQ(s.machine, "vm");
  EXPECT_EQ(s.since, "2026-12-01");
  EXPECT_EQ(s.until, "2026-12-03");
  EXPECT_EQ(s.last, 2);
  EXPECT_EQ(s.folders, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(s.facts.size(), 1u);
  EXPECT_EQ(s.facts[0], (std::pair<std::string, std::string>{"gpu_driver", "580.65.06"}));
  for (const char* bad : {"bogus", "last=0", "id=x", "=3", "machine="}) {
    try {
      parse_run_selector(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("selection term"), std::string::npos) << e.what();
    }
  }
  const std::string dir = fresh_dir("store-select");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  store_add(*db, {kRuns + "/compare_a", kRuns + "/compare_a2", kRuns + "/compare_slowed"});
  auto folders = [&](const std::string& sel) {
    std::string out;
    for (const StoredRunRef& r : select_runs(*db, parse_run_selector(sel))) out += r.folder_name + " ";
    return out;
  };
  EXPECT_EQ(folders("machine=vm"), "compare_a compare_a2 compare_slowed ");  // oldest first
  EXPECT_EQ(folders("machine=vm,last=2"), "compare_a2 compare_slowed ");
  EXPECT_EQ(folders("onednn_max_cpu_isa_env=SSE41"), "compare_slowed ");
  EXPECT_EQ(folders("since=2026-12-02T12:20:00Z,until=2026-12-02T12:30:00Z"), "compare_a2 ");
  EXPECT_EQ(folders("folder=compare_slowed,folder=compare_a"), "compare_a compare_slowed ");
  EXPECT_EQ(folders("machine=nothing"), "");
  EXPECT_THROW(select_runs(*db, std::vector<std::string>{"machine=vm", "folder=none"}), std::runtime_error);
  // Two selections: each in order, a run chosen twice once.
  std::string both;
  for (const StoredRunRef& r : select_runs(*db, std::vector<std::string>{"folder=compare_slowed", "machine=vm"}))
    both += r.folder_name + " ";
  EXPECT_EQ(both, "compare_slowed compare_a compare_a2 ");
}

// The selected runs are read in memory (StoredRuns: read_run on their stored files) as their folders
// are read; a stored record edited since the import is refused, naming the run and the file.
TEST(StoreSelect, StoredRunsAreReadAsTheirFolders) {
  const std::string dir = fresh_dir("store-read");
  std::unique_ptr<StoreBackend> db = open_store(dir + "/s.db");
  store_add(*db, {kRuns + "/good", kRuns + "/quick_vm"});
  StoredRuns stored(*db);
  const std::vector<std::string> dirs =
      stored.add(select_runs(*db, std::vector<std::string>{"folder=quick_vm", "folder=good"}));
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], dir + "/s.db run 2/quick_vm");  // compare's label: the folder's name
  auto rows = [](const RunData& r) {
    std::string s;
    for (const ResultRow& x : r.results) s += x.source + ": " + format_result_row(x) + "\n";
    return s;
  };
  for (const std::string& d : dirs) {
    const RunData in = stored.read(d), disk = read_run(kRuns + d.substr(d.rfind('/')));
    EXPECT_EQ(in.dir, d);
    EXPECT_EQ(in.inventory, disk.inventory);
    EXPECT_EQ(in.result_files, disk.result_files);
    EXPECT_EQ(in.integrity.summary(), disk.integrity.summary());
    EXPECT_FALSE(in.results.empty());
    EXPECT_EQ(rows(in), rows(disk)) << d;
  }
  EXPECT_THROW(stored.read(dir + "/s.db run 3/quick_vm"), std::logic_error);
  db->exec(
      "UPDATE csv_records SET raw = REPLACE(raw, ',ok,', ',OK,') WHERE record_no = 1 AND file_id = "
      "(SELECT id FROM run_files WHERE run_id = 2 AND name = 'cpu_peak.csv')");
  try {
    stored.read(dirs[0]);
    ADD_FAILURE() << "an edited stored record was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("run 2 cpu_peak.csv: SHA-256"), std::string::npos) << e.what();
  }
}
