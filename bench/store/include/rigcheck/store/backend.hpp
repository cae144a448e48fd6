// The seam between the results store and its database (docs/store.md): the store speaks portable
// SQL (TEXT, BIGINT, DOUBLE PRECISION; `?` placeholders; INSERT ... RETURNING id) through this
// interface, and each back end runs it: SQLite (one file, WAL, a busy timeout; sqlite_backend.cpp)
// and PostgreSQL (libpq; pg_backend.cpp), which turns `?` into $1..$n and has its own id column type.
#pragma once
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace rigcheck {

// A bound parameter: NULL, an integer, a double or text. Text is bound with its length: any bytes.
using StoreValue = std::variant<std::monostate, long long, double, std::string>;
using StoreParams = std::vector<StoreValue>;
// A result cell: its text (an integer or double as the database prints it), and whether it is NULL.
struct StoreCell {
  bool null = false;
  std::string text;
};
using StoreRow = std::vector<StoreCell>;

class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  // Runs statements without parameters or results (DDL; one or several separated by ';').
  virtual void exec(const std::string& sql) = 0;
  // Runs one statement with `?` parameters; returns its rows (none for INSERT without RETURNING).
  virtual std::vector<StoreRow> query(const std::string& sql, const StoreParams& params = {}) = 0;
  // A write transaction: other writers wait (SQLite: BEGIN IMMEDIATE under the busy timeout).
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;  // never throws
  // The column type of a table's own id: an integer primary key the database numbers itself.
  virtual std::string id_column() const = 0;
  // Whether a table exists (the schema_version table tells a store from an empty database).
  virtual bool has_table(const std::string& name) = 0;
  // What the store is, for messages: the file, or the URL without its password.
  virtual std::string describe() const = 0;
};

// Opens the back end a --db value names: a path (or sqlite:PATH) is SQLite, created when absent;
// postgresql://... (or postgres://) is PostgreSQL, any libpq connection URI, in a build with libpq.
std::unique_ptr<StoreBackend> open_backend(const std::string& db);
#ifdef RIGCHECK_WITH_POSTGRESQL
std::unique_ptr<StoreBackend> open_postgresql_backend(const std::string& url);  // pg_backend.cpp
#endif

// The default store: $RIGCHECK_DB when set, else results/rigcheck.db.
std::string default_store_path();

}  // namespace rigcheck
