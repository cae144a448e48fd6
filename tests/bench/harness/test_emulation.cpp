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

// This test binary as it runs: natively, the kernel is read and agrees with the build, and nothing is
// mistrusted; the aarch64 build's run under qemu-user here (ctest -L unit in build-arm64) is seen as
// emulated, naming both.
TEST(Emulation, ThisProcessIsSeenAsItRuns) {
  EXPECT_NE(std::string(binary_arch()), "");
  EXPECT_NE(kernel_arch(), "");
  if (kernel_arch() == binary_arch() && cpuid_hypervisor() != "qemu-tcg") {
    EXPECT_EQ(emulation(), "");
  } else if (kernel_arch() == binary_arch()) {
    EXPECT_NE(emulation().find("QEMU's TCG"), std::string::npos) << emulation();
  } else {
    EXPECT_NE(emulation().find(std::string(binary_arch()) + " binary"), std::string::npos) << emulation();
    EXPECT_NE(emulation().find(kernel_arch() + " kernel"), std::string::npos) << emulation();
  }
}

// A machine emulated by QEMU's TCG names itself in CPUID (as qemu-user does on its own architecture:
// `qemu-x86_64 harness_tests` here takes the other branch of the test above); a hypervisor that runs
// the CPU's own instructions (KVM) is not emulation.
TEST(Emulation, QemuSoftwareEmulationIsSeen) {
  const std::string tcg = emulation_reason("x86_64", "x86_64", "qemu-tcg");
  EXPECT_NE(tcg.find("QEMU's TCG"), std::string::npos) << tcg;
  EXPECT_EQ(emulation_reason("x86_64", "x86_64", "kvm"), "");
  // qemu-user across architectures is named first: the architectures are the stronger evidence.
  EXPECT_NE(emulation_reason("x86_64", "aarch64", "qemu-tcg").find("aarch64 binary"), std::string::npos);
}
