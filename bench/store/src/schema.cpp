// The results store's schema, version by version (schema.hpp; docs/store.md has every table).
// Portable SQL only: TEXT, BIGINT, DOUBLE PRECISION, {id} for the back end's id column.
#include "rigcheck/store/schema.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/topology.hpp"
#include "rigcheck/store/machines.hpp"

namespace rigcheck {
namespace {

// Version 1: machines, runs, their files record by record, and the columns queries select on.
const std::vector<std::string> kVersion1 = {
    "CREATE TABLE machines (id {id}, fingerprint TEXT NOT NULL UNIQUE, facts TEXT NOT NULL, "
    "cpu_model TEXT NOT NULL, physical_cores TEXT NOT NULL, memory_gib TEXT NOT NULL, gpus TEXT NOT NULL)",
    "CREATE TABLE runs (id {id}, identity TEXT NOT NULL UNIQUE, machine_id BIGINT NOT NULL REFERENCES machines(id), "
    "folder_name TEXT NOT NULL, hostname TEXT NOT NULL, started_utc TEXT NOT NULL, suite_commit TEXT NOT NULL, "
    "profile TEXT NOT NULL, method_version TEXT NOT NULL, content_sha256 TEXT NOT NULL, source_path TEXT NOT NULL, "
    "imported_utc TEXT NOT NULL)",
    "CREATE INDEX runs_by_machine ON runs (machine_id, started_utc)",
    "CREATE INDEX runs_by_host ON runs (hostname, started_utc)",
    "CREATE TABLE run_files (id {id}, run_id BIGINT NOT NULL REFERENCES runs(id), name TEXT NOT NULL, "
    "kind TEXT NOT NULL, bytes BIGINT NOT NULL, sha256 TEXT NOT NULL, records BIGINT NOT NULL, body TEXT, "
    "UNIQUE (run_id, name))",
    "CREATE TABLE csv_records (file_id BIGINT NOT NULL REFERENCES run_files(id), record_no BIGINT NOT NULL, "
    "raw TEXT NOT NULL, PRIMARY KEY (file_id, record_no))",
    "CREATE TABLE inventory_facts (run_id BIGINT NOT NULL REFERENCES runs(id), record_no BIGINT NOT NULL, "
    "key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, record_no))",
    "CREATE INDEX inventory_by_key ON inventory_facts (key, value)",
    "CREATE TABLE manifest_entries (run_id BIGINT NOT NULL REFERENCES runs(id), record_no BIGINT NOT NULL, "
    "benchmark TEXT NOT NULL, area TEXT NOT NULL, status TEXT NOT NULL, exit_code TEXT NOT NULL, "
    "output TEXT NOT NULL, reason TEXT NOT NULL, rows_recorded BIGINT, sha256 TEXT NOT NULL, "
    "PRIMARY KEY (run_id, record_no))",
    "CREATE TABLE results (file_id BIGINT NOT NULL REFERENCES run_files(id), record_no BIGINT NOT NULL, "
    "run_id BIGINT NOT NULL REFERENCES runs(id), benchmark TEXT NOT NULL, case_name TEXT NOT NULL, "
    "params TEXT NOT NULL, metric TEXT NOT NULL, value DOUBLE PRECISION, unit TEXT NOT NULL, repetition BIGINT, "
    "status TEXT NOT NULL, note TEXT NOT NULL, PRIMARY KEY (file_id, record_no))",
    "CREATE INDEX results_by_case ON results (run_id, benchmark, case_name, metric)",
    "CREATE INDEX results_by_metric ON results (benchmark, metric)",
    "CREATE TABLE verdicts (run_id BIGINT NOT NULL REFERENCES runs(id), record_no BIGINT NOT NULL, "
    "claim_id TEXT NOT NULL, verdict TEXT NOT NULL, basis TEXT NOT NULL, PRIMARY KEY (run_id, record_no))",
    "CREATE INDEX verdicts_by_claim ON verdicts (claim_id, verdict)",
    "CREATE TABLE noise (run_id BIGINT NOT NULL REFERENCES runs(id), record_no BIGINT NOT NULL, "
    "benchmark TEXT NOT NULL, case_name TEXT NOT NULL, metric TEXT NOT NULL, sd_log DOUBLE PRECISION, "
    "PRIMARY KEY (run_id, record_no))",
};

std::string with_id_column(std::string sql, const std::string& id) {
  for (size_t at; (at = sql.find("{id}")) != std::string::npos;) sql.replace(at, 4, id);
  return sql;
}

void refuse_newer(StoreBackend& db, int version) {
  throw std::runtime_error(fmt::format(
      "store {} is schema version {}; this rigcheck knows versions up to {}: refused, nothing read or written "
      "(a newer rigcheck made it: use that one, or another --db)",
      db.describe(), version, kStoreSchemaVersion));
}

// Version 2: the noise profile of the set a run was made in (`rigcheck run --repeat N` writes N runs
// into a folder noise-HOST-TIME with their noise.csv beside them; the report's CPU-1 reads it from
// there), one per run, so that a stored run is judged as its folder was.
const std::vector<std::string> kVersion2 = {
    "CREATE TABLE run_set_profiles (run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs(id), set_name TEXT NOT NULL, "
    "bytes BIGINT NOT NULL, sha256 TEXT NOT NULL, body TEXT NOT NULL)",
};

// Version 3: a run's digest (its cases and what history, noise and ab read of it, as the compare
// layer built them from its files on import: run_digest.hpp), with the key of the format and rules it
// was built under; those commands read a run from its digest where the key is today's. A store of
// version 2 gets the table empty: its runs are read from their files until `store add` of the same
// folder adds their digests.
const std::vector<std::string> kVersion3 = {
    "CREATE TABLE run_digests (run_id BIGINT NOT NULL PRIMARY KEY REFERENCES runs(id), digest_key TEXT NOT NULL, "
    "bytes BIGINT NOT NULL, sha256 TEXT NOT NULL, body TEXT NOT NULL)",
};

// Version 4: the machine fingerprint tells CPUs apart by vendor, family, model, stepping and
// microarchitecture, takes the topology, and a run given part of the machine (a cpuset, a CPU quota, a
// memory limit) is filed apart from the whole (records.hpp). The machines get those facts as columns,
// and every stored run is filed anew from its stored inventory: a Zen 3 and a Zen 5 VM filed as one
// "AMD EPYC, 2 cores, 24 GiB" machine become two.
const std::vector<std::string> kVersion4 = {
    "ALTER TABLE machines ADD COLUMN cpu_id TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE machines ADD COLUMN shape TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE machines ADD COLUMN share TEXT NOT NULL DEFAULT ''",
};

}  // namespace

const std::vector<StoreMigration>& store_migrations() {
  static const std::vector<StoreMigration> m = {
      {1, kVersion1, {}},
      {2, kVersion2, {}},
      {3, kVersion3, {}},
      {4, kVersion4, [](StoreBackend& db) { refile_runs_by_machine(db); }},
  };
  return m;
}

int store_version(StoreBackend& db) {
  if (!db.has_table("schema_version")) return 0;
  const std::vector<StoreRow> r = db.query("SELECT MAX(version) FROM schema_version");
  return r.empty() || r[0][0].null ? 0 : std::stoi(r[0][0].text);
}

void migrate_store(StoreBackend& db, int target) {
  int version = store_version(db);
  if (version > kStoreSchemaVersion) refuse_newer(db, version);
  if (version >= target) return;
  db.begin_write();  // another process may be migrating the same store: read the version again inside
  try {
    version = store_version(db);
    if (version > kStoreSchemaVersion) refuse_newer(db, version);
    if (version == 0) db.exec("CREATE TABLE schema_version (version BIGINT NOT NULL, applied_utc TEXT NOT NULL)");
    for (const StoreMigration& m : store_migrations()) {
      if (m.to <= version || m.to > target) continue;
      for (const std::string& s : m.statements) db.exec(with_id_column(s, db.id_column()));
      if (m.then) m.then(db);
      db.query("INSERT INTO schema_version (version, applied_utc) VALUES (?, ?)",
               {static_cast<long long>(m.to), utc_timestamp_compact()});
    }
    db.commit();
  } catch (...) {
    db.rollback();
    throw;
  }
}

std::unique_ptr<StoreBackend> open_store(const std::string& db) {
  std::unique_ptr<StoreBackend> b = open_backend(db);
  migrate_store(*b);
  return b;
}

}  // namespace rigcheck
