// Runs chosen from the results store (docs/store.md "Selectors"), and written back as folders so
// that compare, history and noise read them exactly as they read run folders: the same code, the
// same statistics, the same output (tests/bench/store/store_select.sh compares the two).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/store/backend.hpp"

namespace rigcheck {

// One selection: terms KEY=VALUE joined by ',' (a bare number is id=N). Keys: id (a run's id;
// several id terms add up, as several folder terms do), machine (a fingerprint, 8+ of its first hex digits, or a hostname),
// folder (the run folder's name), since (started at or after this UTC date/time, 2026-12-01 or
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

// The runs written back (store_export_run: byte for byte, every file checked against its stored
// SHA-256 first) under a new temporary folder, each as ROOT/ID/FOLDER_NAME so that a run keeps its
// folder's name (compare's label) and two runs of one name do not meet. Removed with this object.
class StoredRunFolders {
 public:
  StoredRunFolders(StoreBackend& db, const std::vector<StoredRunRef>& runs);
  ~StoredRunFolders();
  StoredRunFolders(const StoredRunFolders&) = delete;
  StoredRunFolders& operator=(const StoredRunFolders&) = delete;
  const std::vector<std::string>& dirs() const { return dirs_; }

 private:
  std::string root_;
  std::vector<std::string> dirs_;
};

}  // namespace rigcheck
