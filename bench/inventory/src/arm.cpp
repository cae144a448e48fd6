// Inventory: the processor architecture the suite's binaries run (and whether emulated), and on
// aarch64 the CPU's identity (MIDR implementer and part, decoded through data/arm_cpus.csv), its
// features from the kernel's HWCAP and the SVE vector length (docs/arm.md).
#include "internal.hpp"

#include <algorithm>
#include <cctype>

#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace rigcheck {

std::vector<ArmCpu> read_arm_cpus(const std::string& path) {
  std::vector<ArmCpu> out;
  with_csv_errors(path, [&] {
    io::CSVReader<4, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "implementer", "part", "name", "source");
    ArmCpu a;
    while (in.read_row(a.implementer, a.part, a.name, a.source)) {
      const long line = static_cast<long>(in.get_file_line());
      if (a.implementer.rfind("0x", 0) != 0 || a.part.rfind("0x", 0) != 0)
        throw InputError(path, line, "implementer and part are hexadecimal as /proc/cpuinfo writes them (0x41, 0xd4f)");
      if (a.name.empty() || a.source.empty()) throw InputError(path, line, "every row needs its name and its source");
      out.push_back(a);
    }
  });
  return out;
}

const ArmCpu* arm_cpu(const std::string& implementer, const std::string& part, const std::vector<ArmCpu>& table) {
  auto same = [](const std::string& a, const std::string& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
  };
  for (const ArmCpu& a : table)
    if (same(a.implementer, implementer) && same(a.part, part)) return &a;
  return nullptr;
}

}  // namespace rigcheck

namespace rigcheck::inventory_detail {

namespace {

#if defined(__aarch64__)
// Implementer and part: /proc/cpuinfo's, else MIDR_EL1 read directly (the kernel emulates the read
// where HWCAP_CPUID is set; under qemu-user /proc/cpuinfo is the host's).
std::pair<std::string, std::string> midr(const CpuId& cpu, std::string& from) {
  auto f = [&](const char* k) { return cpu.fields.count(k) ? cpu.fields.at(k) : std::string(); };
  if (!f("CPU implementer").empty()) {
    from = "/proc/cpuinfo";
    return {f("CPU implementer"), f("CPU part")};
  }
  if (!(getauxval(AT_HWCAP) & HWCAP_CPUID)) return {};
  std::uint64_t m = 0;
  asm volatile("mrs %0, midr_el1" : "=r"(m));
  from = "MIDR_EL1";
  return {fmt::format("{:#04x}", (m >> 24) & 0xff), fmt::format("{:#05x}", (m >> 4) & 0xfff)};
}

void add_arm_cpu(Collector& c, const CpuId& cpu) {
  std::string from;
  const auto [imp, part] = midr(cpu, from);
  c.add("cpu_implementer", imp.empty() ? unknown("no CPU implementer in /proc/cpuinfo and no HWCAP_CPUID") : imp);
  c.add("cpu_part", part.empty() ? unknown("no CPU part in /proc/cpuinfo and no HWCAP_CPUID") : part);
  if (!imp.empty()) {
    const std::vector<ArmCpu> table = read_arm_cpus(data_path("arm_cpus.csv"));
    const ArmCpu* a = arm_cpu(imp, part, table);
    c.add("cpu_arm_name",
          a ? fmt::format("{} (from {}; data/arm_cpus.csv: {})", a->name, from, a->source)
            : unknown(fmt::format("implementer {} part {} ({}) not in data/arm_cpus.csv", imp, part, from)));
  }
  const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
  const std::pair<const char*, bool> features[] = {
      {"isa_asimd", (hw & HWCAP_ASIMD) != 0}, {"isa_sve", (hw & HWCAP_SVE) != 0},
      {"isa_sve2", (hw2 & HWCAP2_SVE2) != 0}, {"isa_bf16", (hw2 & HWCAP2_BF16) != 0},
      {"isa_i8mm", (hw2 & HWCAP2_I8MM) != 0}, {"isa_sme", (hw2 & HWCAP2_SME) != 0}};
  for (const auto& [key, on] : features) c.add(key, on ? "yes" : "no");
  const int vl = (hw & HWCAP_SVE) ? prctl(PR_SVE_GET_VL) : -1;
  c.add("sve_vector_bits", !(hw & HWCAP_SVE) ? unknown("no SVE (HWCAP)")
                           : vl >= 0         ? std::to_string(8 * (vl & PR_SVE_VL_LEN_MASK))
                                             : unknown(fmt::format("prctl(PR_SVE_GET_VL): {}", errno_text(errno))));
}
#endif

}  // namespace

// cpu_arch: the ISA the suite's binaries run (the claims read it: an x86 claim on aarch64 is not
// measurable); kernel_arch and emulated: whether that runs on its own kernel or emulated.
void add_arch(Collector& c, const CpuId& cpu) {
  const std::string bin = binary_arch();
  c.add("cpu_arch", bin.empty() ? unknown("built for a processor the suite does not name") : bin);
  const std::string k = kernel_arch();
  c.add("kernel_arch", k.empty() ? unknown("neither /proc/sys/kernel/arch nor /proc/cpuinfo says") : k);
  c.add("emulated", emulation().empty() ? "no" : "yes: " + emulation());
#if defined(__aarch64__)
  add_arm_cpu(c, cpu);
#else
  (void)cpu;
  // The Arm features on another ISA, so that a registry need such as cpu_isa_sve's (isa_sve=yes)
  // says why it is unmet.
  for (const char* k : {"isa_asimd", "isa_sve", "isa_sve2", "isa_bf16", "isa_i8mm", "isa_sme"})
    c.add(k, "no: an Arm feature; this binary is " + (bin.empty() ? std::string("not aarch64") : bin));
#endif
}

}  // namespace rigcheck::inventory_detail
