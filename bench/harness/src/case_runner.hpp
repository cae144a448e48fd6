// The cases of one benchmark binary as Google Benchmark runs them (harness_main, harness.cpp): each
// case's kernel made and checked before it is timed, its library threads set where it runs, each
// timed repetition's rows written with the trust rule applied to its threads' CPU use, and the
// reporter that hands Google Benchmark's repetitions back. Private to the harness.
#pragma once
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/harness/session.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/threads.hpp"
#include "gbench_api.hpp"
#include "placement.hpp"

namespace rigcheck::detail {

struct Entry {
  const BenchmarkDef* def;
  Case c;
};

struct CaseState {
  Status status = Status::ok;
  std::string note;
  std::string params;  // case params + facts, formatted
  int reps_reported = 0;
  std::vector<double> rates;  // for the progress line
  std::vector<double> times;  // time per iteration of each repetition, for adaptive repetitions
  int64_t iterations = 0;     // of the first repetition (taking turns: the later ones run as many)
  // The threads' CPU use of each timed call of the case (Google Benchmark's searches for an iteration
  // count included) since the last report: the reported repetitions are the last calls.
  std::vector<ThreadUse> calls;
  ThreadPlacement where;  // the CPUs, NUMA nodes and L3 domains its threads run on (placement.hpp)
};

class Harness {
 public:
  Harness(std::vector<Entry> entries, Session& session)
      : entries_(std::move(entries)), opt_(session.options()), session_(session), states_(entries_.size()) {}

  // Whether cases a and b run interleaved with each other (Case::interleave).
  bool same_group(size_t a, size_t b) const {
    const Entry &x = entries_[a], &y = entries_[b];
    return !x.c.interleave.empty() && x.def == y.def && x.c.interleave == y.c.interleave;
  }

  // Creates, checks and caches the kernel of case idx, and of every case interleaved with it (in
  // case order, before the first timed repetition of any); frees the kernels of other cases.
  CaseState& prepare(size_t idx) {
    if (kernels_.count(idx) || prepared_.count(idx)) return states_[idx];
    for (auto it = kernels_.begin(); it != kernels_.end();)
      it = same_group(it->first, idx) ? std::next(it) : kernels_.erase(it);
    prepared_.clear();
    for (size_t j = 0; j < entries_.size(); ++j)
      if (j != idx && same_group(j, idx)) prepared_.insert(j);
    prepared_.insert(idx);
    for (size_t j : prepared_) prepare_one(j);
    return states_[idx];
  }

  void prepare_one(size_t idx) {
    const Entry& e = entries_[idx];
    CaseState& s = states_[idx];
    Params own = e.c.params;
    if (!e.c.interleave.empty())
      own.push_back({"interleaved", e.c.interleave});
    else if (!alternate_key_.empty())
      own.push_back({"interleaved", alternate_key_});
    s.params = format_params(own);
    try {
      if (e.c.threads > opt_.usable_threads)
        throw Skip(fmt::format("needs {} usable {}; this process may use {} ({} cores): {}", e.c.threads,
                               opt_.usable_threads > opt_.usable_cores ? "hardware threads" : "cores",
                               opt_.usable_threads, opt_.usable_cores, opt_.cpu_budget));
      const Placement how = opt_.placement == "spread" ? Placement::spread : Placement::compact;
      s.where = case_placement(e.c.threads, how, opt_.allowed_cpus, e.c.numa_node, e.c.memory_node);
      if (!s.where.error.empty()) throw Skip("cannot place the case's threads: " + s.where.error);
      for (auto& p : placement_params(s.where, how)) own.push_back(p);
      s.params = format_params(own);
      // Bound before the kernel is made: its buffers are first touched on the case's NUMA nodes.
      if (const std::string why = bind_case(s.where); !why.empty())
        std::fprintf(stderr, "  %s/%s: placement incomplete: %s\n", e.def->name.c_str(), e.c.name.c_str(), why.c_str());
      set_library_threads(e.c.threads);
      std::unique_ptr<Kernel>& kernel = kernels_[idx];
      kernel = e.c.make();
      Params all = own;
      for (auto& f : kernel->facts()) all.push_back(f);
      s.params = format_params(all);
      // The check is not timed: its reference may use every CPU this process was given (the case's
      // buffers are already on its nodes); each timed call binds the case again (run()).
      confine_all_threads(opt_.allowed_cpus);
      CheckResult chk = kernel->check();
      last_threads_ = opt_.usable_threads;  // the reference's pools may be spinning down
      bool ok = chk.wrong == 0 && chk.checked > 0;
      s.status = ok ? Status::ok : Status::failed;
      s.note = chk.checked == 0 ? "the check compared nothing"
               : ok ? fmt::format("checked {} values: {}; worst error {:.3g} of tolerance", chk.checked, chk.method,
                                  chk.worst)
                    : fmt::format("WRONG: {} of {} values beyond tolerance (worst {:.3g}x): {}", chk.wrong, chk.checked,
                                  chk.worst, chk.method);
      row(e, names::kCheckWrong, static_cast<double>(chk.wrong), "count", -1, s.status, s.note);
    } catch (const Skip& ex) {
      s.status = Status::skipped;
      s.note = ex.what();
      row(e, "", std::nan(""), "", -1, s.status, s.note);
      for (const Kernel::Observed& o : ex.observed) row(e, o.metric, o.value, o.unit, -1, Status::skipped, o.note);
    } catch (const std::exception& ex) {
      s.status = Status::failed;
      s.note = fmt::format("set-up failed: {}", ex.what());
      row(e, "", std::nan(""), "", -1, s.status, s.note);
    }
    if (s.status != Status::ok) {
      kernels_.erase(idx);
      progress(idx);
    }
  }

  void run(size_t idx, benchmark::State& st) {
    CaseState& s = prepare(idx);
    if (s.status != Status::ok) {
      st.SkipWithError(s.note.c_str());
      return;
    }
    // The libraries' thread counts are process-wide: set here, where the case runs, since the
    // kernels of an interleaved group (and the check's reference) share the process.
    bind_case(s.where);
    set_library_threads(entries_[idx].c.threads);
    Kernel& kernel = *kernels_.at(idx);
    kernel.before_repetition();
    // Only after a case of more threads: its pool may still be spinning down.
    if (last_threads_ > entries_[idx].c.threads) wait_for_other_threads_idle(entries_[idx].c.threads - 1);
    last_threads_ = entries_[idx].c.threads;
    const ThreadCpuSnapshot before = take_thread_cpu_snapshot();
    if (entries_[idx].c.manual_time) {
      for (auto _ : st) st.SetIterationTime(kernel.run_timed());
    } else {
      for (auto _ : st) kernel.run();
    }
    s.calls.push_back(thread_use_between(before, take_thread_cpu_snapshot()));
  }

  // The repetitions of one Google Benchmark registration (one case), in order.
  void report(const std::vector<const benchmark::BenchmarkReporter::Run*>& runs) {
    if (runs.empty()) return;
    auto it = index_.find(runs.front()->run_name.function_name);
    if (it == index_.end()) return;
    CaseState& s = states_[it->second];
    // The reported repetitions are the last calls (earlier ones searched for an iteration count).
    const size_t n = runs.size(), first = s.calls.size() >= n ? s.calls.size() - n : 0;
    for (size_t j = 0; j < n; ++j) report(*runs[j], first + j < s.calls.size() ? s.calls[first + j] : ThreadUse{});
    s.calls.clear();
  }

  // One repetition reported by Google Benchmark, with its threads' CPU use (threads.hpp).
  void report(const benchmark::BenchmarkReporter::Run& run, const ThreadUse& use) {
    auto it = index_.find(run.run_name.function_name);
    if (it == index_.end() || gbench_api::not_run(run)) return;
    size_t idx = it->second;
    const Entry& e = entries_[idx];
    CaseState& s = states_[idx];
    if (run.iterations <= 0) return;
    double iters = static_cast<double>(run.iterations);
    double real = run.real_accumulated_time / iters;
    double cpu = run.cpu_accumulated_time / iters;
    double util = real > 0 ? cpu / (real * e.c.threads) : 0;
    std::string note;
    // The CPU-share rule does not apply to kernel-timed cases (the host only waits for the device);
    // emulation does.
    Status st = e.c.manual_time ? trust_emulated(&note) : trust(util, e.c.threads, &note, use.working);
    int rep = s.reps_reported++;
    if (rep == 0) s.iterations = static_cast<int64_t>(run.iterations);
    s.times.push_back(real);
    row(e, names::kTimePerIter, real, "s", rep, st, note);
    if (e.c.work.flops > 0) {
      double r = e.c.work.flops / real / 1e9;
      row(e, names::kGflops, r, "GFLOP/s", rep, st, note);
      s.rates.push_back(r);
    }
    if (e.c.work.bytes > 0) {
      double r = e.c.work.bytes / real / 1e9;
      row(e, names::kGbps, r, "GB/s", rep, st, note);
      if (e.c.work.flops <= 0) s.rates.push_back(r);
    }
    if (e.c.work.items > 0) row(e, names::kItemsPerS, e.c.work.items / real, e.c.work.items_unit + "/s", rep, st, note);
    row(e, names::kCpuUtilization, util, "fraction", rep, st, note);
    if (use.valid())
      row(e, names::kThreadsWorking, use.working, "count", rep, st,
          fmt::format(
              "threads of the process that each worked over {:.0f}% of the repetition; {:.2f} CPUs' worth in all; "
              "their names: {}",
              100 * kWorkingThreadShare, use.cpus, fmt::join(use.working_names, ", ")));
    row(e, names::kIterations, iters, "count", rep, st, "");
  }

  // After the last repetition of case idx (its added ones included): the adaptive repetitions' rows
  // when `target` > 0 (`stop`: why no more were added, empty when the target was met), the
  // kernel's observed rows, the progress line.
  void finish(size_t idx, double target, const std::string& stop, const std::string& cut) {
    const Entry& e = entries_[idx];
    CaseState& s = states_[idx];
    if (s.status != Status::ok) return;
    if ((target > 0 || !cut.empty()) && !s.times.empty()) {  // no target (taking turns): where a budget cut it
      const double spread = relative_iqr(s.times);
      const int added = s.reps_reported - opt_.reps;
      row(e, kRepsSpread, spread, "fraction", -1, Status::ok,
          fmt::format("relative IQR of time_per_iter over {} repetitions ({} added); {}{}", s.reps_reported,
                      std::max(0, added), target > 0 ? fmt::format("target {:.3g}%", 100 * target) : "no target",
                      cut.empty() ? "" : "; " + cut));
      // A case of an interleaved group can meet its target while a noisier one of the group did not.
      const bool hit = !stop.empty() && spread > target;
      if (target > 0)
        row(e, kRepsCapHit, hit ? 1 : 0, "count", -1, Status::ok,
            !hit ? fmt::format("spread {:.3g}% within the target {:.3g}%{}", 100 * spread, 100 * target,
                               added > 0 ? fmt::format(" after {} added repetitions", added) : std::string())
                 : fmt::format("spread {:.3g}% still above the target {:.3g}%: {}", 100 * spread, 100 * target, stop));
    }
    if (kernels_.count(idx))
      for (const Kernel::Observed& o : kernels_.at(idx)->observed())
        row(e, o.metric, o.value, o.unit, -1, Status::ok, o.note);
    progress(idx);
  }

  void index(const std::string& gb_name, size_t idx) { index_[gb_name] = idx; }
  const std::vector<CaseState>& states() const { return states_; }
  const std::vector<Entry>& entries() const { return entries_; }
  // --alternate-env's variable: every case's rows say `interleaved=VAR` (alternate.hpp).
  void set_alternate_key(std::string k) { alternate_key_ = std::move(k); }

 private:
  void row(const Entry& e, const std::string& metric, double value, const std::string& unit, int rep, Status st,
           const std::string& note) {
    session_.row(e.def->name, e.c.name, states_[&e - entries_.data()].params, metric, value, unit, rep, st, note);
  }

  void progress(size_t idx) {
    const Entry& e = entries_[idx];
    const CaseState& s = states_[idx];
    std::string what;
    if (s.status != Status::ok) {
      what = fmt::format("{}: {}", to_string(s.status), s.note);
    } else if (!s.rates.empty()) {
      Summary sm = summarize(s.rates);
      what = fmt::format("{:.4g} {} median of {} (spread {:.1f}%)", sm.median, e.c.work.flops > 0 ? "GFLOP/s" : "GB/s",
                         sm.n, 100 * sm.spread);
    } else {
      what = "done";
    }
    std::fprintf(stderr, "  %s/%s: %s\n", e.def->name.c_str(), e.c.name.c_str(), what.c_str());
  }

  std::vector<Entry> entries_;
  const CommonOptions& opt_;
  Session& session_;
  std::vector<CaseState> states_;
  std::map<std::string, size_t> index_;
  std::map<size_t, std::unique_ptr<Kernel>> kernels_;  // the current case's, or its interleaved group's
  std::set<size_t> prepared_;                          // the cases those kernels were made for
  std::string alternate_key_;
  int last_threads_ = 0;  // of the last timed call
};

class CsvReporter : public benchmark::BenchmarkReporter {
 public:
  explicit CsvReporter(Harness& h) : h_(h) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<const Run*> reps;
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration) reps.push_back(&r);
    h_.report(reps);
  }

 private:
  Harness& h_;
};

}  // namespace rigcheck::detail
