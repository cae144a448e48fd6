// Figures named as they ran: every sentence of the report that quotes rows names the batch, image,
// matrix size and ranks of those rows (their params), never the shape a profile or the guide meant.
// Each test plants rows of another shape than the constant the text once carried (a tiny profile's
// batch 2 at 64x64 where the guide's claim is batch 16 at 224x224) and reads the sentence back.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "rigcheck/report/report.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
// FILE of run folder DIR with every match of FROM replaced by TO.
void rewrite(const std::string& dir, const std::string& file, const std::string& from, const std::string& to) {
  const std::string text = std::regex_replace(read_all(dir + "/" + file), std::regex(from), to);
  std::ofstream(dir + "/" + file, std::ios::trunc) << text;
}
// The verdicts of fixture FIXTURE after the edits (FROM, TO) of its result file FILE.
std::vector<Verdict> verdicts_after(const std::string& fixture, const std::string& file,
                                    const std::vector<std::pair<std::string, std::string>>& edits) {
  const std::string dir = copy_fixture(fixture);
  for (const auto& [from, to] : edits) rewrite(dir, file, from, to);
  return make_report(dir, quiet());
}
}  // namespace

// The tiny profile's ResNet-50 rows (batch 2, 64x64): "What this machine is good for" names that
// shape, CPU-1 (led by GEMM then) and CPU-2 say the claim's shape is missing and which shape ran instead.
TEST(FigureNames, ResnetSentencesNameTheRowsBatchAndImage) {
  const std::string dir = copy_fixture("resnet_synthetic");
  rewrite(dir, "cpu_resnet.csv", "b16i224", "b2i64");
  rewrite(dir, "cpu_resnet.csv", "batch=16;image=224", "batch=2;image=64");
  auto vs = make_report(dir, quiet());
  const std::string md = read_all(dir + "/report.md");
  EXPECT_NE(md.find("a ResNet-50 training step (batch 2, 64x64 images) at "), std::string::npos) << md.substr(0, 3000);
  EXPECT_EQ(md.find("training step (batch 16)"), std::string::npos);
  EXPECT_EQ(verdict_of(vs, "CPU-2").verdict, Outcome::not_measurable);
  for (const char* id : {"CPU-1", "CPU-2"}) {
    const Verdict& v = verdict_of(vs, id);
    EXPECT_NE((v.reason + v.evidence).find("this run's ran at batch 2, 64x64 images, never judged"), std::string::npos)
        << id << ": " << v.reason << " | " << v.evidence;
  }
}

// At the claim's shape the evidence names it from the rows.
TEST(FigureNames, ResnetEvidenceNamesTheClaimShapeFromTheRows) {
  const std::string dir = copy_fixture("resnet_synthetic");
  auto vs = make_report(dir, quiet());
  EXPECT_EQ(verdict_of(vs, "CPU-1").evidence.rfind("ResNet-50 training step, batch 16, 224x224 images, SGD", 0), 0u)
      << verdict_of(vs, "CPU-1").evidence;
}

// The GEMM headline names the matrix size of the case it quotes.
TEST(FigureNames, GemmHeadlineNamesTheMatrixSize) {
  const std::string dir = copy_fixture("good");
  make_report(dir, quiet());
  const std::string md = read_all(dir + "/report.md");
  EXPECT_TRUE(std::regex_search(md, std::regex(R"(f32 matrix multiplication \(m=n=k=[0-9]+\) at )")))
      << md.substr(0, 3000);
}

// GPU-1 at another batch than the guide's 16: the per-model lines and the reason say the rows' batch.
TEST(FigureNames, Gpu1NamesTheBatchItsRowsRanAt) {
  const auto vs =
      verdicts_after("gpu_h200_synthetic", "gpu_model_memory.csv", {{"/b16", "/b8"}, {"batch=16", "batch=8"}});
  const Verdict& v = verdict_of(vs, "GPU-1");
  EXPECT_EQ(v.reason.rfind("batch 8, one full training step", 0), 0u) << v.reason;
  EXPECT_NE(v.evidence.find("resnet50 (batch 8): guide 8 GB"), std::string::npos) << v.evidence;
  EXPECT_EQ(v.evidence.find("batch 16"), std::string::npos) << v.evidence;
}

// NET-1's traffic is judged at the ranks of the TCP rows that counted it, not at those of the timed
// run: here the timed (shared-memory) run is relabelled 4 ranks and trusted (its 400 MB rows were
// mistrusted on the busy VM that recorded them), the TCP one stays at 2.
TEST(FigureNames, Net1TrafficAtTheRanksOfItsOwnRows) {
  const auto vs =
      verdicts_after("comm_2ranks", "comm_allreduce_mpi.csv", {{"ranks=2", "ranks=4"}, {",mistrusted,", ",ok,"}});
  const Verdict& v = verdict_of(vs, "NET-1");
  EXPECT_NEAR(v.measured.value, 0.8, 0.05) << v.evidence;  // 0.4 GB per rank x 2 ranks
  EXPECT_NE(v.reason.find("the guide's formula at 2 ranks (1.6 GB"), std::string::npos) << v.reason;
  EXPECT_NE(v.evidence.find("on 4 ranks"), std::string::npos) << v.evidence;  // the timed run keeps its own count
}
