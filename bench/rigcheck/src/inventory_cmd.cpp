#include "inventory_cmd.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rigcheck/harness/process.hpp"
#include "rigcheck/inventory/inventory.hpp"

namespace rigcheck {

namespace fs = std::filesystem;

namespace {

// A captured root as hwloc-gather-topology saves it: NAME.tar.bz2 (or .tar, .tar.gz) holding one
// folder NAME with sys/ and proc/. Unpacked into a temporary folder removed on scope exit.
class CapturedRoot {
 public:
  CapturedRoot(const std::string& path, const std::string& exclude) {
    if (fs::is_directory(path)) {
      root_ = path;
      return;
    }
    if (!fs::is_regular_file(path)) throw std::runtime_error(fmt::format("--sysroot {}: no such folder or file", path));
    char tmpl[] = "/tmp/rigcheck-sysroot.XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("cannot make a temporary folder for --sysroot");
    tmp_ = tmpl;
    std::vector<std::string> argv = {"tar", "-xf", fs::absolute(path).string(), "-C", tmp_};
    if (!exclude.empty()) argv.push_back("--exclude-from=" + fs::absolute(exclude).string());
    const ChildResult r = run_child(argv, {}, 300, tmp_ + ".log", false);
    std::error_code ec;
    fs::remove(tmp_ + ".log", ec);
    if (r.exit_code != 0)
      throw std::runtime_error(fmt::format("--sysroot {}: tar could not unpack it ({})", path, r.output_tail));
    // The capture's one top folder; a tarball of sys/ and proc/ themselves is its own root.
    std::vector<fs::path> tops;
    for (const auto& e : fs::directory_iterator(tmp_)) tops.push_back(e.path());
    root_ = tops.size() == 1 && fs::is_directory(tops[0]) && !fs::exists(tops[0] / "cpu") ? tops[0].string() : tmp_;
    if (!fs::exists(fs::path(root_) / "sys"))
      throw std::runtime_error(fmt::format(
          "--sysroot {}: no sys/ folder in it (hwloc-gather-topology's layout: NAME/sys, NAME/proc)", path));
  }
  ~CapturedRoot() {
    std::error_code ec;
    if (!tmp_.empty()) fs::remove_all(tmp_, ec);
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_, tmp_;
};

}  // namespace

void InventoryCommand::add(CLI::App& app) {
  cmd = app.add_subcommand("inventory",
                           "this machine's facts as key,value CSV on stdout (or --out FILE); with --sysroot, "
                           "the facts of a captured machine");
  cmd->add_option("--out", out, "file to write instead of stdout (never overwritten)");
  cmd->add_option("--sysroot", sysroot,
                  "a captured root: a folder with sys/ and proc/, or the tarball hwloc-gather-topology writes; the "
                  "machine's shape, identity and limits are read from it, and facts only a live process knows are "
                  "not collected");
  cmd->add_option("--sysroot-exclude", sysroot_exclude, "a tar --exclude-from file for the --sysroot tarball");
}

bool InventoryCommand::chosen() const { return cmd && *cmd; }

int InventoryCommand::run() const {
  if (!out.empty()) {
    struct stat st {};
    if (::stat(out.c_str(), &st) == 0) {
      std::fprintf(stderr, "rigcheck inventory: %s exists; not overwritten\n", out.c_str());
      return 2;
    }
  }
  Inventory inv;
  if (!sysroot.empty()) {
    const CapturedRoot root(sysroot, sysroot_exclude);
    inv = collect_captured_inventory(root.root());
  } else {
    inv = collect_inventory();
  }
  if (out.empty()) {
    std::fputs(format_inventory_csv(inv).c_str(), stdout);
  } else {
    write_inventory_csv(inv, out);
    std::fprintf(stderr, "rigcheck inventory: %zu facts written to %s\n", inv.size(), out.c_str());
  }
  return 0;
}

}  // namespace rigcheck
