// Whether this benchmark binary runs under an emulator: its timings are then the emulator's, not the CPU's,
// and every timed row is mistrusted with the reason (trust(), session.hpp). Two kinds are seen:
// - qemu-user running an aarch64 build on an x86-64 machine (docs/arm.md): the kernel's own
//   architecture (/proc/sys/kernel/arch), which qemu-user does not translate, against the processor
//   this binary was compiled for. qemu-user translates uname(2) (it says aarch64) and, in newer
//   releases, /proc/cpuinfo, and it sets no environment variable of its own (QEMU_* are read, not set).
// - a whole machine emulated (QEMU's TCG, scripts/vm-numa.sh): the hypervisor's CPUID signature
//   ("TCGTCGTCGTCG"; qemu-user on a machine of its own architecture shows it too). No calibration
//   against the clock: a chain of dependent double multiply-adds took 1.7 ns per link natively here,
//   9.5 under qemu-x86_64 7.2 and 17 under valgrind (2026-12-06), within the 5x between a 1 GHz
//   core and a 5 GHz one: it cannot tell an emulator from a slow CPU (docs/methodology.md).
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

// The processor this binary was compiled for, as the kernel names it: "x86_64", "aarch64", or "".
const char* binary_arch();

// The running kernel's processor: /proc/sys/kernel/arch, else read off /proc/cpuinfo's format
// ("vendor_id" lines: x86_64; "CPU implementer": aarch64); "" when neither says.
std::string kernel_arch();

// The hypervisor CPUID leaf 0x40000000 names, when the CPU says it is virtual (CPUID.1:ECX bit 31):
// "kvm", "hyperv", "vmware", "xen", "qemu-tcg" (QEMU's software emulation), ... or the raw signature;
// "" on bare metal, on a CPU without the leaf and on other architectures.
std::string cpuid_hypervisor();

// "" when this runs natively (or nothing says otherwise); else the reason. Emulated when a binary for
// `binary` runs on a kernel for `kernel` (qemu-user; either unknown: no claim), or when the hypervisor
// is QEMU's software emulation (`hypervisor` "qemu-tcg", cpuid_hypervisor).
std::string emulation_reason(const std::string& kernel, const std::string& binary, const std::string& hypervisor = "");

// This process's emulation_reason, read once.
const std::string& emulation();

// Set by `rigcheck run --exec-prefix CMD` in every benchmark's environment: the command (an emulator,
// "qemu-aarch64 -L SYSROOT") the benchmark starts its own processes through. Without binfmt_misc the
// kernel cannot execute an aarch64 program on an x86-64 machine, not even /proc/self/exe (under
// qemu-user that names the emulated binary), so a re-exec, cpu_isa's second process and memory_host's
// children go through the emulator as the runner's children do.
inline constexpr const char* kExecPrefixEnv = "RIGCHECK_EXEC_PREFIX";

// The prefix's words (split at white space), empty when kExecPrefixEnv is unset or blank.
std::vector<std::string> exec_prefix_words();

// A program to execv and its arguments.
struct ExecCommand {
  std::string file;               // a path: the prefix's first word found on PATH, or the program's
  std::vector<std::string> argv;  // argv[0] included
};

// `argv` (argv[0] the program, a path) through the exec prefix when one is set: {prefix words...,
// argv...}; else argv unchanged.
ExecCommand through_exec_prefix(std::vector<std::string> argv);

// This binary started again with `argv` (argv[0] kept as its name): /proc/self/exe, or through the
// exec prefix the binary's own path (readlink of /proc/self/exe, which qemu-user answers with the
// emulated binary's path) in argv[0]'s place. Made before a fork: it allocates.
ExecCommand self_exec_command(std::vector<std::string> argv);

// execv/execve of a command (env nullptr: this process's environment). Returns only on failure.
void exec_command(const ExecCommand& c, char* const* env = nullptr);

}  // namespace rigcheck
