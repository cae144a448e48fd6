// The SQLite back end of the results store (backend.hpp), and open_backend, which picks the back end
// a --db value names. SQLite: one file, journal_mode=WAL so readers
// never block the writer, and a busy timeout so a second writer waits for the first instead of
// failing (two `rigcheck store add` at once both succeed: tests/bench/store/store_cli.sh).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <thread>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <fmt/format.h>

#include "rigcheck/store/backend.hpp"

namespace rigcheck {
namespace {

constexpr int kBusyTimeoutMs = 600000;  // ten minutes: a writer waits this long for another

class SqliteBackend : public StoreBackend {
 public:
  explicit SqliteBackend(const std::string& path)
      : path_(path), db_(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE, kBusyTimeoutMs) {
    // Switching to WAL takes a lock of its own: retried while another process holds the file.
    for (int i = 0;; ++i) {
      try {
        db_.exec("PRAGMA journal_mode=WAL");
        break;
      } catch (const SQLite::Exception& e) {
        if (i > 600 || (e.getErrorCode() != SQLITE_BUSY && e.getErrorCode() != SQLITE_LOCKED)) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    db_.exec("PRAGMA foreign_keys=ON");
    // Reads through a memory map of the file (up to 1 GiB of it) rather than read() into SQLite's own
    // page cache: history over 1,000 stored runs reads about 140 MB of digests.
    db_.exec("PRAGMA mmap_size=1073741824");
  }

  void exec(const std::string& sql) override { db_.exec(sql); }

  std::vector<StoreRow> query(const std::string& sql, const StoreParams& params) override {
    SQLite::Statement& st = statement(sql);
    st.reset();
    st.clearBindings();
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      const StoreValue& v = params[i];
      if (std::holds_alternative<long long>(v))
        st.bind(at, static_cast<int64_t>(std::get<long long>(v)));
      else if (std::holds_alternative<double>(v))
        st.bind(at, std::get<double>(v));
      else if (std::holds_alternative<std::string>(v))
        st.bind(at, std::get<std::string>(v));
      else
        st.bind(at);
    }
    std::vector<StoreRow> rows;
    while (st.executeStep()) {
      StoreRow r(st.getColumnCount());
      for (int c = 0; c < st.getColumnCount(); ++c) {
        SQLite::Column col = st.getColumn(c);
        r[c].null = col.isNull();
        if (!r[c].null) r[c].text = col.getString();
      }
      rows.push_back(std::move(r));
    }
    st.reset();
    return rows;
  }

  void begin_write() override { db_.exec("BEGIN IMMEDIATE"); }
  void commit() override { db_.exec("COMMIT"); }
  void rollback() override { db_.tryExec("ROLLBACK"); }
  std::string id_column() const override { return "INTEGER PRIMARY KEY"; }
  bool has_table(const std::string& name) override {
    return !query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", {name}).empty();
  }
  std::string describe() const override { return path_; }

 private:
  // Statements are prepared once and kept: an import runs the same INSERT thousands of times.
  SQLite::Statement& statement(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it == statements_.end()) it = statements_.emplace(sql, std::make_unique<SQLite::Statement>(db_, sql)).first;
    return *it->second;
  }
  std::string path_;
  SQLite::Database db_;
  std::map<std::string, std::unique_ptr<SQLite::Statement>> statements_;
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

std::string default_store_path() {
  const char* env = std::getenv("RIGCHECK_DB");
  return env && *env ? env : "results/rigcheck.db";
}

std::unique_ptr<StoreBackend> open_backend(const std::string& db) {
  if (starts_with(db, "postgresql://") || starts_with(db, "postgres://")) {
#ifdef RIGCHECK_WITH_POSTGRESQL
    return open_postgresql_backend(db);
#else
    throw std::runtime_error("store " + db.substr(0, db.find("://") + 3) +
                             "...: this rigcheck was built without libpq (Debian: libpq-dev): no PostgreSQL back end");
#endif
  }
  std::string path = starts_with(db, "sqlite:") ? db.substr(7) : db;
  if (path.empty()) throw std::runtime_error("store: an empty --db path");
  // The folder of a new store file is made (results/ in a fresh clone); the file itself by SQLite.
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    struct stat st {};
    const std::string dir = path.substr(0, slash);
    if (::stat(dir.c_str(), &st) != 0 && ::mkdir(dir.c_str(), 0777) != 0)
      throw std::runtime_error(fmt::format("store {}: cannot make its folder {}", path, dir));
  }
  try {
    return std::make_unique<SqliteBackend>(path);
  } catch (const SQLite::Exception& e) {
    throw std::runtime_error(fmt::format("store {}: {}", path, e.what()));
  }
}

}  // namespace rigcheck
