#include "rigcheck/harness/session.hpp"

#include <algorithm>
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/harness/threads.hpp"
#include "rigcheck/harness/topology.hpp"

namespace rigcheck {

struct Session::Filter {
  std::regex re;
};

Status trust_emulated(std::string* note) {
  // Under an emulator the time is the emulator's: no share of the CPU makes it the machine's.
  if (const std::string& why = emulation(); !why.empty()) {
    if (note) *note = fmt::format("timed under emulation: {}; the time is the emulator's, not this CPU's", why);
    return Status::mistrusted;
  }
  return Status::ok;
}

Status trust(double utilization, int threads, std::string* note, int working_threads) {
  if (trust_emulated(note) == Status::mistrusted) return Status::mistrusted;
  const char* s = threads == 1 ? "" : "s";
  const double cpus = utilization * threads;
  std::string why;
  // More threads than the row says is a defect of the row whatever else ran: said first.
  if (cpus > threads + kMaxExtraCpus)
    why = fmt::format(
        "the process used {:.2f} CPUs' worth of CPU time for a row of {} thread{}: more threads ran "
        "than it says",
        cpus, threads, s);
  else if (working_threads > threads)
    why = fmt::format(
        "{} threads of the process each worked over {:.0f}% of the time for a row of {} thread{}: "
        "more threads ran than it says",
        working_threads, 100 * kWorkingThreadShare, threads, s);
  else if (utilization < kMinCpuUtilization)
    why = fmt::format("the process had {:.0f}% of the CPU time of its {} thread{}: something else competed",
                      100 * utilization, threads, s);
  if (why.empty()) return Status::ok;
  if (note) *note = why;
  return Status::mistrusted;
}

int launcher_rank() {
  for (const char* k : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(k)) return std::atoi(v);
  return 0;
}

namespace {
std::vector<RegistryEntry>& declared_entries() {
  static std::vector<RegistryEntry> entries;
  return entries;
}
std::vector<std::string>& declared_writes() {
  static std::vector<std::string> names;
  return names;
}
std::vector<DocRow>& declared_docs() {
  static std::vector<DocRow> rows;
  return rows;
}
// A text written over several source lines (a raw string literal, R"(...)") as the one line a cell is.
std::string joined_lines(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}
}  // namespace

bool declare_entry(RegistryEntry e) {
  for (std::string* s : {&e.name, &e.area, &e.args, &e.env, &e.needs, &e.description}) *s = joined_lines(std::move(*s));
  declared_entries().push_back(std::move(e));
  return true;
}

bool declare_writes(std::initializer_list<const char*> benchmarks) {
  for (const char* b : benchmarks) declared_writes().emplace_back(b);
  return true;
}

bool declare_doc(DocRow row) {
  for (std::string* s : {&row.variant, &row.what, &row.claims}) *s = joined_lines(std::move(*s));
  declared_docs().push_back(std::move(row));
  return true;
}

std::string describe(const std::string& binary) {
  // The registry quotes every description and any other field holding a comma or a quote.
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string out = std::string(kRegistryHeader) + "\n";
  for (const RegistryEntry& e : declared_entries()) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},,{},\n", csv_field(e.name), csv_field(e.area), csv_field(binary),
                       csv_field(e.args), csv_field(e.env), csv_field(e.needs), e.timeout_tiny_s, e.timeout_quick_s,
                       e.timeout_full_s, quoted(e.description), e.takes_budget ? "yes" : "");
  }
  for (const std::string& b : declared_writes()) out += "# writes: " + b + "\n";
  for (const DocRow& d : declared_docs()) {
    const std::string variant = d.variant.empty() ? "" : " (" + d.variant + ")";
    out += fmt::format("# doc: | `{}`{} | {} | {} |\n", binary, variant, d.what, d.claims);
  }
  return out;
}

Session::Session(const char* argv0, std::string about, SharedOptions shared)
    : argv0_(argv0), shared_(shared), app_(std::make_unique<CLI::App>(std::move(about))), rank_(launcher_rank()) {
  // A file-size limit (ulimit -f) gives write(2) an EFBIG to report, not a silent SIGXFSZ death.
  signal(SIGXFSZ, SIG_IGN);
  prog_ = argv0_;
  if (auto slash = prog_.rfind('/'); slash != std::string::npos) prog_ = prog_.substr(slash + 1);
  CLI::App& app = *app_;
  if (shared_.threads) {
    app.add_option("--threads", opt_.threads_spec, "thread counts: 1,2,4 | 1-16*2 | 2-10+4 | max");
    app.add_option("--placement", opt_.placement,
                   "where a case's threads run: compact (the first cores in hwloc's logical order: one L3 domain, "
                   "then its NUMA node, then its socket) or spread (round robin over sockets and NUMA nodes)")
        ->check(CLI::IsMember({"compact", "spread"}))
        ->capture_default_str();
  }
  if (shared_.sizes)
    app.add_option("--sizes", opt_.sizes_spec, "problem sizes: 1024,2K,64M | 1K-1M*2 (K/M/G = 2^10/2^20/2^30)");
  app.add_option("--reps", opt_.reps,
                 fmt::format("repetitions per case (default: {} tiny, {} quick, {} full)", shared_.reps[0],
                             shared_.reps[1], shared_.reps[2]));
  if (shared_.min_time)
    app.add_option("--min-time", opt_.min_time,
                   fmt::format("minimum seconds per repetition (default: {:g} tiny, {:g} quick, {:g} full)",
                               shared_.min_time_s[0], shared_.min_time_s[1], shared_.min_time_s[2]));
  app.add_option("--profile", opt_.profile_name, "tiny | quick | full")->capture_default_str();
  app.add_flag("--quick", opt_.quick, "same as --profile quick");
  app.add_option("--out", opt_.out_dir, "folder for the result CSV (never overwritten)")->capture_default_str();
  app.add_option("--stem", opt_.stem, "file name of the result CSV without .csv (default: the binary's name)");
  app.add_option("--run-id", opt_.run_id, "run id written in every row (default: adhoc-<host>-<UTC time>)");
  app.add_option("--filter", opt_.filter, "only cases whose benchmark/case name matches this ECMAScript regex");
  app.add_flag("--list", opt_.list, "list the cases with their parameters, run nothing");
  app.add_flag("--describe",
               "print this binary's rows of data/benchmarks.csv (the reference times left empty), the "
               "benchmark names it writes and its rows of docs/benchmarks.md's table, run nothing");
}

Session::~Session() = default;

CLI::App& Session::app() { return *app_; }

std::optional<int> Session::parse(int argc, char** argv, const std::function<void()>& validate) {
  // Before anything else parses or checks: --describe needs no valid command line, MPI, GPU or scratch space.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--describe") == 0) {
      std::fputs(describe(prog_).c_str(), stdout);
      return kExitOk;
    }
  const bool speak = reporting_rank();
  try {
    app_->parse(argc, argv);
    const bool reps_given = app_->count("--reps") > 0;
    const bool min_time_given = shared_.min_time && app_->count("--min-time") > 0;
    CpuBudget budget = cpu_budget(allowed_cpus_);
    finish_common_options(opt_, physical_core_count(), hardware_thread_count(), budget.usable_cores);
    opt_.cpu_budget = budget.explain();
    opt_.usable_threads = std::max(opt_.usable_cores, budget.usable_threads);
    opt_.allowed_cpus = budget.allowed_cpus;
    const int p = static_cast<int>(opt_.profile);
    if (!reps_given) opt_.reps = shared_.reps[p];
    if (!min_time_given) opt_.min_time = shared_.min_time_s[p];
    filter_ = std::make_unique<Filter>();
    try {
      if (!opt_.filter.empty()) filter_->re = std::regex(opt_.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw std::invalid_argument(
          fmt::format("--filter '{}' is not a valid regular expression: {}", opt_.filter, e.what()));
    }
    if (validate) validate();
  } catch (const CLI::ParseError& e) {
    // --help is exit 0; any other command-line error is exit 2, whatever CLI11's own code.
    const int code = speak ? app_->exit(e) : e.get_exit_code();
    return code == 0 ? 0 : kExitUsage;
  } catch (const std::exception& e) {
    if (speak) std::fprintf(stderr, "%s: %s\n", prog_.c_str(), e.what());
    return kExitUsage;
  }
  if (opt_.stem.empty()) opt_.stem = prog_;
  if (opt_.run_id.empty()) opt_.run_id = fmt::format("adhoc-{}-{}", host_name(), utc_timestamp_compact());
  return std::nullopt;
}

bool Session::selected(const std::string& benchmark, const std::string& case_name) const {
  return opt_.filter.empty() || !filter_ || std::regex_search(benchmark + "/" + case_name, filter_->re);
}

void Session::list_case(const std::string& benchmark, const std::string& case_name, const std::string& details) const {
  if (reporting_rank()) std::printf("%s/%s\t%s\n", benchmark.c_str(), case_name.c_str(), details.c_str());
}

std::optional<int> Session::require_cases(size_t selected_cases) const {
  if (selected_cases > 0) return std::nullopt;
  if (reporting_rank()) std::fprintf(stderr, "%s: no case matches --filter '%s'\n", prog_.c_str(), opt_.filter.c_str());
  return kExitUsage;
}

std::string Session::results_path() const { return opt_.out_dir + "/" + opt_.stem + ".csv"; }

bool Session::open_results() {
  if (!reporting_rank()) return true;
  const std::string out = results_path();
  struct stat sb;
  if (::stat(out.c_str(), &sb) == 0) {
    std::fprintf(stderr, "%s: %s exists; results are never overwritten (choose another --out or --stem)\n",
                 prog_.c_str(), out.c_str());
    return false;
  }
  try {
    writer_ = std::make_unique<ResultWriter>(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog_.c_str(), e.what());
    return false;
  }
  return true;
}

void Session::row(const std::string& benchmark, const std::string& case_name, const std::string& params,
                  const std::string& metric, double value, const std::string& unit, int repetition, Status status,
                  const std::string& note) {
  row(result_row(benchmark, case_name, params, metric, value, unit, repetition, status, note));
}

void Session::row(ResultRow r) {
  if (!reporting_rank()) return;
  if (!writer_) throw std::logic_error("Session::row before open_results()");
  if (r.run_id.empty()) r.run_id = opt_.run_id;
  writer_->write(r);
}

const std::vector<ResultRow>& Session::written() const {
  static const std::vector<ResultRow> none;
  return writer_ ? writer_->written() : none;
}

void Session::case_skipped(const std::string& reason) {
  ++cases_;
  ++skipped_;
  if (first_skip_.empty()) first_skip_ = reason;
}

void Session::case_failed(const std::string& benchmark, const std::string& case_name, const std::string& why,
                          const std::string& rerun) {
  ++cases_;
  const std::string args = rerun.empty() ? fmt::format("--filter '^{}/{}$'", benchmark, case_name) : rerun;
  failures_.push_back(fmt::format("FAILED: {} {}   # {}", argv0_, args, why));
}

int Session::run(const std::function<void()>& body, const std::function<void()>& on_fatal) {
  try {
    body();
  } catch (const std::exception& e) {
    fatal_ = true;
    std::fprintf(stderr, "FAILED: %s: %s\n", prog_.c_str(), e.what());
    if (on_fatal) on_fatal();
  }
  return finish();
}

int Session::finish() {
  if (finished_) return fatal_ || !failures_.empty() ? kExitFailed : kExitOk;
  finished_ = true;
  if (writer_) {
    try {
      writer_->finish();
    } catch (const std::exception& e) {
      // The rows before the failure stay in the .partial, which the runner cuts at its last full line.
      fatal_ = true;
      std::fprintf(stderr, "FAILED: %s: %s\n", prog_.c_str(), e.what());
    }
  }
  if (reporting_rank())
    for (const std::string& f : failures_) std::fprintf(stderr, "%s\n", f.c_str());
  if (fatal_ || !failures_.empty()) return kExitFailed;
  if (cases_ > 0 && skipped_ == cases_) {
    if (reporting_rank()) std::fprintf(stderr, "SKIP: %s\n", first_skip_.c_str());
    return kExitSkipped;
  }
  return kExitOk;
}

}  // namespace rigcheck
