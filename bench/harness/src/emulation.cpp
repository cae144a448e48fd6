#include "rigcheck/harness/emulation.hpp"

#include <fstream>

#include <fmt/format.h>

namespace rigcheck {

const char* binary_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "";
#endif
}

std::string kernel_arch() {
  std::string line;
  if (std::ifstream f("/proc/sys/kernel/arch"); f && std::getline(f, line) && !line.empty()) return line;
  std::ifstream cpuinfo("/proc/cpuinfo");
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("vendor_id", 0) == 0) return "x86_64";
    if (line.rfind("CPU implementer", 0) == 0) return "aarch64";
  }
  return "";
}

std::string emulation_reason(const std::string& kernel, const std::string& binary) {
  if (kernel.empty() || binary.empty() || kernel == binary) return "";
  return fmt::format("this {} binary runs emulated on an {} kernel (qemu-user or the like)", binary, kernel);
}

const std::string& emulation() {
  static const std::string why = emulation_reason(kernel_arch(), binary_arch());
  return why;
}

}  // namespace rigcheck
