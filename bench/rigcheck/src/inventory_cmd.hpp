// rigcheck inventory: this machine's facts, or those of a captured root (--sysroot), as key,value CSV.
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace rigcheck {

struct InventoryCommand {
  std::string out, sysroot, sysroot_exclude;
  CLI::App* cmd = nullptr;
  void add(CLI::App& app);
  bool chosen() const;
  int run() const;
};

}  // namespace rigcheck
