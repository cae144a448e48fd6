// The results store's schema and its versions (docs/store.md): every table in portable SQL, the
// version in the table schema_version (one row per step applied), and the migrations as code, a
// list of steps from version N to N+1. A store of a newer version than this rigcheck knows is
// refused, naming the store and both versions; an older one is migrated step by step when opened.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rigcheck/store/backend.hpp"

namespace rigcheck {

inline constexpr int kStoreSchemaVersion = 4;

// One migration: the statements that take a store from version `to - 1` to `to`. `{id}` in a
// statement stands for the back end's id column type (StoreBackend::id_column).
struct StoreMigration {
  int to = 0;
  std::vector<std::string> statements;
  std::function<void(StoreBackend&)> then;  // a step in code after the statements, in the same transaction
};
const std::vector<StoreMigration>& store_migrations();

// The version of the store: 0 for an empty database (no schema_version table).
int store_version(StoreBackend& db);

// Takes the store to `target` (at most kStoreSchemaVersion), each step in a write transaction of its
// own; throws, naming the store and both versions, when the store is newer than this rigcheck.
// The tests build each earlier version with it and then open it.
void migrate_store(StoreBackend& db, int target = kStoreSchemaVersion);

// open_backend, then migrate_store: the store ready at kStoreSchemaVersion.
std::unique_ptr<StoreBackend> open_store(const std::string& db);

}  // namespace rigcheck
