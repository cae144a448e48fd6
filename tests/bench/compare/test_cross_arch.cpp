// Runs of two processor architectures side by side (the vendor comparison, x86-64 against
// aarch64; pair_across_archs, data/cross_arch.csv, data/kernel_isas.csv): the same experiment pairs,
// STREAM at each run's widest kernel ISA, and the ISA-specific cases are one-sided with the reason.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}
// quick_vm's rows as an aarch64 machine would write them: its STREAM and FMA peak kernels renamed to
// the Arm ones (avx512 -> neon for STREAM; avx2 -> neon and avx512 -> sve for the peak), cpu_arch set.
LoadedRun arm_run(const CaseRules& rules) {
  return edited_run("quick_vm", "arm", rules, [](RunData& d) {
    d.inventory["cpu_arch"] = "aarch64";
    for (ResultRow& r : d.results) {
      if (r.benchmark == "stream_bandwidth" || r.benchmark == "memory_bandwidth") {  // renamed on reading or not
        r.case_name = replaced(r.case_name, "/avx512/", "/neon/");
        r.params = replaced(r.params, "isa=avx512", "isa=neon");
      } else if (r.benchmark == "fma_peak_f32") {
        const std::string from = r.case_name.rfind("avx2/", 0) == 0 ? "avx2" : "avx512",
                          to = from == "avx2" ? "neon" : "sve";
        r.case_name = replaced(r.case_name, from + "/", to + "/");
        r.params = replaced(r.params, "isa=" + from, "isa=" + to);
      }
    }
  });
}
// quick_vm with an AVX2 copy of every STREAM row beside its AVX-512 one (a full profile's sweep).
LoadedRun x86_run(const CaseRules& rules) {
  return edited_run("quick_vm", "x86", rules, [](RunData& d) {
    std::vector<ResultRow> extra;
    for (const ResultRow& r : d.results)
      if ((r.benchmark == "stream_bandwidth" || r.benchmark == "memory_bandwidth") &&
          r.case_name.find("/avx512/") != std::string::npos) {
        ResultRow c = r;
        c.case_name = replaced(c.case_name, "/avx512/", "/avx2/");
        c.params = replaced(c.params, "isa=avx512", "isa=avx2");
        extra.push_back(c);
      }
    d.results.insert(d.results.end(), extra.begin(), extra.end());
  });
}
const CaseFinding* finding(const std::vector<CaseFinding>& fs, const std::string& bench, const std::string& case_name) {
  for (const CaseFinding& f : fs)
    if (f.benchmark == bench && f.case_name == case_name) return &f;
  return nullptr;
}
}  // namespace

TEST(CrossArch, StreamPairsAtTheWidestKernelAndIsaCasesAreOneSided) {
  const CaseRules rules = read_case_rules();
  std::vector<LoadedRun> runs = {x86_run(rules), arm_run(rules)};
  ASSERT_EQ(run_arch(runs[0]), "x86_64");  // quick_vm has no cpu_arch: its suite did not record it
  ASSERT_EQ(run_arch(runs[1]), "aarch64");
  pair_across_archs(runs);
  const std::vector<CaseFinding> fs =
      compare_sides(Side{"x86", {&runs[0]}}, Side{"arm", {&runs[1]}}, nullptr, rules, StatOptions{});

  // STREAM: AVX-512 (the widest here) against NEON, each case of the sweep; the ISAs in the note
  const CaseFinding* copy = finding(fs, "memory_bandwidth", "copy/plain/widest/t1");
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->flag != "only_in_base" && copy->flag != "only_in_run") << copy->flag << ": " << copy->note;
  EXPECT_NE(copy->note.find("avx512 in x86, neon in arm"), std::string::npos) << copy->note;
  EXPECT_NE(copy->attributes.find("isa: avx512 -> neon"), std::string::npos) << copy->attributes;
  int widest = 0;
  for (const CaseFinding& f : fs)
    if (f.benchmark == "memory_bandwidth") {
      EXPECT_EQ(f.case_name.find("/avx512/"), std::string::npos)
          << f.case_name << ": the widest kernel pairs as widest";
      EXPECT_EQ(f.case_name.find("/neon/"), std::string::npos) << f.case_name << ": the widest kernel pairs as widest";
      if (f.case_name.find("/widest/") != std::string::npos) ++widest;
    }
  EXPECT_EQ(widest, 16);  // 4 kernels x 2 store kinds x 2 thread counts, each paired
  // the narrower AVX2 copy is one-sided, saying so
  const CaseFinding* avx2 = finding(fs, "memory_bandwidth", "copy/plain/avx2/t1");
  ASSERT_NE(avx2, nullptr);
  EXPECT_EQ(avx2->flag, "only_in_base");
  EXPECT_NE(avx2->note.find("one-sided: a narrower kernel (avx2)"), std::string::npos) << avx2->note;

  // the FMA peak of each ISA: never paired, each side's cases one-sided with why
  for (const char* c : {"avx2/t1", "avx512/t1", "neon/t1", "sve/t1"}) {
    const CaseFinding* f = finding(fs, "fma_peak_f32", c);
    ASSERT_NE(f, nullptr) << c;
    EXPECT_TRUE(f->flag == "only_in_base" || f->flag == "only_in_run" ||
                (f->flag == "cannot_judge" && f->params.find("arch=") != std::string::npos))  // no rows, keyed by arch
        << c << ": " << f->flag;
    EXPECT_NE(f->note.find("one-sided: the FMA peak of one ISA's kernel"), std::string::npos) << c << ": " << f->note;
  }
  // the same experiment pairs unchanged (GEMM at the same size and threads)
  const CaseFinding* gemm = finding(fs, "gemm_matmul_f32", "m2048n2048k2048/t1");
  ASSERT_NE(gemm, nullptr);
  EXPECT_TRUE(gemm->flag != "only_in_base" && gemm->flag != "only_in_run") << gemm->flag << ": " << gemm->note;
}

// Runs of one architecture are left as they are: no key renamed, nothing one-sided.
TEST(CrossArch, OneArchitectureIsLeftAlone) {
  const CaseRules rules = read_case_rules();
  std::vector<LoadedRun> runs = {x86_run(rules), x86_run(rules)};
  const auto keys = runs[0].cases;
  pair_across_archs(runs);
  EXPECT_EQ(runs[0].cases.size(), keys.size());
  for (auto& [k, c] : keys) EXPECT_EQ(runs[0].cases.count(k), 1u) << c.case_name;
  EXPECT_TRUE(runs[0].one_sided.empty());
  EXPECT_TRUE(runs[1].widest_isa.empty());
}

// A bad data file is refused with its name and line.
TEST(CrossArch, ABadPairingFileIsRefused) {
  const CaseRules rules = read_case_rules();
  std::vector<LoadedRun> runs = {x86_run(rules), arm_run(rules)};
  const std::string bad = ::testing::TempDir() + "cross_arch_bad.csv";
  { std::ofstream(bad) << "benchmark,pairing,why\nmemory_bandwidth,sometimes,because\n"; }
  try {
    pair_across_archs(runs, bad);
    FAIL() << "a pairing of 'sometimes' was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("widest or one_sided"), std::string::npos) << e.what();
  }
}

// A CPU whose widest kernel did not run (AVX-512 skipped on Zen 3): the widest that worked stands for
// the run, and the other is one-sided saying it did not work, not that it is narrower.
TEST(CrossArch, TheWidestKernelThatWorkedStandsForTheRun) {
  const CaseRules rules = read_case_rules();
  LoadedRun x86 = edited_run("quick_vm", "x86", rules, [](RunData& d) {
    std::vector<ResultRow> extra;
    for (ResultRow& r : d.results)
      if ((r.benchmark == "stream_bandwidth" || r.benchmark == "memory_bandwidth") &&
          r.case_name.find("/avx512/") != std::string::npos) {
        ResultRow c = r;  // the AVX2 kernel ran
        c.case_name = replaced(c.case_name, "/avx512/", "/avx2/");
        c.params = replaced(c.params, "isa=avx512", "isa=avx2");
        extra.push_back(c);
        r.status = Status::skipped;  // AVX-512 did not
        r.note = "this CPU lacks avx512 (cpuid)";
      }
    d.results.insert(d.results.end(), extra.begin(), extra.end());
  });
  std::vector<LoadedRun> runs = {std::move(x86), arm_run(rules)};
  pair_across_archs(runs);
  const std::vector<CaseFinding> fs =
      compare_sides(Side{"x86", {&runs[0]}}, Side{"arm", {&runs[1]}}, nullptr, rules, StatOptions{});
  const CaseFinding* copy = finding(fs, "memory_bandwidth", "copy/plain/widest/t1");
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy->note.find("avx2 in x86, neon in arm"), std::string::npos) << copy->note;
  std::string why;
  for (auto& [k, w] : runs[0].one_sided)
    if (k.find("copy/plain/avx512/t1") != std::string::npos) why = w;
  EXPECT_NE(why.find("a kernel (avx512) that did not work here, so avx2 stands for this run"), std::string::npos)
      << why;
  EXPECT_EQ(why.find("narrower"), std::string::npos) << why;
}
