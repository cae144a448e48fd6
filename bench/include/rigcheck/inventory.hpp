// Machine inventory: the facts that every result row points to (DESIGN.md convention 5).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace rigcheck {

// One fact: key and value. Keys are lower_snake_case and stable (the report reads them).
// Unknown facts are not dropped: their value starts with "unknown:" and says why.
using InventoryEntry = std::pair<std::string, std::string>;
using Inventory = std::vector<InventoryEntry>;

// Collects the inventory of this machine. Never throws and never fails on missing
// hardware or libraries: absent things are reported as such.
Inventory collect_inventory();

// Looks a key up; returns fallback when absent.
std::string inventory_get(const Inventory& inv, const std::string& key,
                          const std::string& fallback = "");

// Writes inventory.csv (header "key,value") through a temporary file and rename.
void write_inventory_csv(const Inventory& inv, const std::string& path);

}  // namespace rigcheck
