// compare, history, noise and ab on the command line (bench/compare/src/), and the results store's
// selection options they share with `rigcheck store` (select.hpp, docs/store.md).
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck {

// Runs chosen from the results store (--db and its selection options; select.hpp, docs/store.md):
// the options a command adds, and the selections they make.
struct StoreSelection {
  std::string db, machine, since, until;
  std::vector<std::string> where;
  int last = 0;

  void add(CLI::App* c, bool with_db) {
    if (with_db)
      c->add_option("--db", db,
                    "read the runs from this results store (a SQLite file or a postgresql:// URL): the "
                    "run arguments are then selections, e.g. 'machine=vm,since=2026-12-01' or a run id");
    c->add_option("--machine", machine,
                  "only the runs of this machine: its fingerprint (or 8+ of its first hex digits) "
                  "or a hostname");
    c->add_option("--since", since, "only the runs started at or after this UTC date/time, e.g. 2026-12-01");
    c->add_option("--until", until, "only the runs started before this UTC date/time");
    c->add_option("--where", where,
                  "only the runs whose inventory has KEY=VALUE (repeatable), e.g. gpu_driver=580.65.06")
        ->expected(1, 100);
    c->add_option("--last", last, "only the newest N of the runs the rest keeps");
  }
  // The options as one selection's terms ("" when none is given).
  std::string terms() const {
    std::string t;
    auto add = [&t](const std::string& k, const std::string& v) {
      if (!v.empty()) t += (t.empty() ? "" : ",") + k + "=" + v;
    };
    add("machine", machine);
    add("since", since);
    add("until", until);
    add("last", last > 0 ? std::to_string(last) : "");
    for (const std::string& w : where) t += (t.empty() ? "" : ",") + w;
    return t;
  }
  // Each item ANDed with the options; the options alone when no item is given.
  std::vector<std::string> selections(const std::vector<std::string>& items) const {
    const std::string t = terms();
    if (items.empty()) return t.empty() ? std::vector<std::string>{} : std::vector<std::string>{t};
    std::vector<std::string> out;
    for (const std::string& i : items) out.push_back(t.empty() ? i : i + "," + t);
    return out;
  }
};

// The runs a comparing command reads: the given folders, or, with --db, the selected runs of the
// store (`stored` reads them: CompareOptions::read), each named as a folder that stands for it.
// compare, history, noise and ab: their options and how each is run (bench/compare/src/).
struct ComparingCommands {
  std::vector<std::string> compare_dirs, history_dirs, noise_dirs;
  CompareOptions co, ho, no;
  std::string noise_out = "noise.csv";
  AbOptions ab;
  std::string ab_only, ab_select, ab_analyze;
  StoreSelection compare_sel, history_sel, noise_sel;
  CLI::App *compare_cmd = nullptr, *history_cmd = nullptr, *noise_cmd = nullptr, *ab_cmd = nullptr;

  std::string group_by;  // history --group-by

  static void add_common(CLI::App* c, CompareOptions& o, bool with_out = true);
  void add(CLI::App& app);
  bool chosen() const { return *compare_cmd || *history_cmd || *noise_cmd || *ab_cmd; }
  int run();
};

}  // namespace rigcheck
