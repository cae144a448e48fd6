#include "rigcheck/harness/emulation.hpp"

#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdlib>
#include <cstring>
#include <map>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "rigcheck/harness/process.hpp"

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

std::string cpuid_hypervisor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) return {};
  __cpuid(0x40000000, a, b, c, d);
  char sig[13] = {};
  std::memcpy(sig, &b, 4);
  std::memcpy(sig + 4, &c, 4);
  std::memcpy(sig + 8, &d, 4);
  std::string s(sig, strnlen(sig, 12));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  s.erase(0, s.find_first_not_of(' ') == std::string::npos ? s.size() : s.find_first_not_of(' '));
  static const std::map<std::string, std::string> names = {
      {"KVMKVMKVM", "kvm"},     {"Microsoft Hv", "hyperv"},   {"VMwareVMware", "vmware"},
      {"XenVMMXenVMM", "xen"},  {"TCGTCGTCGTCG", "qemu-tcg"}, {"VBoxVBoxVBox", "virtualbox"},
      {"ACRNACRNACRN", "acrn"}, {"bhyve bhyve", "bhyve"},     {"lrpepyh  vr", "parallels"}};
  const auto it = names.find(s);
  return it != names.end() ? it->second : s;
#else
  return {};
#endif
}

std::string emulation_reason(const std::string& kernel, const std::string& binary, const std::string& hypervisor) {
  if (!kernel.empty() && !binary.empty() && kernel != binary)
    return fmt::format("this {} binary runs emulated on an {} kernel (qemu-user or the like)", binary, kernel);
  if (hypervisor == "qemu-tcg")
    return "the CPU is emulated: it names its hypervisor QEMU's TCG (software emulation: qemu-system without KVM, or "
           "qemu-user)";
  return "";
}

const std::string& emulation() {
  static const std::string why = emulation_reason(kernel_arch(), binary_arch(), cpuid_hypervisor());
  return why;
}

std::vector<std::string> exec_prefix_words() {
  std::vector<std::string> out;
  const char* p = std::getenv(kExecPrefixEnv);
  if (!p) return out;
  std::istringstream in(p);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

ExecCommand through_exec_prefix(std::vector<std::string> argv) {
  std::vector<std::string> prefix = exec_prefix_words();
  if (prefix.empty()) return {argv.empty() ? std::string() : argv[0], std::move(argv)};
  ExecCommand c;
  c.file = prefix[0].find('/') != std::string::npos ? prefix[0] : find_on_path(prefix[0]);
  if (c.file.empty()) c.file = prefix[0];  // execv fails and the caller says so
  c.argv = std::move(prefix);
  c.argv.insert(c.argv.end(), argv.begin(), argv.end());
  return c;
}

ExecCommand self_exec_command(std::vector<std::string> args) {
  if (exec_prefix_words().empty()) return {"/proc/self/exe", std::move(args)};
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0 && !args.empty()) args[0].assign(buf, static_cast<size_t>(n));
  return through_exec_prefix(std::move(args));
}

void exec_command(const ExecCommand& c, char* const* env) {
  std::vector<char*> args;
  for (const std::string& a : c.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  if (env)
    ::execve(c.file.c_str(), args.data(), env);
  else
    ::execv(c.file.c_str(), args.data());
}

}  // namespace rigcheck
