// Whether this benchmark binary runs under an emulator (qemu-user running an aarch64 build on an
// x86-64 machine, docs/arm.md): its timings are then the emulator's, not the CPU's, and every timed
// row is mistrusted with the reason (trust(), session.hpp). Detected from what qemu-user does not
// translate: the kernel's own architecture (/proc/sys/kernel/arch), against the processor this
// binary was compiled for. qemu-user translates uname(2) (it says aarch64) and, in newer releases,
// /proc/cpuinfo, and it sets no environment variable of its own (QEMU_* are read, not set).
#pragma once
#include <string>

namespace rigcheck {

// The processor this binary was compiled for, as the kernel names it: "x86_64", "aarch64", or "".
const char* binary_arch();

// The running kernel's processor: /proc/sys/kernel/arch, else read off /proc/cpuinfo's format
// ("vendor_id" lines: x86_64; "CPU implementer": aarch64); "" when neither says.
std::string kernel_arch();

// "" when a binary for `binary` runs natively on a kernel for `kernel` (or either is unknown);
// else the reason, naming both.
std::string emulation_reason(const std::string& kernel, const std::string& binary);

// This process's emulation_reason, read once.
const std::string& emulation();

}  // namespace rigcheck
