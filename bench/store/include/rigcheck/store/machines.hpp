// The store's machines: each run filed under the machine its inventory names (records.hpp's
// fingerprint), and the step that files every stored run anew when the fingerprint's rule changes.
#pragma once
#include "rigcheck/store/backend.hpp"
#include "rigcheck/store/records.hpp"

namespace rigcheck {

// The id of the machine with m's fingerprint, its row added when the store has none. Inside the
// caller's write transaction.
long long store_machine_id(StoreBackend& db, const MachineFacts& m);

// Every run filed anew under the machine its stored inventory facts name today, and machines left
// without runs removed; returns how many runs moved. Inside the caller's write transaction (a
// schema migration's).
long long refile_runs_by_machine(StoreBackend& db);

}  // namespace rigcheck
