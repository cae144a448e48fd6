// rigcheck store add (store.hpp): verify a run folder, then import it in one transaction.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/sha256.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/store/machines.hpp"
#include "rigcheck/store/records.hpp"
#include "rigcheck/store/store.hpp"

namespace rigcheck {
namespace {

struct FolderFile {
  std::string name, kind, text, sha256;
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string kind_of(const std::string& name) {
  static const std::map<std::string, std::string> own = {{"inventory.csv", "inventory"},
                                                         {"manifest.csv", "manifest"},
                                                         {"verdicts.csv", "verdicts"},
                                                         {"noise.csv", "noise"},
                                                         {"concurrent_runs.csv", "concurrent_runs"}};
  auto it = own.find(name);
  if (it != own.end()) return it->second;
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0 ? "results" : "other";
}

// Every plain file of the folder and its subfolders (logs/), by name relative to it ("logs/x.log");
// what is neither (a link, a socket) is named in `skipped`. A file in a subfolder is kind "other".
void read_folder(const std::string& root, const std::string& rel, std::vector<FolderFile>& files,
                 std::vector<std::string>& skipped) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw std::runtime_error("cannot open the folder " + dir);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
  ::closedir(d);
  for (const std::string& n : names) {
    const std::string name = rel.empty() ? n : rel + "/" + n;
    struct stat st {};
    if (::lstat((root + "/" + name).c_str(), &st) != 0) {
      skipped.push_back(name);
    } else if (S_ISDIR(st.st_mode)) {
      read_folder(root, name, files, skipped);
    } else if (!S_ISREG(st.st_mode)) {
      skipped.push_back(name);
    } else {
      FolderFile f{name, rel.empty() ? kind_of(n) : "other", read_whole(root + "/" + name), ""};
      f.sha256 = sha256_hex(f.text);
      files.push_back(std::move(f));
    }
  }
}
std::vector<FolderFile> read_folder(const std::string& dir, std::vector<std::string>& skipped) {
  std::vector<FolderFile> files;
  read_folder(dir, "", files, skipped);
  std::sort(files.begin(), files.end(), [](const FolderFile& a, const FolderFile& b) { return a.name < b.name; });
  return files;
}

std::string base_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.rfind('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

std::string value_or(const std::map<std::string, std::string>& m, const std::string& k, const std::string& dflt) {
  auto it = m.find(k);
  return it == m.end() || it->second.empty() ? dflt : it->second;
}

// The profile the benchmarks ran in, from the manifest's first command with --profile.
std::string profile_of(const std::vector<std::string>& manifest_records) {
  for (size_t i = 1; i < manifest_records.size(); ++i) {
    const std::vector<std::string> f = csv_record_fields(manifest_records[i]);
    if (f.size() < 3) continue;
    const size_t at = f[2].find("--profile ");
    if (at == std::string::npos) continue;
    const std::string rest = f[2].substr(at + 10);
    return rest.substr(0, rest.find(' '));
  }
  return "unknown";
}

long long pause_after_rows() {
  const char* v = std::getenv("RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS");
  return v && *v ? std::atoll(v) : -1;
}

// A record's fields by the file's header names; a missing field is empty.
struct Fields {
  std::map<std::string, size_t> at;
  std::vector<std::string> v;
  std::string operator[](const std::string& name) const {
    auto it = at.find(name);
    return it == at.end() || it->second >= v.size() ? "" : v[it->second];
  }
};

StoreValue number_or_null(const std::string& s) {
  double d = 0;
  if (parse_double(s, d)) return d;
  return std::monostate{};
}
StoreValue integer_or_null(const std::string& s) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0') return std::monostate{};
  return v;
}

// Rows of one table sent as multi-row INSERTs of up to kRows rows: a round trip to PostgreSQL for
// each record made an import of a quick run take about a second there; SQLite runs fewer statements.
class Batch {
 public:
  static constexpr size_t kRows = 64;
  Batch(StoreBackend& db, std::string table_and_columns, size_t columns)
      : db_(db), head_("INSERT INTO " + std::move(table_and_columns) + " VALUES "), columns_(columns) {}
  void add(StoreParams row) {
    if (row.size() != columns_) throw std::logic_error("store import: a row of another width for " + head_);
    for (StoreValue& v : row) params_.push_back(std::move(v));
    if (++rows_ == kRows) flush();
  }
  void flush() {
    if (!rows_) return;
    std::string one = "(";
    for (size_t c = 0; c < columns_; ++c) one += c ? ", ?" : "?";
    one += ")";
    std::string sql = head_;
    for (size_t r = 0; r < rows_; ++r) sql += (r ? ", " : "") + one;
    db_.query(sql, params_);
    params_.clear();
    rows_ = 0;
  }

 private:
  StoreBackend& db_;
  std::string head_;
  size_t columns_, rows_ = 0;
  StoreParams params_;
};

class Importer {
 public:
  Importer(StoreBackend& db, long long run_id)
      : db_(db),
        run_(run_id),
        records_(db, "csv_records (file_id, record_no, raw)", 3),
        results_(db,
                 "results (file_id, record_no, run_id, benchmark, case_name, params, metric, value, unit, repetition, "
                 "status, note)",
                 12),
        inventory_(db, "inventory_facts (run_id, record_no, key, value)", 4),
        manifest_(db,
                  "manifest_entries (run_id, record_no, benchmark, area, status, exit_code, output, reason, "
                  "rows_recorded, sha256)",
                  10),
        verdicts_(db, "verdicts (run_id, record_no, claim_id, verdict, basis)", 5),
        noise_(db, "noise (run_id, record_no, benchmark, case_name, metric, sd_log)", 6) {}

  void file(const FolderFile& f) {
    const bool csv = f.kind != "other";
    const std::vector<std::string> records = csv ? split_csv_records(f.text) : std::vector<std::string>{};
    const long long file_id = std::stoll(
        db_.query(
               "INSERT INTO run_files (run_id, name, kind, bytes, sha256, records, body) VALUES (?, ?, ?, ?, ?, ?, ?) "
               "RETURNING id",
               {run_, f.name, f.kind, static_cast<long long>(f.text.size()), f.sha256,
                static_cast<long long>(records.size()), csv ? StoreValue{} : StoreValue{f.text}})[0][0]
            .text);
    Fields h;
    for (size_t i = 0; i < records.size(); ++i) {
      const long long no = static_cast<long long>(i);
      records_.add({file_id, no, records[i]});
      if (i == 0) {
        const std::vector<std::string> names = csv_record_fields(records[0]);
        for (size_t c = 0; c < names.size(); ++c) h.at[names[c]] = c;
      } else {
        h.v = csv_record_fields(records[i]);
        index(f.kind, file_id, no, h);
      }
      pause_hook();
    }
    for (Batch* b : {&records_, &results_, &inventory_, &manifest_, &verdicts_, &noise_}) b->flush();
  }

 private:
  // The columns queries select on, per kind of file.
  void index(const std::string& kind, long long file_id, long long no, const Fields& r) {
    if (kind == "results")
      results_.add({file_id, no, run_, r["benchmark"], r["case"], r["params"], r["metric"], number_or_null(r["value"]),
                    r["unit"], integer_or_null(r["repetition"]), r["status"], r["note"]});
    else if (kind == "inventory")
      inventory_.add({run_, no, r["key"], r["value"]});
    else if (kind == "manifest")
      manifest_.add({run_, no, r["benchmark"], r["area"], r["status"], r["exit_code"], r["output"], r["reason"],
                     integer_or_null(r["rows"]), r["sha256"]});
    else if (kind == "verdicts")
      verdicts_.add({run_, no, r["claim_id"], r["verdict"], r["basis"]});
    else if (kind == "noise")
      noise_.add({run_, no, r["benchmark"], r["case"], r["metric"], number_or_null(r["sd_log"])});
  }

  void pause_hook() {
    static const long long after = pause_after_rows();
    if (++rows_ != after) return;
    const char* s = std::getenv("RIGCHECK_STORE_TEST_PAUSE_S");
    const unsigned seconds = s && *s ? static_cast<unsigned>(std::atoi(s)) : 120;
    std::fprintf(stderr,
                 "rigcheck store add: test hook RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS=%lld: paused inside "
                 "the transaction for %u s\n",
                 after, seconds);
    std::fflush(stderr);
    ::sleep(seconds);
  }

  StoreBackend& db_;
  long long run_;
  Batch records_, results_, inventory_, manifest_, verdicts_, noise_;
  static long long rows_;
};
long long Importer::rows_ = 0;

// Refuses a folder that is broken (integrity.hpp) or has no inventory; empty when it may be stored.
std::string refusal(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "not a folder";
  IntegrityReport ir;
  try {
    ir = verify_run_folder(dir);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (!ir.ok()) {
    std::string why = "broken: ";
    for (const FileIntegrity& f : ir.files)
      if (f.state == FileState::broken) why += f.file + ": " + f.why + "; ";
    return why.substr(0, why.size() - 2);
  }
  if (::stat((dir + "/inventory.csv").c_str(), &st) != 0) return "no inventory.csv: its machine cannot be named";
  return "";
}

// A result file whose bytes, as read for the store, differ from the SHA-256 its manifest records:
// changed between verify_run_folder and the read. Empty when none did.
std::string changed_since_verified(const std::vector<FolderFile>& files, const std::string& manifest_text) {
  std::map<std::string, std::string> recorded;  // output file -> its SHA-256 in the manifest
  const std::vector<std::string> recs = split_csv_records(manifest_text);
  Fields h;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (i == 0) {
      const std::vector<std::string> names = csv_record_fields(recs[0]);
      for (size_t c = 0; c < names.size(); ++c) h.at[names[c]] = c;
      continue;
    }
    h.v = csv_record_fields(recs[i]);
    if (!h["output"].empty() && !h["sha256"].empty()) recorded[h["output"]] = h["sha256"];
  }
  for (const FolderFile& f : files)
    if (auto it = recorded.find(f.name); it != recorded.end() && it->second != f.sha256)
      return "broken: " + f.name + ": changed while it was being stored (its SHA-256 differs from the manifest's)";
  return "";
}

// The noise profile of the set the run was made in: PARENT/noise.csv where PARENT is named noise-*
// (rigcheck run --repeat; scaling_prediction.cpp reads it from there). Empty name when none.
struct SetProfile {
  std::string name, text;
};
SetProfile set_profile_of(const std::string& dir) {
  char buf[4096];
  std::string abs = dir[0] == '/' || !::getcwd(buf, sizeof buf) ? dir : std::string(buf) + "/" + dir;
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  const std::string parent = abs.substr(0, abs.rfind('/'));
  const std::string name = base_name(parent);
  struct stat st {};
  if (name.rfind("noise-", 0) != 0 || ::stat((parent + "/noise.csv").c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return {};
  return {name, read_whole(parent + "/noise.csv")};
}

// The run's digest from its files in memory (store_add's `digest`), or why none: "" and `why` set.
RunDigest digest_of(const RunDigester& digest, const std::vector<FolderFile>& files, const std::string& folder,
                    std::string& why) {
  if (!digest) return {};
  RunFiles rf;
  rf.dir = folder;
  rf.in_memory = true;
  for (const FolderFile& f : files) {
    rf.files.emplace(f.name, f.text);
    rf.sha256.emplace(f.name, f.sha256);
  }
  try {
    return digest(rf);
  } catch (const std::exception& e) {
    why = std::string("; no digest (its runs are read from the files): ") + e.what();
    return {};
  }
}

void store_digest(StoreBackend& db, long long run_id, const RunDigest& d) {
  db.query("DELETE FROM run_digests WHERE run_id = ?", {run_id});
  db.query("INSERT INTO run_digests (run_id, digest_key, bytes, sha256, body) VALUES (?, ?, ?, ?, ?)",
           {run_id, d.key, static_cast<long long>(d.body.size()), sha256_hex(d.body), d.body});
}

StoreAddOutcome add_one(StoreBackend& db, const std::string& dir, const RunDigester& digest) {
  StoreAddOutcome o;
  o.dir = dir;
  if ((o.message = refusal(dir)) != "") return o;
  std::vector<std::string> skipped;
  const std::vector<FolderFile> files = read_folder(dir, skipped);
  std::map<std::string, std::string> inv;
  std::string manifest_text, content;
  for (const FolderFile& f : files) {
    content += f.name + "\t" + f.sha256 + "\n";
    if (f.kind == "manifest") manifest_text = f.text;
    if (f.kind != "inventory") continue;
    const std::vector<std::string> recs = split_csv_records(f.text);
    for (size_t i = 1; i < recs.size(); ++i) {
      const std::vector<std::string> kv = csv_record_fields(recs[i]);
      if (kv.size() >= 2) inv[kv[0]] = kv[1];
    }
  }
  if (const std::string why = changed_since_verified(files, manifest_text); !why.empty()) {
    o.message = why;
    return o;
  }
  const MachineFacts m = machine_facts(inv);
  const std::string folder = base_name(dir), host = value_or(inv, "hostname", "unknown");
  const std::string started = value_or(inv, "inventory_time_utc", "unknown");
  const std::string identity = run_identity(folder, host, started);
  const SetProfile set = set_profile_of(dir);
  std::string no_digest;
  const RunDigest dg = digest_of(digest, files, folder, no_digest);
  db.begin_write();
  try {
    auto found = db.query("SELECT id FROM runs WHERE identity = ?", {identity});
    if (!found.empty()) {
      o.what = StoreAddOutcome::What::already_stored;
      o.run_id = std::stoll(found[0][0].text);
      // Its digest made anew where it has none of today's key (stored by an older rigcheck).
      if (!dg.key.empty() &&
          db.query("SELECT 1 FROM run_digests WHERE run_id = ? AND digest_key = ?", {o.run_id, dg.key}).empty()) {
        store_digest(db, o.run_id, dg);
        db.commit();
        o.message = fmt::format("already stored as run {}: its digest added, nothing else", o.run_id);
        return o;
      }
      db.rollback();
      o.message = fmt::format("already stored as run {}: nothing added", o.run_id);
      return o;
    }
    char cwd[4096];
    const std::string source = dir[0] == '/' || !::getcwd(cwd, sizeof cwd) ? dir : std::string(cwd) + "/" + dir;
    o.run_id = std::stoll(
        db.query("INSERT INTO runs (identity, machine_id, folder_name, hostname, started_utc, suite_commit, profile, "
                 "method_version, content_sha256, source_path, imported_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                 "RETURNING id",
                 {identity, store_machine_id(db, m), folder, host, started, value_or(inv, "suite_commit", "unknown"),
                  profile_of(split_csv_records(manifest_text)), value_or(inv, "method_version", "unknown"),
                  sha256_hex(content), source, utc_timestamp_compact()})[0][0]
            .text);
    Importer imp(db, o.run_id);
    for (const FolderFile& f : files) imp.file(f);
    if (!set.name.empty())
      db.query("INSERT INTO run_set_profiles (run_id, set_name, bytes, sha256, body) VALUES (?, ?, ?, ?, ?)",
               {o.run_id, set.name, static_cast<long long>(set.text.size()), sha256_hex(set.text), set.text});
    if (!dg.key.empty()) store_digest(db, o.run_id, dg);
    db.commit();
  } catch (...) {
    db.rollback();
    throw;
  }
  o.what = StoreAddOutcome::What::added;
  o.message =
      fmt::format("stored as run {} ({} files; machine {}{}){}", o.run_id, files.size(), m.fingerprint.substr(0, 16),
                  set.name.empty() ? "" : "; with its set's noise profile " + set.name + "/noise.csv",
                  skipped.empty() ? "" : "; not stored (not plain files or folders): ");
  for (size_t i = 0; i < skipped.size(); ++i) o.message += (i ? ", " : "") + skipped[i];
  o.message += no_digest;
  return o;
}

}  // namespace

std::vector<StoreAddOutcome> store_add(StoreBackend& db, const std::vector<std::string>& dirs,
                                       const RunDigester& digest) {
  std::vector<StoreAddOutcome> out;
  for (const std::string& d : dirs) {
    try {
      out.push_back(add_one(db, d, digest));
    } catch (const std::exception& e) {
      StoreAddOutcome o;
      o.dir = d;
      o.message = std::string("not stored: ") + e.what();
      out.push_back(o);
    }
  }
  return out;
}

}  // namespace rigcheck
