// Where the tests find the source tree's inputs and the test benchmark: given by one small
// translation unit (paths.cpp) compiled with the paths, not by compile definitions on every test
// file. A definition holding this clone's path changes each file's command line from one clone to
// the next, so the compiler cache (cmake/ccache.cmake) missed every test file of a fresh clone;
// now it misses only paths.cpp.
#pragma once

#include <string>
#include <vector>

#include "rigcheck/harness/emulation.hpp"

namespace rigcheck::test {
std::string source_dir();  // the repository's root
std::string fake_bench();  // the test benchmark (tests/bench/harness/fake_bench.cpp)
std::string build_dir();   // this build's folder: suite-binaries.txt, bin/

// The test benchmark and `args` as a command to run: under an emulator through its exec prefix (the
// aarch64 build's unit tests under qemu-user: their ctest sets RIGCHECK_EXEC_PREFIX, emulation.hpp).
inline std::vector<std::string> fake_bench_cmd(std::vector<std::string> args) {
  args.insert(args.begin(), fake_bench());
  return through_exec_prefix(std::move(args)).argv;
}
}  // namespace rigcheck::test

#define RIGCHECK_FIXTURES (::rigcheck::test::source_dir() + "/tests/fixtures")
#define RIGCHECK_IO_FIXTURES (::rigcheck::test::source_dir() + "/tests/fixtures/io")
#define RIGCHECK_CLAIMS_MD (::rigcheck::test::source_dir() + "/docs/claims.md")
#define RIGCHECK_TEST_DATA_DIR (::rigcheck::test::source_dir() + "/data")
#define RIGCHECK_FAKE_BENCH (::rigcheck::test::fake_bench())
