// rigcheck store (docs/store.md): run folders into one database and back. `add` verifies each
// folder (verify_run_folder) and imports it in one transaction: its machine, the run, every file
// record by record with the columns queries select on; the same run again adds nothing. `list`
// shows machines and runs, `verify` re-checks every stored file against its stored SHA-256, and
// `export_run` writes a stored run back as a folder, byte for byte.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/store/backend.hpp"
#include "rigcheck/store/select.hpp"

namespace rigcheck {

struct StoreAddOutcome {
  enum class What { added, already_stored, refused };
  std::string dir;
  What what = What::refused;
  long long run_id = 0;  // added or already stored: its id in the store
  std::string message;   // one line: what was stored, or why not
};
// Each folder in a transaction of its own; a refused folder writes nothing and the rest go on.
// Test hook: RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS=N makes the import say so on stderr and sleep
// RIGCHECK_STORE_TEST_PAUSE_S seconds (default 120) inside its transaction after the N-th CSV record
// (tests/bench/store/store_cli.sh kills it there, or starts a second writer there).
// `digest`, where given, makes each run's digest from its files in memory (the compare layer's
// run_digest.hpp, passed down by the rigcheck command: this layer cannot see it); it is stored in the
// run's transaction. A folder already stored whose digest is missing or of another key gets it then
// ("digest added"). A digest that cannot be made (its run would not load) is left out, and said.
struct RunDigest {
  std::string key, body;
};
using RunDigester = std::function<RunDigest(const RunFiles& files)>;
std::vector<StoreAddOutcome> store_add(StoreBackend& db, const std::vector<std::string>& dirs,
                                       const RunDigester& digest = {});
// The digests of key `key` of several runs in one query: run id -> (its recorded SHA-256, body),
// not yet checked (check_run_digest); a run without one is absent.
std::map<long long, std::pair<std::string, std::string>> fetch_run_digests(StoreBackend& db,
                                                                           const std::vector<long long>& ids,
                                                                           const std::string& key);
// Throws std::runtime_error naming the run when `body` does not have the SHA-256 `sha256`.
void check_run_digest(StoreBackend& db, long long run_id, const std::string& sha256, const std::string& body);

// Markdown: the machines, the runs the selection keeps (oldest first), the store's totals.
std::string store_list(StoreBackend& db, const RunSelector& filter);

struct StoreVerifyResult {
  long runs = 0, files = 0;
  std::vector<std::string> problems;  // "run N (folder) file: what differs"
};
StoreVerifyResult store_verify(StoreBackend& db);

// Writes run `run_id` into a new folder `dir`, every file as it was imported. Refuses an existing
// dir (never overwrites), and a stored file whose SHA-256 no longer matches (nothing written then).
// When the run was stored with its set's noise profile (a `run --repeat` set: PARENT noise-*/noise.csv),
// that profile is written to DIR's parent as noise.csv where the parent is named noise-* and has none,
// so that the report judges the folder as it judged the original; returns what was done with it in
// words ("" when the run has none).
std::string store_export_run(StoreBackend& db, long long run_id, const std::string& dir);
// The run's set noise profile (its set folder's name, noise-HOST-TIME, and its noise.csv): false
// when none was stored; throws when its bytes no longer match the SHA-256 recorded on import.
bool stored_set_profile(StoreBackend& db, long long run_id, std::string& set_name, std::string& body);

// Run `run_id`'s files in memory, every one checked as store_export_run checks it (its bytes against
// the size, records and SHA-256 recorded on import: else std::runtime_error naming it), for read_run;
// `dir` stands for the run's folder (RunFiles). `ask`, where given, is held while the store is asked
// (one thread at a time on a connection); the checks run outside it.
RunFiles store_run_files(StoreBackend& db, long long run_id, const std::string& dir, std::mutex* ask = nullptr);

}  // namespace rigcheck
