// bench/harness/src/session.cpp: the one mistrust rule, the binary's own defaults, --filter compiled at
// parse (a bad one is exit 2), rank-0 mode, never-overwritten results, exit codes.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/session.hpp"
#include "support/files.hpp"

using namespace rigcheck;

namespace {
std::optional<int> parse(Session& s, std::vector<std::string> args) {
  args.insert(args.begin(), "bench");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return s.parse(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(Session, OneMistrustThreshold) {
  std::string note;
  if (!emulation().empty()) {  // the arm64 build under qemu-user: every timed row is mistrusted, saying why
    EXPECT_EQ(trust(0.95, 2, &note), Status::mistrusted);
    EXPECT_NE(note.find("emulation"), std::string::npos) << note;
    return;
  }
  EXPECT_EQ(trust(0.95, 2, &note), Status::ok);
  EXPECT_EQ(trust(kMinCpuUtilization, 1, &note), Status::ok);
  EXPECT_EQ(trust(0.74, 1, &note), Status::mistrusted);
  EXPECT_NE(note.find("74%"), std::string::npos) << note;
  EXPECT_EQ(trust(0.5, 2, &note), Status::mistrusted);  // two threads on one CPU
}

TEST(Session, OwnDefaultsAndOptionsLeftOut) {
  SharedOptions shared;
  shared.threads = shared.sizes = false;
  shared.reps[1] = 3;
  Session s("bench", "test", shared);
  EXPECT_FALSE(parse(s, {"--profile", "quick"}).has_value());
  EXPECT_EQ(s.options().reps, 3);
  Session t("bench", "test", shared);
  EXPECT_EQ(parse(t, {"--threads", "2"}), std::optional<int>(kExitUsage));  // not an option of this binary
  Session u("bench", "test", shared);
  EXPECT_FALSE(parse(u, {"--reps", "7"}).has_value());
  EXPECT_EQ(u.options().reps, 7);
}

TEST(Session, BadFilterIsUsageError) {
  Session s("bench", "test");
  EXPECT_EQ(parse(s, {"--filter", "("}), std::optional<int>(kExitUsage));
  Session t("bench", "test");
  ASSERT_FALSE(parse(t, {"--filter", "^a/x"}).has_value());
  EXPECT_TRUE(t.selected("a", "x1"));
  EXPECT_FALSE(t.selected("b", "x1"));
  EXPECT_EQ(t.require_cases(0), std::optional<int>(kExitUsage));
}

TEST(Session, ValidateErrorIsUsageError) {
  Session s("bench", "test");
  EXPECT_EQ(s.parse(1, std::vector<char*>{const_cast<char*>("bench")}.data(),
                    [] { throw std::invalid_argument("--mode must be a or b"); }),
            std::optional<int>(kExitUsage));
}

TEST(Session, ResultsNeverOverwrittenAndExitCodes) {
  const std::string dir = testsupport::fresh_dir("session");
  {
    Session s("bench", "test");
    ASSERT_FALSE(parse(s, {"--out", dir, "--stem", "r"}).has_value());
    ASSERT_TRUE(s.open_results());
    s.row("b", "c", "k=v", "m", 1.5, "s", 0, Status::ok);
    s.case_ok();
    EXPECT_EQ(s.finish(), kExitOk);
  }
  {
    Session s("bench", "test");
    ASSERT_FALSE(parse(s, {"--out", dir, "--stem", "r"}).has_value());
    EXPECT_FALSE(s.open_results());  // r.csv exists
  }
  {
    Session s("bench", "test");
    ASSERT_FALSE(parse(s, {"--out", dir, "--stem", "skips"}).has_value());
    ASSERT_TRUE(s.open_results());
    s.case_skipped("no GPU");
    s.case_skipped("no GPU");
    EXPECT_EQ(s.finish(), kExitSkipped);
  }
  {
    Session s("bench", "test");
    ASSERT_FALSE(parse(s, {"--out", dir, "--stem", "fails"}).has_value());
    ASSERT_TRUE(s.open_results());
    s.case_skipped("no GPU");
    s.case_failed("b", "c", "WRONG: 3 values");
    EXPECT_EQ(s.finish(), kExitFailed);
  }
  {
    Session s("bench", "test");
    ASSERT_FALSE(parse(s, {"--out", dir, "--stem", "throws"}).has_value());
    ASSERT_TRUE(s.open_results());
    bool aborted = false;
    EXPECT_EQ(
        s.run([] { throw std::runtime_error("x.csv.partial: cannot write a result row: No space left on device"); },
              [&] { aborted = true; }),
        kExitFailed);
    EXPECT_TRUE(aborted);
  }
  std::ifstream in(dir + "/r.csv");
  std::string header, line;
  std::getline(in, header);
  std::getline(in, line);
  EXPECT_NE(line.find(",b,c,k=v,m,1.5,s,0,ok,"), std::string::npos) << line;
}

TEST(Session, OnlyRankZeroWrites) {
  const std::string dir = testsupport::fresh_dir("session-rank");
  Session s("bench", "test");
  s.set_rank(1);
  ASSERT_FALSE(parse(s, {"--out", dir}).has_value());
  EXPECT_TRUE(s.open_results());
  s.row("b", "c", "", "m", 1, "s", 0, Status::ok);  // nothing: not the reporting rank
  s.case_ok();
  EXPECT_EQ(s.finish(), kExitOk);
  std::ifstream in(dir + "/bench.csv");
  EXPECT_FALSE(in.good());
}
