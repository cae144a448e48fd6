#include "rigcheck/runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include "rigcheck/fccp.hpp"

#include "rigcheck/cli.hpp"
#include "rigcheck/csv.hpp"
#include "rigcheck/inventory.hpp"
#include "rigcheck/needs.hpp"
#include "rigcheck/process.hpp"
#include "rigcheck/report.hpp"
#include "rigcheck/topology.hpp"

namespace rigcheck {

namespace {
volatile sig_atomic_t g_interrupted = 0;
int g_signal = 0;

void on_signal(int sig) {
  g_interrupted = 1;
  g_signal = sig;
  stop_children();
}

std::string self_dir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

bool is_file(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" \t'\"\\$;&|<>*?()") == std::string::npos && !s.empty()) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The reason a child gave: its "SKIP: ..." line, or its "FAILED: ..." lines, or its last line.
std::string reason_from_output(const std::string& tail, const char* prefix) {
  std::istringstream in(tail);
  std::string line, found, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
    if (line.rfind(prefix, 0) == 0) found += (found.empty() ? "" : " | ") + line.substr(std::strlen(prefix));
  }
  return found.empty() ? last : found;
}

// Why a launched benchmark failed: its own FAILED lines, else the launcher's last words (mpirun
// missing, a host it cannot reach, a rank that died), with the launcher named.
std::string launcher_failure(const std::string& launcher, int exit_code, const std::string& tail) {
  if (tail.find("FAILED: ") != std::string::npos) return reason_from_output(tail, "FAILED: ");
  std::istringstream in(tail);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t-=*") != std::string::npos) lines.push_back(line);
  std::string said;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) said += (said.empty() ? "" : " | ") + lines[i];
  return fmt::format("launcher '{}' exited {}: {}", launcher, exit_code, said.empty() ? "(no output)" : said);
}

struct Tick {
  std::string label;
  bool tty;
};

void on_tick(double elapsed, void* ctx) {
  auto* t = static_cast<Tick*>(ctx);
  if (t->tty) std::fprintf(stderr, "\r%s %.0fs", t->label.c_str(), elapsed);
}
}  // namespace

std::string default_launcher() {
  std::string l = "mpirun -np 2";
  if (::geteuid() == 0) l += " --allow-run-as-root";  // Open MPI refuses to start as root without it
  if (hardware_thread_count() < 2) l += " --oversubscribe";
  return l;
}

std::vector<BenchmarkEntry> read_benchmark_registry(const std::string& path) {
  std::vector<BenchmarkEntry> out;
  with_csv_errors(path, [&] {
    io::CSVReader<10, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "name", "area", "binary", "args", "env", "needs", "timeout_tiny_s",
                   "timeout_quick_s", "timeout_full_s", "description");
    BenchmarkEntry e;
    std::string t0, t1, t2;
    while (in.read_row(e.name, e.area, e.binary, e.args, e.env, e.needs, t0, t1, t2, e.description)) {
      long line = static_cast<long>(in.get_file_line());
      if (!parse_double(t0, e.timeout_tiny_s) || !parse_double(t1, e.timeout_quick_s) ||
          !parse_double(t2, e.timeout_full_s))
        throw InputError(path, line, "timeouts must be numbers of seconds");
      if (std::string why = needs_syntax_error(e.needs); !why.empty()) throw InputError(path, line, "needs: " + why);
      for (const BenchmarkEntry& o : out)
        if (o.name == e.name) throw InputError(path, line, fmt::format("benchmark {} appears twice", e.name));
      out.push_back(e);
    }
  });
  return out;
}

std::string create_run_dir(const std::string& root, const std::string& host, const std::string& stamp) {
  // mkdir -p root
  std::string acc;
  for (size_t i = 0; i <= root.size(); ++i) {
    if (i == root.size() || root[i] == '/') {
      if (!acc.empty()) ::mkdir(acc.c_str(), 0755);
    }
    if (i < root.size()) acc += root[i];
  }
  for (int n = 1; n < 1000; ++n) {
    std::string dir = fmt::format("{}/{}-{}{}", root, host, stamp, n == 1 ? "" : fmt::format("-{}", n));
    if (::mkdir(dir.c_str(), 0755) == 0) return dir;  // atomic: an existing folder is never reused
    if (errno != EEXIST) throw std::runtime_error(fmt::format("{}: cannot create: {}", dir, std::strerror(errno)));
  }
  throw std::runtime_error(fmt::format("{}: too many runs with the same timestamp", root));
}

long salvage_partial(const std::string& csv_path) {
  const std::string partial = csv_path + ".partial";
  if (!is_file(partial) || is_file(csv_path)) return -1;
  std::ifstream in(partial, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  size_t last = s.rfind('\n');
  s = last == std::string::npos ? "" : s.substr(0, last + 1);
  if (s.empty()) return -1;
  write_file_atomic(csv_path, s);
  ::unlink(partial.c_str());
  return static_cast<long>(std::count(s.begin(), s.end(), '\n')) - 1;
}

int run_suite(const RunOptions& opt) {
  Profile profile;
  try {
    profile = profile_from_string(opt.profile);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck run: %s\n", e.what());
    return 2;
  }
  const std::string data = default_data_dir();
  std::vector<BenchmarkEntry> all = read_benchmark_registry(opt.registry_path.empty() ? data + "/benchmarks.csv"
                                                                                    : opt.registry_path);
  std::set<std::string> areas;
  for (const auto& b : all) areas.insert(b.area);
  for (const std::string& a : opt.only)
    if (!areas.count(a)) {
      std::string known;
      for (const auto& x : areas) known += (known.empty() ? "" : ", ") + x;
      std::fprintf(stderr, "rigcheck run: unknown area '%s' (known: %s)\n", a.c_str(), known.c_str());
      return 2;
    }
  std::vector<BenchmarkEntry> todo;
  for (const auto& b : all)
    if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), b.area) != opt.only.end()) todo.push_back(b);

  const std::string dir = create_run_dir(opt.results_root, host_name(), utc_timestamp_compact());
  std::string run_id = dir.substr(dir.rfind('/') + 1);
  ::mkdir((dir + "/logs").c_str(), 0755);
  std::fprintf(stderr, "rigcheck run: profile %s, %zu benchmarks -> %s\n", opt.profile.c_str(), todo.size(), dir.c_str());

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  Inventory invent = collect_inventory();
  write_inventory_csv(invent, dir + "/inventory.csv");
  std::map<std::string, std::string> facts(invent.begin(), invent.end());

  const std::string bin_dir = opt.bin_dir.empty() ? self_dir() : opt.bin_dir;
  const std::string launcher = opt.launcher.empty() ? default_launcher() : opt.launcher;
  std::vector<ManifestRow> manifest;
  bool failed = false;
  const bool tty = isatty(STDERR_FILENO);
  for (size_t k = 0; k < todo.size(); ++k) {
    const BenchmarkEntry& b = todo[k];
    ManifestRow m;
    m.benchmark = b.name;
    m.area = b.area;
    m.output = b.name + ".csv";
    const std::string label = fmt::format("[{}/{}] {}", k + 1, todo.size(), b.name);
    if (g_interrupted) {
      m.status = "not_run";
      m.reason = "run cut short before this benchmark";
      m.output.clear();
      manifest.push_back(m);
      continue;
    }
    const std::string exe = bin_dir + "/" + b.binary;
    std::vector<std::string> argv = {exe, "--profile", opt.profile, "--out", dir, "--stem", b.name, "--run-id", run_id};
    // Args holding the token @launcher: the benchmark runs one process per rank, started by the
    // launcher (mpirun, srun), never by a launcher of ours.
    bool launched = false;
    for (auto& a : split_ws(b.args)) {
      if (a == "@launcher") launched = true;
      else argv.push_back(a);
    }
    if (launched) {
      std::vector<std::string> l = split_ws(launcher);
      argv.insert(argv.begin(), l.begin(), l.end());
    }
    std::vector<std::string> env = split_ws(b.env);
    for (const auto& e : env) m.command += e + " ";
    for (size_t i = 0; i < argv.size(); ++i) m.command += (i ? " " : "") + shell_quote(argv[i]);

    NeedsResult needs = evaluate_needs(b.needs, facts);
    if (!is_file(exe)) {
      m.status = "not_built";
      std::ifstream why(exe + ".not-built");
      std::string text((std::istreambuf_iterator<char>(why)), std::istreambuf_iterator<char>());
      m.reason = fmt::format("{} was not built: {}", b.binary,
                             text.empty() ? "it is missing from " + bin_dir + " (see the configure summary)" : text);
      m.output.clear();
    } else if ((profile == Profile::tiny ? b.timeout_tiny_s : profile == Profile::quick ? b.timeout_quick_s
                                                                                       : b.timeout_full_s) <= 0) {
      // A timeout of 0 in the registry keeps a benchmark out of that profile (too slow for it).
      m.status = "skipped";
      m.reason = fmt::format("not part of the {} profile (its registry timeout is 0): run it with --profile full",
                             opt.profile);
      m.output.clear();
    } else if (!needs.met) {
      m.status = "skipped";
      m.reason = "needs " + needs.missing;
      m.output.clear();
    } else {
      double timeout = (profile == Profile::tiny ? b.timeout_tiny_s : profile == Profile::quick ? b.timeout_quick_s
                                                                                               : b.timeout_full_s) *
                       opt.timeout_scale;
      Tick tick{label, tty};
      ChildResult r = run_child(argv, env, timeout, dir + "/logs/" + b.name + ".log", false, on_tick, &tick);
      m.exit_code = r.exit_code;
      m.duration_s = r.seconds;
      const std::string csv = dir + "/" + b.name + ".csv";
      long kept = salvage_partial(csv);
      std::string kept_note = kept >= 0 ? fmt::format("; cut short: kept the {} rows it had written", kept) : "";
      if (r.interrupted) {
        m.status = "interrupted";
        m.reason = fmt::format("stopped by signal {}{}", g_signal, kept_note);
        failed = true;
      } else if (r.timed_out) {
        m.status = "timeout";
        m.reason = fmt::format("killed after the {:.0f} s timeout{}", timeout, kept_note);
        failed = true;
      } else if (r.exit_code == 0) {
        m.status = "ok";
      } else if (r.exit_code == 77) {
        m.status = "skipped";
        m.reason = reason_from_output(r.output_tail, "SKIP: ");
      } else {
        m.status = "failed";
        m.reason = launched ? launcher_failure(launcher, r.exit_code, r.output_tail)
                            : reason_from_output(r.output_tail, "FAILED: ");
        m.reason += kept_note;
        failed = true;
      }
      if (!is_file(csv)) m.output.clear();
    }
    if (tty) std::fprintf(stderr, "\r");
    std::fprintf(stderr, "%s ... %s (%.1f s)%s%s\n", label.c_str(), m.status.c_str(), m.duration_s,
                 m.reason.empty() ? "" : ": ", m.reason.c_str());
    manifest.push_back(m);
    write_file_atomic(dir + "/manifest.csv", format_manifest(manifest));
  }
  write_file_atomic(dir + "/manifest.csv", format_manifest(manifest));

  int rc = g_interrupted ? 130 : failed ? 1 : 0;
  try {
    ReportOptions ro;
    ro.claims_path = opt.claims_path;
    ro.step_budget_s = opt.step_budget_s;
    make_report(dir, ro);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck run: the report failed: %s\n", e.what());
    rc = rc ? rc : 1;
  }
  std::printf("\nReport: %s/report.md\nVerdicts: %s/verdicts.csv\n", dir.c_str(), dir.c_str());
  if (g_interrupted) std::printf("The run was cut short (signal %d); what was measured is kept.\n", g_signal);
  return rc;
}

}  // namespace rigcheck
