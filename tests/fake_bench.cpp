// A benchmark binary for the harness's own tests: a correct kernel, a kernel that computes a
// wrong answer when RIGCHECK_TEST_WRONG=1, and a case that is skipped.
#include <cstdlib>
#include <random>

#include "rigcheck/harness.hpp"

namespace {

class Saxpy final : public rigcheck::Kernel {
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

const bool reg = rigcheck::register_benchmark(
    {"fake_saxpy", "harness test benchmark", [](const rigcheck::CommonOptions&) {
       std::vector<rigcheck::Case> cs;
       const bool wrong = std::getenv("RIGCHECK_TEST_WRONG") != nullptr;
       const bool skip_all = std::getenv("RIGCHECK_TEST_SKIP_ALL") != nullptr;
       rigcheck::Case c;
       c.name = "n4096";
       // RIGCHECK_TEST_THREADS=N: the case claims N threads (the usable-cores rule is tested with it).
       const char* th = std::getenv("RIGCHECK_TEST_THREADS");
       c.threads = th ? std::atoi(th) : 1;
       c.params = {{"n", "4096"}, {"threads", std::to_string(c.threads)}};
       c.work = {2.0 * 4096, 12.0 * 4096};
       c.make = [wrong, skip_all]() -> std::unique_ptr<rigcheck::Kernel> {
         if (skip_all) throw rigcheck::Skip("test: no such hardware");
         return std::make_unique<Saxpy>(wrong);
       };
       cs.push_back(c);
       rigcheck::Case s = c;
       s.name = "skipped";
       s.make = []() -> std::unique_ptr<rigcheck::Kernel> { throw rigcheck::Skip("test: this case needs a unicorn"); };
       cs.push_back(s);
       return cs;
     }});

}  // namespace
