// The store's machines (machines.hpp).
#include "rigcheck/store/machines.hpp"

#include <map>
#include <string>

namespace rigcheck {

long long store_machine_id(StoreBackend& db, const MachineFacts& m) {
  auto found = db.query("SELECT id FROM machines WHERE fingerprint = ?", {m.fingerprint});
  if (!found.empty()) return std::stoll(found[0][0].text);
  return std::stoll(db.query("INSERT INTO machines (fingerprint, facts, cpu_model, physical_cores, memory_gib, gpus, "
                             "cpu_id, shape, share) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                             {m.fingerprint, m.canonical, m.cpu_model, m.physical_cores, m.memory_gib, m.gpus, m.cpu_id,
                              m.shape, m.share})[0][0]
                        .text);
}

long long refile_runs_by_machine(StoreBackend& db) {
  std::map<long long, std::map<std::string, std::string>> inventories;  // run id -> its facts
  for (const StoreRow& r : db.query("SELECT run_id, key, value FROM inventory_facts ORDER BY run_id, record_no"))
    inventories[std::stoll(r[0].text)][r[1].text] = r[2].text;
  long long moved = 0;
  for (const StoreRow& r : db.query("SELECT id, machine_id FROM runs ORDER BY id")) {
    const long long run = std::stoll(r[0].text);
    const long long machine = store_machine_id(db, machine_facts(inventories[run]));
    if (machine == std::stoll(r[1].text)) continue;
    db.query("UPDATE runs SET machine_id = ? WHERE id = ?", {machine, run});
    ++moved;
  }
  db.exec("DELETE FROM machines WHERE id NOT IN (SELECT machine_id FROM runs)");
  return moved;
}

}  // namespace rigcheck
