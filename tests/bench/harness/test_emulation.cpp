// bench/harness/src/emulation.cpp: a binary knows when it runs emulated (qemu-user: an aarch64 build
// on an x86-64 kernel), so that its timings are mistrusted (trust(), session.cpp). The run under
// qemu itself is ctest arm64_qemu_kernels (tests/cpu/arm64_qemu.sh).
#include <gtest/gtest.h>

#include <string>

#include "rigcheck/harness/emulation.hpp"

using namespace rigcheck;

TEST(Emulation, ReasonNamesBothArchitectures) {
  const std::string why = emulation_reason("x86_64", "aarch64");
  EXPECT_NE(why.find("aarch64 binary"), std::string::npos) << why;
  EXPECT_NE(why.find("x86_64 kernel"), std::string::npos) << why;
}

TEST(Emulation, NativeOrUnknownIsNotEmulated) {
  EXPECT_EQ(emulation_reason("aarch64", "aarch64"), "");
  EXPECT_EQ(emulation_reason("x86_64", "x86_64"), "");
  EXPECT_EQ(emulation_reason("", "aarch64"), "");  // a kernel that says nothing: no claim either way
  EXPECT_EQ(emulation_reason("x86_64", ""), "");
}

// The test binary runs natively: the kernel is read and agrees with the build, so nothing is mistrusted.
TEST(Emulation, ThisProcessRunsNatively) {
  EXPECT_NE(std::string(binary_arch()), "");
  EXPECT_EQ(kernel_arch(), binary_arch());
  EXPECT_EQ(emulation(), "");
}
