// `rigcheck ab --a SPEC --b SPEC --rounds N`: two settings of this machine measured in
// interleaved rounds (Laaber et al. 2019; Google Benchmark's random interleaving): in each round
// A and B each run once, in an order drawn at random (seeded, recorded in order.csv), each side a
// `rigcheck run` of its own (its own process, its own inventory). The rounds are then compared
// pairwise: the per-round log ratios B/A, bootstrapped over rounds (statistics.cpp). A SPEC is
// words: KEY=VALUE (the side's environment) and/or a folder (a prefix: its lib/ goes in front of
// LD_LIBRARY_PATH; a bin/rigcheck in it, e.g. another suite build, runs that side). See
// compare.hpp and docs/methodology.md.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

namespace {
volatile sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
  stop_children();
}

bool is_dir(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}
bool is_file(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') out.insert(e->d_name);
    closedir(d);
  }
  return out;
}

struct SideSpec {
  std::string spec, runner;      // runner: the rigcheck that runs this side
  std::vector<std::string> env;  // KEY=VALUE
};

SideSpec parse_side(const std::string& spec, const std::string& own_rigcheck) {
  SideSpec s;
  s.spec = spec;
  s.runner = own_rigcheck;
  size_t i = 0;
  while (i < spec.size()) {
    while (i < spec.size() && spec[i] == ' ') ++i;
    size_t j = spec.find(' ', i);
    if (j == std::string::npos) j = spec.size();
    const std::string w = spec.substr(i, j - i);
    i = j;
    if (w.empty()) continue;
    const size_t eq = w.find('=');
    if (eq != std::string::npos && eq > 0 &&
        w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == eq) {
      s.env.push_back(w);
    } else if (is_dir(w)) {
      std::string lib;
      for (const char* sub : {"/lib", "/lib/x86_64-linux-gnu", "/lib64"})
        if (is_dir(w + sub)) lib += (lib.empty() ? "" : ":") + w + sub;
      if (!lib.empty()) {
        const char* old = std::getenv("LD_LIBRARY_PATH");
        s.env.push_back("LD_LIBRARY_PATH=" + lib + (old && *old ? std::string(":") + old : ""));
      }
      if (is_file(w + "/bin/rigcheck")) s.runner = w + "/bin/rigcheck";
    } else {
      throw InputError(spec, 0,
                       fmt::format("'{}' is neither KEY=VALUE nor a folder (a prefix with lib/ or bin/rigcheck)", w));
    }
  }
  return s;
}

constexpr const char* kOrderHeader = "round,position,side,spec,run_dir,exit_code,started_utc";
struct OrderRow {
  int round = 0, position = 0, exit_code = 0;
  std::string side, spec, run_dir, started;
};

std::string format_order(const std::vector<OrderRow>& rows) {
  return format_csv(kOrderHeader, rows, [](const OrderRow& r) -> std::vector<std::string> {
    return {std::to_string(r.round),
            std::to_string(r.position),
            r.side,
            r.spec,
            r.run_dir,
            std::to_string(r.exit_code),
            r.started};
  });
}

std::vector<OrderRow> read_order(const std::string& path) {
  std::vector<OrderRow> out;
  with_csv_errors(path, [&] {
    CsvReader<7> in(path);
    in.read_header(io::ignore_no_column, "round", "position", "side", "spec", "run_dir", "exit_code", "started_utc");
    OrderRow r;
    std::string round, pos, code;
    while (in.read_row(round, pos, r.side, r.spec, r.run_dir, code, r.started)) {
      const long line = static_cast<long>(in.get_file_line());
      double x, y, z;
      auto whole = [](double v) { return v == std::floor(v) && std::fabs(v) <= 1e6; };
      if (!parse_double(round, x) || !parse_double(pos, y) || !parse_double(code, z) || !whole(x) || !whole(y) ||
          !whole(z))
        throw InputError(path, line, "round, position and exit_code must be whole numbers");
      if (r.side != "a" && r.side != "b") throw InputError(path, line, fmt::format("side '{}': a or b", r.side));
      r.round = static_cast<int>(x);
      r.position = static_cast<int>(y);
      r.exit_code = static_cast<int>(z);
      out.push_back(r);
    }
  });
  return out;
}
}  // namespace

int run_ab(const AbOptions& opt) {
  if (opt.rounds < 2)
    throw InputError("--rounds", 0, "interleaved A/B needs two or more rounds (ten or more to resolve ~10%)");
  const SideSpec sides[2] = {parse_side(opt.a, opt.rigcheck_path), parse_side(opt.b, opt.rigcheck_path)};
  const std::string dir = create_run_dir(opt.out_root, "ab-" + host_name(), utc_timestamp_compact());
  for (const char* sub : {"/a", "/b", "/logs"}) ::mkdir((dir + sub).c_str(), 0755);
  std::fprintf(stderr, "rigcheck ab: %d rounds of A (%s) and B (%s) -> %s\n", opt.rounds, opt.a.c_str(), opt.b.c_str(),
               dir.c_str());
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  Rng rng(opt.compare.stat.seed);
  std::vector<OrderRow> order;
  for (int round = 1; round <= opt.rounds && !g_stop; ++round) {
    const bool b_first = rng.below(2) == 1;
    for (int pos = 0; pos < 2 && !g_stop; ++pos) {
      const int k = (pos == 0) == b_first ? 1 : 0;
      const std::string side = k ? "b" : "a";
      std::vector<std::string> argv = {sides[k].runner, "run", "--profile", opt.profile, "--out", dir + "/" + side};
      std::string only, select;
      for (const std::string& o : opt.only) only += (only.empty() ? "" : ",") + o;
      for (const std::string& s : opt.select) select += (select.empty() ? "" : ",") + s;
      if (!only.empty()) argv.insert(argv.end(), {"--only", only});
      if (!select.empty()) argv.insert(argv.end(), {"--select", select});
      if (!opt.filter.empty()) argv.insert(argv.end(), {"--case-filter", opt.filter});
      const auto before = entries(dir + "/" + side);
      OrderRow row;
      row.round = round;
      row.position = pos + 1;
      row.side = side;
      row.spec = sides[k].spec;
      row.started = utc_timestamp_compact();
      const std::string log = fmt::format("{}/logs/round{:02d}-{}.log", dir, round, side);
      ChildResult r = run_child(argv, sides[k].env, 24 * 3600.0, log, false);
      row.exit_code = r.exit_code;
      for (const std::string& e : entries(dir + "/" + side))
        if (!before.count(e)) row.run_dir = side + "/" + e;
      std::fprintf(stderr, "rigcheck ab: round %d/%d %s (%s): exit %d, %.0f s%s\n", round, opt.rounds,
                   side == "a" ? "A" : "B", sides[k].spec.c_str(), r.exit_code, r.seconds,
                   row.run_dir.empty() ? (" (no run folder: see " + log + ")").c_str() : "");
      order.push_back(row);
      write_file_atomic(dir + "/order.csv", format_order(order));
    }
  }
  if (g_stop) std::fprintf(stderr, "rigcheck ab: interrupted; the complete rounds are analysed\n");
  return analyze_ab(dir, opt.compare);
}

int analyze_ab(const std::string& dir, const CompareOptions& opt) {
  const std::vector<OrderRow> order = read_order(dir + "/order.csv");
  const CaseRules rules = read_case_rules();
  const auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  std::map<int, std::pair<std::string, std::string>> rounds;  // round -> (a run dir, b run dir)
  std::map<int, std::string> order_of;
  std::string spec_a, spec_b;
  for (const OrderRow& r : order) {
    (r.side == "a" ? rounds[r.round].first : rounds[r.round].second) = r.run_dir;
    order_of[r.round] += r.side == "a" ? "A" : "B";
    (r.side == "a" ? spec_a : spec_b) = r.spec;
  }
  std::vector<std::string> dirs, exclusions;
  std::vector<int> complete;
  for (auto& [round, p] : rounds) {
    if (p.first.empty() || p.second.empty()) {
      exclusions.push_back(fmt::format("round {}: not complete (a side left no run folder)", round));
      continue;
    }
    complete.push_back(round);
    dirs.push_back(dir + "/" + p.first);
    dirs.push_back(dir + "/" + p.second);
  }
  CompareOptions lo = opt;
  lo.exclude_broken = false;  // a round's run that cannot be read is an error naming it
  std::vector<LoadedRun> runs = load_runs_for(dirs, lo, rules, exclusions, "rigcheck ab", 4, false);
  Side a{"A: " + (spec_a.empty() ? std::string("(as is)") : spec_a), {}},
      b{"B: " + (spec_b.empty() ? std::string("(as is)") : spec_b), {}};
  for (size_t i = 0; i + 1 < runs.size(); i += 2) {
    a.runs.push_back(&runs[i]);
    b.runs.push_back(&runs[i + 1]);
  }
  std::vector<CaseFinding> fs = compare_sides(a, b, nullptr, rules, opt.stat, true);
  const FindingCounts counts = count_findings(fs, opt.stat.alpha);
  std::vector<std::string> unrecorded;
  const auto diffs = differing_between_sides(a.runs, b.runs, defs, &unrecorded);
  std::string md = fmt::format(
      "# rigcheck ab\n\nA: `{}`; B: `{}`; {} complete rounds, each side its own `rigcheck run` "
      "process, in a random order per round (seed {}):",
      spec_a, spec_b, complete.size(), opt.stat.seed);
  for (int r : complete) md += fmt::format(" {}:{}", r, order_of[r]);
  md += ".\n" + exclusions_md(exclusions);
  md += confounders_md(diffs, unrecorded);
  md += fmt::format(
      "\nPaired rounds: for each case the log ratio B/A of each round (each side's Hodges-Lehmann estimate of its "
      "repetitions); rounds far out (one side in a slow spell) set aside by Rosner's generalized ESD, at most a "
      "quarter of them, and said in the case's note; Student's t on the rest at a level calibrated for setting "
      "rounds aside after looking (docs/methodology.md), so that its interval holds level {}. "
      "Flagged when the interval excludes 1 and the change is at least the larger of {}% and {} x the run-to-run "
      "noise (the rounds' spread / sqrt 2).\n\n",
      opt.stat.alpha, opt.stat.threshold_pct, opt.stat.noise_k);
  md += counts_md(counts, opt.stat);
  md += "\n" + md_cell(gate_text(evaluate_gate(fs, opt))) + "\n";
  std::vector<CaseFinding> flagged;
  for (const CaseFinding& f : fs)
    if (f.flagged() || f.status_changed() || f.implementation_changed) flagged.push_back(f);
  md += "\n## Flagged cases and implementation changes\n\n" +
        (flagged.empty() ? std::string("None: no case differs between A and B beyond the noise and the threshold.\n")
                         : findings_md(flagged, false));
  md += unstable_md(fs) + "\n## All cases\n\n" + findings_md(fs, false);
  const std::string out = opt.out_dir.empty() ? dir : opt.out_dir;
  prepare_out_dir(out, "ab", true);
  write_file_atomic(out + "/ab.md", md);
  write_file_atomic(out + "/ab.csv", findings_csv(fs));
  std::printf("%s%s\nWritten: %s/ab.md, ab.csv (order: %s/order.csv)\n", confounders_md(diffs, unrecorded).c_str(),
              counts_md(counts, opt.stat).c_str(), out.c_str(), dir.c_str());
  int code = 0;
  print_flag_lines(fs, opt, code);
  return code;
}

}  // namespace rigcheck
