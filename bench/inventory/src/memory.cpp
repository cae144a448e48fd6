// Inventory: memory (size, DIMMs through SMBIOS) and transparent huge pages.
#include "internal.hpp"

namespace rigcheck::inventory_detail {

// A "Key:   123 kB" line of /proc/meminfo, in bytes.
std::string meminfo_bytes(const std::string& meminfo, const std::string& key) {
  std::size_t pos = 0;
  while (pos < meminfo.size()) {
    auto eol = meminfo.find('\n', pos);
    if (eol == std::string::npos) eol = meminfo.size();
    const std::string_view line(meminfo.data() + pos, eol - pos);
    pos = eol + 1;
    if (line.size() <= key.size() || line.compare(0, key.size(), key) != 0 || line[key.size()] != ':') continue;
    std::string rest = trim(line.substr(key.size() + 1));
    std::uint64_t mult = 1;
    if (rest.size() > 2 && rest.compare(rest.size() - 2, 2, "kB") == 0) {
      mult = 1024;
      rest = trim(rest.substr(0, rest.size() - 2));
    }
    std::uint64_t v = 0;
    if (!parse_u64(rest, v)) return unknown("cannot parse " + key + " in /proc/meminfo");
    return std::to_string(v * mult);
  }
  return unknown("no " + key + " in /proc/meminfo");
}

// SMBIOS memory type byte (type 17, offset 0x12) as a name.
std::string smbios_memory_type(unsigned t) {
  switch (t) {
    case 0x01: return "Other";
    case 0x02: return "Unknown";
    case 0x03: return "DRAM";
    case 0x07: return "RAM";
    case 0x0F: return "SDRAM";
    case 0x12: return "DDR";
    case 0x13: return "DDR2";
    case 0x14: return "DDR2 FB-DIMM";
    case 0x18: return "DDR3";
    case 0x19: return "FBD2";
    case 0x1A: return "DDR4";
    case 0x1B: return "LPDDR";
    case 0x1C: return "LPDDR2";
    case 0x1D: return "LPDDR3";
    case 0x1E: return "LPDDR4";
    case 0x1F: return "Logical non-volatile device";
    case 0x20: return "HBM";
    case 0x21: return "HBM2";
    case 0x22: return "DDR5";
    case 0x23: return "LPDDR5";
    case 0x24: return "HBM3";
    default: return fmt::format("type {:#04x}", t);
  }
}

// DIMM type and speed from SMBIOS type 17 (Memory Device) entries; root only, usually.
struct DimmFacts {
  std::string type, speed, configured_speed, count;
};

DimmFacts read_dimms() {
  const std::string dir = "/sys/firmware/dmi/entries";
  DimmFacts f;
  auto all_unknown = [&](const std::string& why) {
    f.type = f.speed = f.configured_speed = f.count = unknown(why);
    return f;
  };
  std::vector<std::string> names;
  if (!list_dir(dir, names))
    return all_unknown(path_exists("/sys/firmware/dmi") ? dir + " not readable"
                                                        : "/sys/firmware/dmi not readable (no SMBIOS tables)");
  std::set<std::string> types;
  std::set<unsigned> speeds, configured;
  int entries = 0, readable = 0, populated = 0;
  for (const auto& n : names) {
    if (n.compare(0, 3, "17-") != 0) continue;
    ++entries;
    std::string raw;
    if (!read_text(dir + "/" + n + "/raw", raw, 4096)) continue;
    ++readable;
    const auto* b = reinterpret_cast<const unsigned char*>(raw.data());
    if (raw.size() < 4 || b[0] != 17) continue;
    const std::size_t len = std::min<std::size_t>(b[1], raw.size());  // formatted area
    auto byte_at = [&](std::size_t off, unsigned& v) { return off < len ? (v = b[off], true) : false; };
    auto word_at = [&](std::size_t off, unsigned& v) {
      return off + 1 < len ? (v = b[off] | (unsigned(b[off + 1]) << 8), true) : false;
    };
    auto dword_at = [&](std::size_t off, unsigned& v) {
      unsigned lo = 0, hi = 0;
      return word_at(off, lo) && word_at(off + 2, hi) ? (v = lo | (hi << 16), true) : false;
    };
    unsigned size = 0, type = 0, speed = 0, conf = 0;
    if (word_at(0x0C, size) && size == 0) continue;  // empty slot
    ++populated;
    if (byte_at(0x12, type)) types.insert(smbios_memory_type(type));
    // 0xFFFF: the speed is in the 32-bit extended field (SMBIOS 3.3+).
    if (word_at(0x15, speed) && speed == 0xFFFF && !dword_at(0x54, speed)) speed = 0;
    if (speed != 0 && speed != 0xFFFF) speeds.insert(speed);
    if (word_at(0x20, conf) && conf == 0xFFFF && !dword_at(0x58, conf)) conf = 0;
    if (conf != 0 && conf != 0xFFFF) configured.insert(conf);
  }
  if (entries == 0) return all_unknown("no SMBIOS type 17 entries");
  if (readable == 0) return all_unknown("SMBIOS type 17 entries not readable (needs root)");
  if (populated == 0) return all_unknown("no populated memory device in SMBIOS type 17");
  auto speed_text = [](const std::set<unsigned>& s) {
    if (s.empty()) return unknown("speed not reported in SMBIOS");
    std::vector<std::string> parts;
    for (unsigned v : s) parts.push_back(fmt::format("{} MT/s", v));
    return join(parts, ";");
  };
  f.type = types.empty() ? unknown("type not reported in SMBIOS")
                         : join(std::vector<std::string>(types.begin(), types.end()), ";");
  f.speed = speed_text(speeds);
  f.configured_speed = speed_text(configured);
  f.count = std::to_string(populated);
  return f;
}

// Memory size, huge page size, DIMMs and the memory limit this process lives under (NUMA nodes:
// shape.cpp).
void add_memory(Collector& c) {
  std::string meminfo;
  if (read_text("/proc/meminfo", meminfo)) {
    c.add("memory_total_bytes", meminfo_bytes(meminfo, "MemTotal"));
    // Free memory when the inventory was taken (MemAvailable): rigcheck capacity sets its limits beside it.
    c.add("memory_available_bytes", meminfo_bytes(meminfo, "MemAvailable"));
    c.add("hugepage_size_bytes", meminfo_bytes(meminfo, "Hugepagesize"));
  } else {
    c.add("memory_total_bytes", unknown("/proc/meminfo not readable"));
    c.add("memory_available_bytes", unknown("/proc/meminfo not readable"));
    c.add("hugepage_size_bytes", unknown("/proc/meminfo not readable"));
  }
  const DimmFacts d = read_dimms();
  c.add("memory_dimm_type", d.type);
  c.add("memory_dimm_speed", d.speed);
  c.add("memory_dimm_configured_speed", d.configured_speed);
  c.add("memory_dimm_count", d.count);
  add_memory_limit(c, "");
}

// Transparent huge pages.
void add_thp(Collector& c) {
  const std::string dir = "/sys/kernel/mm/transparent_hugepage";
  c.add("thp_enabled", bracketed_choice(dir + "/enabled"));
  c.add("thp_defrag", bracketed_choice(dir + "/defrag"));
  c.add("thp_available", is_dir(dir) ? "yes" : "no");
}

}  // namespace rigcheck::inventory_detail
