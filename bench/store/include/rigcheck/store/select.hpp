// Runs chosen from the results store (docs/store.md "Selectors"), and read as run folders are read
// (read_run on their files in memory), so that compare, history and noise give the same statistics
// and the same output (tests/bench/store/store_cli.sh, mode selection, compares the two).
#pragma once
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/runfolder/run_folder.hpp"
#include "rigcheck/store/backend.hpp"

namespace rigcheck {

// One selection: terms KEY=VALUE joined by ',' (a bare number is id=N). Keys: id (a run's id;
// several id terms add up, as several folder terms do), machine (a fingerprint, 8+ of its first hex digits, or a
// hostname), folder (the run folder's name), since (started at or after this UTC date/time, 2026-12-01 or
// 2026-12-01T12:00:00Z), until (started before it), last (the newest N of what the rest keeps);
// any other key is an inventory fact that must equal VALUE (gpu_driver=580.65.06, profile=quick).
struct RunSelector {
  std::vector<long long> ids;
  std::vector<std::string> folders;
  std::string machine, since, until;
  std::vector<std::pair<std::string, std::string>> facts;
  int last = 0;
  bool empty() const;
};
// Throws std::invalid_argument naming the term that is not KEY=VALUE or whose value is not valid.
RunSelector parse_run_selector(const std::string& text);

// The WHERE clause of a selection over `runs r JOIN machines m`, its parameters appended to `p`.
std::string run_where_sql(const RunSelector& sel, StoreParams& p);

struct StoredRunRef {
  long long id = 0;
  std::string folder_name, hostname, started_utc;
};
// The runs a selection keeps, oldest first (started time, then id).
std::vector<StoredRunRef> select_runs(StoreBackend& db, const RunSelector& sel);
// Each selection's runs in the order given, each selection's oldest first; a run chosen twice once.
// Throws std::runtime_error naming a selection that keeps no run.
std::vector<StoredRunRef> select_runs(StoreBackend& db, const std::vector<std::string>& selections);

// The selected runs, read from the store when a command reads one (compare, history and noise:
// CompareOptions::read): its files fetched in one query and checked as store_export_run checks them
// (store_run_files), then read_run on them in memory, so that they are verified and parsed by the
// same code as a folder's. Each run stands for a folder named "STORE run ID/FOLDER_NAME": the label
// compare gives a run is its folder's name, and two runs of one name do not meet.
class StoredRuns {
 public:
  explicit StoredRuns(StoreBackend& db) : db_(db) {}
  ~StoredRuns();  // removes the temporary folder of the set profiles, if one was made
  StoredRuns(const StoredRuns&) = delete;
  StoredRuns& operator=(const StoredRuns&) = delete;
  // The names that stand for these runs' folders, in the order given; a run added twice has one name.
  std::vector<std::string> add(const std::vector<StoredRunRef>& runs);
  // read_run of the run a name of add() stands for. Safe from several threads: they ask the store one
  // at a time, and parse at once.
  RunData read(const std::string& dir) const;
  // The digest of key `key` of the run a name of add() stands for (fetch_run_digests, then
  // check_run_digest): false when it has none of that key. Safe from several threads, as read. The digests are fetched
  // kDigestChunk runs at a time, in the order added (one round trip for many runs: PostgreSQL's latency), and each is
  // checked against its SHA-256 outside the lock.
  bool digest(const std::string& dir, const std::string& key, std::string& body) const;
  static constexpr size_t kDigestChunk = 32;
  // The text of a run's verdicts.csv (its records in order), "" for a run stored without one (the history
  // page's claims strip). The first call fetches those of every run of the selection in one query.
  std::string verdicts_csv(const std::string& dir) const;

 private:
  StoreBackend& db_;
  std::map<std::string, long long> ids_;  // name -> run id
  std::vector<long long> order_;          // the run ids in the order added, each once
  mutable std::set<long long> asked_;     // runs whose digest was fetched (or found missing)
  mutable std::map<long long, std::pair<std::string, std::string>> fetched_;  // id -> (SHA-256, body), not yet taken
  mutable std::map<long long, std::string> verdicts_;                         // run id -> verdicts.csv, once fetched
  mutable bool verdicts_fetched_ = false;
  std::string root_;  // temporary folder of the runs' set noise profiles, or ""
  mutable std::mutex ask_;
};

}  // namespace rigcheck
