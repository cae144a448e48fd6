// A benchmark binary for the harness's own tests: a correct kernel, a kernel that computes a
// wrong answer when RIGCHECK_TEST_WRONG=1, and a case that is skipped. RIGCHECK_TEST_FAULT makes it
// misbehave the ways a real benchmark can (tests/bench/rigcheck/faults.sh):
//   segv   dies of SIGSEGV in its set-up         hang   ignores SIGTERM and never ends
//   oom    allocates until the allocation fails (only under an RLIMIT_AS: never the machine's memory)
//   slow   40 cases of 0.1 s each, and first a grandchild (`sleep 300`) that leaves its process
//          group and session, as a daemon would: only the run's tag can find it
//   bulk   one case that writes 5000 rows (about 1 MB: more than a small disk takes)
//   scratch  registers scratch entries (harness/scratch_registry.hpp) in $TMPDIR, as io's benchmarks
//          do, then dies of SIGKILL as under the OOM killer: a folder rigcheck-test.<pid> with a file
//          in it and a file rigcheck-test.<pid>.dat (the runner must remove both), and entries it
//          must leave: a file not named rigcheck-*, a symbolic link rigcheck-link.<pid>, and
//          rigcheck-outside.<pid> in a folder that is not a scratch root ($TMPDIR/elsewhere)
// RIGCHECK_TEST_WORKERS=N plants a kernel that keeps N threads busy whatever its case claims
// (RIGCHECK_TEST_THREADS), RIGCHECK_TEST_PIN=1 binds it to one CPU (the trust rule of threads.hpp).
// RIGCHECK_TEST_INTERLEAVE=1 adds three cases, pair_a and pair_b interleaved with each other (key
// "pair") and alone after them, to test Case::interleave. RIGCHECK_TEST_SIDE=x names the timed case
// n4096_x (the second side of --alternate-env RIGCHECK_TEST_SIDE=x, bench/harness/src/alternate.hpp).
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/scratch_registry.hpp"

namespace {

std::string fault() {
  const char* f = std::getenv("RIGCHECK_TEST_FAULT");
  return f ? f : "";
}

class Saxpy : public rigcheck::Kernel {
 public:
  explicit Saxpy(bool wrong) : wrong_(wrong), x_(4096), y_(4096), out_(4096) {
    std::mt19937 g(1);
    std::uniform_real_distribution<float> d(0.5f, 1.0f);
    for (size_t i = 0; i < x_.size(); ++i) {
      x_[i] = d(g);
      y_[i] = d(g);
    }
  }
  void run() override {
    for (size_t i = 0; i < x_.size(); ++i) out_[i] = 2.0f * x_[i] + y_[i];
    if (wrong_) out_[17] += 1.0f;
  }
  rigcheck::CheckResult check() override {
    run();
    rigcheck::CheckResult r;
    r.method = "every element vs 2x+y in double";
    for (size_t i = 0; i < x_.size(); ++i) {
      double ref = 2.0 * x_[i] + y_[i];
      ++r.checked;
      if (std::abs(out_[i] - ref) > 1e-6 * std::abs(ref)) ++r.wrong;
    }
    return r;
  }

 private:
  bool wrong_;
  std::vector<float> x_, y_, out_;
};

// A planted kernel that ignores its case's thread count: each iteration keeps `workers` threads busy
// for 2 ms (itself and workers - 1 threads of its own), whatever the case says. With `pin_one_cpu`
// it binds the process to one CPU first, as a placement would: the extra threads then share that
// CPU, and only the count of threads that worked can tell.
class StubbornSpin final : public Saxpy {
 public:
  StubbornSpin(int workers, bool pin_one_cpu) : Saxpy(false) {
    if (pin_one_cpu) {
      cpu_set_t one;
      CPU_ZERO(&one);
      sched_getaffinity(0, sizeof one, &one);
      int first = 0;
      while (first < CPU_SETSIZE && !CPU_ISSET(first, &one)) ++first;
      CPU_ZERO(&one);
      CPU_SET(first, &one);
      sched_setaffinity(0, sizeof one, &one);
    }
    for (int i = 1; i < workers; ++i)
      pool_.emplace_back([this] {
        while (!stop_) {
          if (Clock::now().time_since_epoch().count() < busy_until_)
            spin_until(busy_until_);
          else
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
      });
  }
  ~StubbornSpin() override {
    stop_ = true;
    for (auto& t : pool_) t.join();
  }
  void run() override {
    Saxpy::run();
    const int64_t until = (Clock::now() + std::chrono::milliseconds(2)).time_since_epoch().count();
    busy_until_ = until;
    spin_until(until);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static void spin_until(int64_t t) {
    volatile double x = 1;
    while (Clock::now().time_since_epoch().count() < t) x = x * 1.0000001;
  }
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> busy_until_{0};
  std::vector<std::thread> pool_;
};

// slow: each iteration also sleeps 0.1 s. bulk: 5000 observed rows.
class FaultySaxpy final : public Saxpy {
 public:
  FaultySaxpy() : Saxpy(false), mode_(fault()) {}
  void run() override {
    Saxpy::run();
    if (mode_ == "slow") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::vector<Observed> observed() override {
    std::vector<Observed> o;
    if (mode_ == "bulk")
      for (int i = 0; i < 5000; ++i)
        o.push_back(
            {"bulk_row", "count", static_cast<double>(i), "a row of the bulk test, written to fill a small disk"});
    return o;
  }

 private:
  std::string mode_;
};

std::unique_ptr<rigcheck::Kernel> make_faulty() {
  const std::string f = fault();
  if (f == "segv") {
    std::signal(SIGSEGV, SIG_DFL);  // the default action, sanitizers or not
    std::raise(SIGSEGV);
  } else if (f == "hang") {
    std::signal(SIGTERM, SIG_IGN);
    while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
  } else if (f == "scratch") {
    const char* t = std::getenv("TMPDIR");
    const std::string root = t && *t ? t : "/var/tmp", pid = std::to_string(::getpid());
    auto file = [](const std::string& p) {
      rigcheck::register_scratch_path(p);
      if (FILE* f = std::fopen(p.c_str(), "w")) std::fclose(f);
    };
    rigcheck::register_scratch_path(root + "/rigcheck-test." + pid);
    ::mkdir((root + "/rigcheck-test." + pid).c_str(), 0700);
    file(root + "/rigcheck-test." + pid + "/inside.bin");
    file(root + "/rigcheck-test." + pid + ".dat");
    file(root + "/not-ours." + pid);
    file(root + "/target." + pid);
    rigcheck::register_scratch_path(root + "/rigcheck-link." + pid);
    ::symlink((root + "/target." + pid).c_str(), (root + "/rigcheck-link." + pid).c_str());
    ::mkdir((root + "/elsewhere").c_str(), 0700);
    file(root + "/elsewhere/rigcheck-outside." + pid);
    std::raise(SIGKILL);
  } else if (f == "oom") {
    rlimit rl{};
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
      throw std::runtime_error("RIGCHECK_TEST_FAULT=oom runs only under an RLIMIT_AS (rigcheck run --memory-limit)");
    std::vector<std::unique_ptr<char[]>> hog;
    while (true) {
      hog.emplace_back(new char[64u << 20]);
      std::memset(hog.back().get(), 1, 64u << 20);
    }
  }
  return std::make_unique<FaultySaxpy>();
}

// The slow mode's grandchild: forked twice, in a session of its own, so that neither the runner's
// kill of the child's process group nor PR_SET_PDEATHSIG reaches it.
void start_escaped_grandchild() {
  pid_t p = fork();
  if (p == 0) {
    setsid();
    if (fork() == 0) {
      execlp("sleep", "sleep", "300", static_cast<char*>(nullptr));
      _exit(127);
    }
    _exit(0);
  }
  if (p > 0) {
    int st;
    waitpid(p, &st, 0);
  }
}

const bool reg = rigcheck::register_benchmark(
    {"fake_saxpy", "harness test benchmark", [](const rigcheck::CommonOptions&) {
       std::vector<rigcheck::Case> cs;
       const bool wrong = std::getenv("RIGCHECK_TEST_WRONG") != nullptr;
       const bool skip_all = std::getenv("RIGCHECK_TEST_SKIP_ALL") != nullptr;
       const std::string f = fault();
       rigcheck::Case c;
       c.name = "n4096";
       if (const char* side = std::getenv("RIGCHECK_TEST_SIDE")) c.name += std::string("_") + side;
       // RIGCHECK_TEST_THREADS=N: the case claims N threads (the usable-cores rule is tested with it).
       const char* th = std::getenv("RIGCHECK_TEST_THREADS");
       c.threads = th ? std::atoi(th) : 1;
       c.params = {{"n", "4096"}, {"threads", std::to_string(c.threads)}};
       c.work.flops = 2.0 * 4096;
       c.work.bytes = 12.0 * 4096;
       if (!f.empty()) {
         if (f == "slow") start_escaped_grandchild();
         c.make = make_faulty;
         for (int i = 0; i < (f == "slow" ? 40 : 1); ++i) {
           rigcheck::Case k = c;
           k.name = fmt::format("{}{}", f, i);
           cs.push_back(k);
         }
         return cs;
       }
       // RIGCHECK_TEST_WORKERS=N: the planted kernel that keeps N threads busy whatever the case claims;
       // RIGCHECK_TEST_PIN=1 binds it to one CPU.
       const char* workers = std::getenv("RIGCHECK_TEST_WORKERS");
       const bool pin = std::getenv("RIGCHECK_TEST_PIN") != nullptr;
       c.make = [wrong, skip_all, workers, pin]() -> std::unique_ptr<rigcheck::Kernel> {
         if (skip_all) throw rigcheck::Skip("test: no such hardware");
         if (workers) return std::make_unique<StubbornSpin>(std::atoi(workers), pin);
         return std::make_unique<Saxpy>(wrong);
       };
       cs.push_back(c);
       if (std::getenv("RIGCHECK_TEST_INTERLEAVE")) {
         for (const char* n : {"pair_a", "pair_b"}) {
           rigcheck::Case k = c;
           k.name = n;
           k.interleave = "pair";
           cs.push_back(k);
         }
         rigcheck::Case k = c;
         k.name = "alone";
         cs.push_back(k);
       }
       rigcheck::Case s = c;
       s.name = "skipped";
       s.make = []() -> std::unique_ptr<rigcheck::Kernel> { throw rigcheck::Skip("test: this case needs a unicorn"); };
       cs.push_back(s);
       return cs;
     }});

}  // namespace
