// Selections of stored runs, and the runs read from the store (select.hpp).
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/split.hpp"
#include "rigcheck/store/select.hpp"
#include "rigcheck/store/store.hpp"

namespace rigcheck {

bool RunSelector::empty() const {
  return ids.empty() && machine.empty() && folders.empty() && since.empty() && until.empty() && facts.empty() &&
         last == 0;
}

namespace {
std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

long long positive_integer(const std::string& term, const std::string& v) {
  long long n = 0;
  for (char c : v) {
    if (c < '0' || c > '9' || n > 1'000'000'000'000LL)
      throw std::invalid_argument(fmt::format("selection term '{}': {} is not a positive whole number", term, v));
    n = n * 10 + (c - '0');
  }
  if (v.empty() || n <= 0)
    throw std::invalid_argument(fmt::format("selection term '{}': needs a number of 1 or more", term));
  return n;
}
}  // namespace

RunSelector parse_run_selector(const std::string& text) {
  RunSelector s;
  for (const std::string& raw : split_fields(text, ',')) {
    const std::string term = trim(raw);
    if (term.empty()) continue;
    const size_t eq = term.find('=');
    if (eq == std::string::npos) {
      if (term.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(
            fmt::format("selection term '{}': KEY=VALUE (id, machine, folder, since, until, last, "
                        "or an inventory fact) or a run id",
                        term));
      s.ids.push_back(positive_integer(term, term));
      continue;
    }
    const std::string k = trim(term.substr(0, eq)), v = trim(term.substr(eq + 1));
    if (k.empty() || v.empty())
      throw std::invalid_argument(fmt::format("selection term '{}': empty key or value", term));
    if (k == "id")
      s.ids.push_back(positive_integer(term, v));
    else if (k == "machine" || k == "host")
      s.machine = v;
    else if (k == "folder")
      s.folders.push_back(v);
    else if (k == "since")
      s.since = v;
    else if (k == "until")
      s.until = v;
    else if (k == "last")
      s.last = static_cast<int>(std::min(positive_integer(term, v), 1'000'000LL));
    else
      s.facts.emplace_back(k, v);
  }
  return s;
}

namespace {
std::string make_temp_folder(const char* prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot make a temporary folder: {}", std::strerror(errno)));
  return tmpl;
}

// " AND COLUMN IN (?, ?...)" with the values as parameters; nothing when there are none.
template <class T>
void in_list(std::string& where, const char* column, const std::vector<T>& values, StoreParams& p) {
  if (values.empty()) return;
  where += fmt::format(" AND {} IN (", column);
  for (size_t i = 0; i < values.size(); ++i) {
    where += i ? ", ?" : "?";
    p.push_back(values[i]);
  }
  where += ")";
}
}  // namespace

std::string run_where_sql(const RunSelector& sel, StoreParams& p) {
  std::string where = "1 = 1";
  in_list(where, "r.id", sel.ids, p);
  if (!sel.machine.empty()) {
    where +=
        " AND (m.fingerprint = ? OR (LENGTH(?) >= 8 AND SUBSTR(m.fingerprint, 1, LENGTH(?)) = ?) OR r.hostname = ?)";
    for (int i = 0; i < 5; ++i) p.push_back(sel.machine);
  }
  in_list(where, "r.folder_name", sel.folders, p);
  if (!sel.since.empty()) where += " AND r.started_utc >= ?", p.push_back(sel.since);
  if (!sel.until.empty()) where += " AND r.started_utc < ?", p.push_back(sel.until);
  for (const auto& [k, v] : sel.facts) {
    where += " AND EXISTS (SELECT 1 FROM inventory_facts f WHERE f.run_id = r.id AND f.key = ? AND f.value = ?)";
    p.push_back(k);
    p.push_back(v);
  }
  return where;
}

std::vector<StoredRunRef> select_runs(StoreBackend& db, const RunSelector& sel) {
  StoreParams p;
  const std::string where = run_where_sql(sel, p);
  std::vector<StoredRunRef> out;
  for (const StoreRow& r : db.query("SELECT r.id, r.folder_name, r.hostname, r.started_utc FROM runs r JOIN machines m "
                                    "ON m.id = r.machine_id WHERE " +
                                        where + " ORDER BY r.started_utc, r.id",
                                    p)) {
    StoredRunRef ref;
    ref.id = std::stoll(r[0].text);
    ref.folder_name = r[1].text;
    ref.hostname = r[2].text;
    ref.started_utc = r[3].text;
    out.push_back(std::move(ref));
  }
  if (sel.last > 0 && out.size() > static_cast<size_t>(sel.last)) out.erase(out.begin(), out.end() - sel.last);
  return out;
}

std::vector<StoredRunRef> select_runs(StoreBackend& db, const std::vector<std::string>& selections) {
  std::vector<StoredRunRef> out;
  std::set<long long> seen;
  for (const std::string& text : selections) {
    const std::vector<StoredRunRef> got = select_runs(db, parse_run_selector(text));
    if (got.empty())
      throw std::runtime_error(fmt::format("store {}: the selection '{}' keeps no run (rigcheck store list shows them)",
                                           db.describe(), text));
    for (const StoredRunRef& r : got)
      if (seen.insert(r.id).second) out.push_back(r);
  }
  return out;
}

std::vector<std::string> StoredRuns::add(const std::vector<StoredRunRef>& runs) {
  std::vector<std::string> dirs;
  for (const StoredRunRef& r : runs) {
    // A run of a `run --repeat` set stored with the set's noise profile: the profile written to
    // ROOT/ID/SET/noise.csv (a temporary folder) and the run named ROOT/ID/SET/FOLDER, where the
    // report's CPU-1 looks for it (scaling_prediction.cpp: profile_path); every other run by its id.
    std::string set, body;
    if (stored_set_profile(db_, r.id, set, body)) {
      if (root_.empty()) root_ = make_temp_folder("rigcheck-store-");
      const std::string parent = fmt::format("{}/{}/{}", root_, r.id, set);
      std::filesystem::create_directories(parent);
      if (!std::filesystem::exists(parent + "/noise.csv")) write_file_atomic(parent + "/noise.csv", body);
      dirs.push_back(parent + "/" + r.folder_name);
    } else {
      dirs.push_back(fmt::format("{} run {}/{}", db_.describe(), r.id, r.folder_name));
    }
    if (ids_.emplace(dirs.back(), r.id).second) order_.push_back(r.id);
  }
  return dirs;
}

StoredRuns::~StoredRuns() {
  std::error_code ec;
  if (!root_.empty()) std::filesystem::remove_all(root_, ec);
}

RunData StoredRuns::read(const std::string& dir) const {
  const auto it = ids_.find(dir);
  if (it == ids_.end()) throw std::logic_error(fmt::format("{}: not a run of this selection", dir));
  return read_run(store_run_files(db_, it->second, dir, &ask_));  // a connection serves one thread at a time
}

bool StoredRuns::digest(const std::string& dir, const std::string& key, std::string& body) const {
  const auto it = ids_.find(dir);
  if (it == ids_.end()) throw std::logic_error(fmt::format("{}: not a run of this selection", dir));
  const long long id = it->second;
  std::pair<std::string, std::string> got;
  {
    std::lock_guard<std::mutex> hold(ask_);
    if (!asked_.count(id)) {  // this run and the next ones not yet asked, in the order added
      std::vector<long long> chunk;
      for (auto at = std::find(order_.begin(), order_.end(), id); at != order_.end() && chunk.size() < kDigestChunk;
           ++at)
        if (asked_.insert(*at).second) chunk.push_back(*at);
      for (auto& [k, v] : fetch_run_digests(db_, chunk, key)) fetched_.emplace(k, std::move(v));
    }
    auto f = fetched_.find(id);
    if (f == fetched_.end()) return false;
    got = std::move(f->second);
    fetched_.erase(f);
  }
  check_run_digest(db_, id, got.first, got.second);  // outside the lock: the other thread fetches meanwhile
  body = std::move(got.second);
  return true;
}

std::string StoredRuns::verdicts_csv(const std::string& dir) const {
  const auto it = ids_.find(dir);
  if (it == ids_.end()) throw std::logic_error(fmt::format("{}: not a run of this selection", dir));
  std::lock_guard<std::mutex> hold(ask_);
  if (!verdicts_fetched_) {
    const std::set<long long> ours(order_.begin(), order_.end());
    for (const StoreRow& r : db_.query("SELECT f.run_id, c.raw FROM run_files f JOIN csv_records c ON c.file_id = f.id "
                                       "WHERE f.kind = 'verdicts' ORDER BY f.run_id, c.record_no")) {
      const long long id = std::stoll(r[0].text);
      if (ours.count(id)) verdicts_[id] += r[1].text;
    }
    verdicts_fetched_ = true;
  }
  const auto v = verdicts_.find(it->second);
  return v == verdicts_.end() ? "" : v->second;
}

}  // namespace rigcheck
