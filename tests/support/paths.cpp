// The paths of support/paths.hpp, from this build's configuration (tests/CMakeLists.txt).
#include "support/paths.hpp"

namespace rigcheck::test {
std::string source_dir() { return RIGCHECK_TEST_SOURCE_DIR; }
std::string fake_bench() { return RIGCHECK_TEST_FAKE_BENCH; }
std::string build_dir() { return RIGCHECK_TEST_BUILD_DIR; }
}  // namespace rigcheck::test
