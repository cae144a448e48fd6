// inventory.csv (key,value), read by report, compare and history through read_key_value_csv;
// what it accepts must survive the inventory writer's round trip (write_inventory_csv's csv_line).
#include "fuzz.hpp"
#include "rigcheck/inventory/inventory.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(inventory) {
  const std::string path = write_input(data, size, "inventory.csv");
  std::vector<std::pair<std::string, std::string>> kv;
  if (refused_with_input_error(path, [&] { kv = read_key_value_csv(path, "key", "value"); })) return 0;
  std::string text = "key,value\n";
  for (const auto& [k, v] : kv) text += csv_line({k, v}) + "\n";
  const std::string again = write_input(text, "inventory-again.csv");
  std::vector<std::pair<std::string, std::string>> back;
  try {
    back = read_key_value_csv(again, "key", "value");
  } catch (const InputError& e) {
    check(false, std::string("the writer's copy of an accepted inventory is refused: ") + e.what());
  }
  check(back == kv, "an accepted inventory reads back differently after csv_line");
  return 0;
}
