// rigcheck store list, verify and export-run (store.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/sha256.hpp"
#include "rigcheck/store/schema.hpp"
#include "rigcheck/store/select.hpp"
#include "rigcheck/store/store.hpp"

namespace rigcheck {
namespace {

std::string count_of(StoreBackend& db, const std::string& table) {
  return db.query("SELECT COUNT(*) FROM " + table)[0][0].text;
}

// A stored file's bytes: its body, or its records in order.
struct StoredFile {
  long long id = 0;
  std::string name, kind, sha256, text;
  long long bytes = 0, records = 0, records_found = 0;
};

// A stored run's files, each with its records in order: one query for the run (a CSV file's body is
// NULL and its bytes are its records; another file has no records and its body is its bytes).
std::vector<StoredFile> stored_files(StoreBackend& db, long long run_id) {
  std::vector<StoredFile> files;
  for (const StoreRow& r : db.query("SELECT f.id, f.name, f.kind, f.sha256, f.bytes, f.records, f.body, c.raw "
                                    "FROM run_files f LEFT JOIN csv_records c ON c.file_id = f.id "
                                    "WHERE f.run_id = ? ORDER BY f.name, f.id, c.record_no",
                                    {run_id})) {
    const long long id = std::stoll(r[0].text);
    if (files.empty() || files.back().id != id) {
      StoredFile f;
      f.id = id;
      f.name = r[1].text, f.kind = r[2].text, f.sha256 = r[3].text;
      f.bytes = std::stoll(r[4].text), f.records = std::stoll(r[5].text);
      f.text.reserve(
          static_cast<size_t>(std::clamp(f.bytes, 0LL, 1LL << 30)));  // the records appended without regrowing
      if (!r[6].null) f.text = r[6].text;
      files.push_back(std::move(f));
    }
    if (!r[7].null) {
      files.back().text += r[7].text;
      ++files.back().records_found;
    }
  }
  return files;
}

// What differs between a stored file and what was recorded of it on import; empty when nothing.
// `sha256`: where given, receives the SHA-256 of its bytes, when they got that far.
std::string difference(const StoredFile& f, std::string* sha256 = nullptr) {
  if (f.kind != "other" && f.records_found != f.records)
    return fmt::format("{} records stored, {} recorded on import", f.records_found, f.records);
  if (static_cast<long long>(f.text.size()) != f.bytes)
    return fmt::format("{} bytes stored, {} recorded on import", f.text.size(), f.bytes);
  const std::string h = sha256_hex(f.text);
  if (sha256) *sha256 = h;
  if (h != f.sha256)
    return fmt::format("SHA-256 {} stored, {} recorded on import", h.substr(0, 16), f.sha256.substr(0, 16));
  return "";
}

// A stored name stays inside the folder it is written to: relative, no empty, "." or ".." part.
bool inside_folder(const std::string& name) {
  if (name.empty() || name[0] == '/') return false;
  for (size_t at = 0;;) {
    const size_t slash = name.find('/', at);
    const std::string part = name.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string::npos) return true;
    at = slash + 1;
  }
}

std::string machines_table(StoreBackend& db) {
  std::string s =
      "## Machines\n\n| fingerprint | CPU | CPU id | shape | memory GiB | GPUs | part of the machine | hosts | runs |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const StoreRow& r :
       db.query("SELECT m.fingerprint, m.cpu_model, m.cpu_id, m.shape, m.memory_gib, m.gpus, m.share, "
                "(SELECT COUNT(DISTINCT hostname) FROM runs WHERE machine_id = m.id), "
                "(SELECT COUNT(*) FROM runs WHERE machine_id = m.id) FROM machines m ORDER BY m.id")) {
    std::string share = r[6].text;  // the limits' lines, "key=value\n" each
    for (size_t at; (at = share.find('\n')) != std::string::npos;)
      share.replace(at, 1, at + 1 < share.size() ? "; " : "");
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r[0].text, r[1].text, r[2].text, r[3].text,
                     r[4].text, r[5].text, share.empty() ? "whole" : share, r[7].text, r[8].text);
  }
  return s;
}

}  // namespace

std::string store_list(StoreBackend& db, const RunSelector& flt) {
  std::string s = fmt::format("# Store {} (schema version {})\n\n", db.describe(), store_version(db));
  s += machines_table(db);
  StoreParams p;
  const std::string where = run_where_sql(flt, p);
  const std::vector<StoreRow> runs = db.query(
      "SELECT r.id, r.started_utc, r.hostname, r.folder_name, SUBSTR(m.fingerprint, 1, 16), r.profile, r.suite_commit, "
      "(SELECT COUNT(*) FROM results x WHERE x.run_id = r.id) FROM runs r JOIN machines m ON m.id = r.machine_id "
      "WHERE " +
          where + " ORDER BY r.started_utc, r.id",
      p);
  s += fmt::format(
      "\n## Runs ({})\n\n| id | started (UTC) | host | folder | machine | profile | suite commit | "
      "result rows |\n|---|---|---|---|---|---|---|---|\n",
      runs.size());
  for (const StoreRow& r : runs)
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", r[0].text, r[1].text, r[2].text, r[3].text,
                     r[4].text, r[5].text, r[6].text, r[7].text);
  s += fmt::format(
      "\nTotals: {} machines, {} runs, {} files, {} CSV records, {} result rows, {} verdicts, {} noise rows\n",
      count_of(db, "machines"), count_of(db, "runs"), count_of(db, "run_files"), count_of(db, "csv_records"),
      count_of(db, "results"), count_of(db, "verdicts"), count_of(db, "noise"));
  return s;
}

StoreVerifyResult store_verify(StoreBackend& db) {
  StoreVerifyResult v;
  for (const StoreRow& run : db.query("SELECT id, folder_name, content_sha256 FROM runs ORDER BY id")) {
    ++v.runs;
    const long long id = std::stoll(run[0].text);
    std::string content;
    for (const StoredFile& f : stored_files(db, id)) {
      ++v.files;
      content += f.name + "\t" + f.sha256 + "\n";
      const std::string d = difference(f);
      if (!d.empty()) v.problems.push_back(fmt::format("run {} ({}) {}: {}", id, run[1].text, f.name, d));
      // A result file the manifest checksummed: the stored bytes against the manifest's SHA-256 too.
      for (const StoreRow& m : db.query(
               "SELECT sha256 FROM manifest_entries WHERE run_id = ? AND output = ? AND sha256 <> ''", {id, f.name}))
        if (m[0].text != sha256_hex(f.text))
          v.problems.push_back(
              fmt::format("run {} ({}) {}: differs from the SHA-256 its manifest records", id, run[1].text, f.name));
    }
    for (const StoreRow& sp : db.query("SELECT set_name, sha256, body FROM run_set_profiles WHERE run_id = ?", {id}))
      if (sha256_hex(sp[2].text) != sp[1].text)
        v.problems.push_back(fmt::format("run {} ({}) {}/noise.csv: differs from the SHA-256 recorded on import", id,
                                         run[1].text, sp[0].text));
    for (const StoreRow& dg : db.query("SELECT sha256, body FROM run_digests WHERE run_id = ?", {id}))
      if (sha256_hex(dg[1].text) != dg[0].text)
        v.problems.push_back(
            fmt::format("run {} ({}) digest: differs from the SHA-256 recorded on import", id, run[1].text));
    if (sha256_hex(content) != run[2].text)
      v.problems.push_back(
          fmt::format("run {} ({}): its list of files differs from the one imported", id, run[1].text));
  }
  return v;
}

bool stored_set_profile(StoreBackend& db, long long run_id, std::string& set_name, std::string& body) {
  const std::vector<StoreRow> r =
      db.query("SELECT set_name, sha256, body FROM run_set_profiles WHERE run_id = ?", {run_id});
  if (r.empty()) return false;
  if (sha256_hex(r[0][2].text) != r[0][1].text)
    throw std::runtime_error(
        fmt::format("store {}: run {}: its set's noise profile ({}/noise.csv) differs from its "
                    "stored SHA-256",
                    db.describe(), run_id, r[0][0].text));
  set_name = r[0][0].text;
  body = r[0][2].text;
  return true;
}

std::map<long long, std::pair<std::string, std::string>> fetch_run_digests(StoreBackend& db,
                                                                           const std::vector<long long>& ids,
                                                                           const std::string& key) {
  std::map<long long, std::pair<std::string, std::string>> out;
  if (ids.empty()) return out;
  std::string sql = "SELECT run_id, sha256, body FROM run_digests WHERE digest_key = ? AND run_id IN (";
  StoreParams p{key};
  for (size_t i = 0; i < ids.size(); ++i) {
    sql += i ? ", ?" : "?";
    p.emplace_back(std::in_place_type<long long>, ids[i]);
  }
  for (StoreRow& r : db.query(sql + ")", p))
    out.emplace(std::stoll(r[0].text), std::make_pair(std::move(r[1].text), std::move(r[2].text)));
  return out;
}

void check_run_digest(StoreBackend& db, long long run_id, const std::string& sha256, const std::string& body) {
  if (sha256_hex(body) != sha256)
    throw std::runtime_error(
        fmt::format("store {}: run {}: its digest differs from its stored SHA-256 (rigcheck store verify "
                    "lists what else does)",
                    db.describe(), run_id));
}

namespace {
// The set's noise profile beside the exported run: written to PARENT/noise.csv when PARENT is named
// noise-* and has none (where the report looks for it); else said. "" when the run has none.
std::string export_set_profile(StoreBackend& db, long long run_id, const std::string& dir) {
  std::string set, body;
  try {
    if (!stored_set_profile(db, run_id, set, body)) return "";
  } catch (const std::runtime_error& e) {
    return std::string(e.what()) + ": not written";
  }
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const size_t slash = d.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : d.substr(0, slash);
  const std::string pname = parent.substr(parent.rfind('/') == std::string::npos ? 0 : parent.rfind('/') + 1);
  struct stat st {};
  if (pname.rfind("noise-", 0) == 0 && ::stat((parent + "/noise.csv").c_str(), &st) != 0) {
    write_new_file(parent + "/noise.csv", body);
    return fmt::format("its set's noise profile ({}) written to {}/noise.csv", set, parent);
  }
  return fmt::format(
      "its set's noise profile ({}/noise.csv) not written: the report reads it from the run's parent "
      "folder when that is named noise-* (give a DIR inside one)",
      set);
}
}  // namespace

std::string store_export_run(StoreBackend& db, long long run_id, const std::string& dir) {
  if (db.query("SELECT id FROM runs WHERE id = ?", {run_id}).empty())
    throw std::runtime_error(
        fmt::format("store {}: no run {} (rigcheck store list shows the ids)", db.describe(), run_id));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) throw std::runtime_error(fmt::format("{} exists: not overwritten", dir));
  const std::vector<StoredFile> files = stored_files(db, run_id);
  for (const StoredFile& f : files) {  // every file checked before anything is written
    if (!inside_folder(f.name))
      throw std::runtime_error(
          fmt::format("store {}: run {} has a file named \"{}\": refused", db.describe(), run_id, f.name));
    if (const std::string d = difference(f); !d.empty())
      throw std::runtime_error(
          fmt::format("store {}: run {} {}: {}; nothing written", db.describe(), run_id, f.name, d));
  }
  if (::mkdir(dir.c_str(), 0755) != 0)
    throw std::runtime_error(fmt::format("cannot make {}: {}", dir, std::strerror(errno)));
  for (const StoredFile& f : files) {
    for (size_t slash = f.name.find('/'); slash != std::string::npos; slash = f.name.find('/', slash + 1))
      if (::mkdir((dir + "/" + f.name.substr(0, slash)).c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error(
            fmt::format("cannot make {}/{}: {}", dir, f.name.substr(0, slash), std::strerror(errno)));
    write_new_file(dir + "/" + f.name, f.text);
  }
  return export_set_profile(db, run_id, dir);
}

RunFiles store_run_files(StoreBackend& db, long long run_id, const std::string& dir, std::mutex* ask) {
  RunFiles run{dir, true, {}, {}};
  std::vector<StoredFile> files;
  {
    std::unique_lock<std::mutex> one_at_a_time;
    if (ask) one_at_a_time = std::unique_lock<std::mutex>(*ask);
    files = stored_files(db, run_id);
  }
  for (StoredFile& f : files) {
    std::string sha256;
    if (const std::string d = difference(f, &sha256); !d.empty())
      throw std::runtime_error(fmt::format("store {}: run {} {}: {}", db.describe(), run_id, f.name, d));
    run.sha256.emplace(f.name, std::move(sha256));  // computed from the bytes: verify_run_folder need not again
    run.files.emplace(f.name, std::move(f.text));
  }
  if (run.files.empty())
    throw std::runtime_error(
        fmt::format("store {}: no run {} (rigcheck store list shows the ids)", db.describe(), run_id));
  return run;
}

}  // namespace rigcheck
