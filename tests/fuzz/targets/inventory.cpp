// inventory.csv (key,value), read by report, compare and history through read_key_value_csv;
// what it accepts must survive the inventory writer's round trip (format_inventory_csv).
#include "fuzz.hpp"
#include "rigcheck/inventory/inventory.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(inventory) {
  const std::string path = write_input(data, size, "inventory.csv");
  std::vector<std::pair<std::string, std::string>> kv;
  if (refused_with_input_error(path, [&] { kv = read_key_value_csv(path, "key", "value"); })) return 0;
  const auto back = read_back(format_inventory_csv(kv), "inventory-again.csv", "format_inventory_csv",
                              [](const std::string& p) { return read_key_value_csv(p, "key", "value"); });
  check(back == kv, "an accepted inventory reads back differently after format_inventory_csv");
  return 0;
}
