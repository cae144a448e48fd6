// Inventory: the CPU (identity, topology, usable CPUs, caches from every source, ISA, clock).
#include "internal.hpp"
#include <cmath>

#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/topology.hpp"

#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
#include <hwloc.h>
#endif
#if defined(RIGCHECK_HAVE_CPUINFO) && RIGCHECK_HAVE_CPUINFO
#include <cpuinfo.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rigcheck::inventory_detail {

// CPU identity from /proc/cpuinfo.
void add_cpu_identity(Collector& c, const CpuId& cpu) {
  if (!cpu.readable) {
    for (const char* k : {"cpu_vendor", "cpu_model", "cpu_family", "cpu_model_number", "cpu_stepping", "cpu_microarch",
                          "cpu_server_class"})
      c.add(k, unknown("/proc/cpuinfo not readable"));
    return;
  }
  c.add("cpu_vendor", cpu.vendor.empty() ? unknown("no vendor_id in /proc/cpuinfo") : cpu.vendor);
  c.add("cpu_model", cpu.model_name.empty() ? unknown("no 'model name' in /proc/cpuinfo") : cpu.model_name);
  c.add("cpu_family", decimal_or_unknown(cpu.family, "cpu family"));
  c.add("cpu_model_number", decimal_or_unknown(cpu.model, "model"));
  c.add("cpu_stepping", decimal_or_unknown(cpu.stepping, "stepping"));
  c.add("cpu_microarch", cpu_microarch(cpu));
  c.add("cpu_server_class", cpu_server_class(cpu));
}

// Size in bytes of a sysfs cache size ("32K", "1024K", "32M"); 0 when unparsable.
std::uint64_t parse_cache_size(const std::string& text) {
  const std::string s = trim(text);
  const auto digits_end = s.find_first_not_of("0123456789");
  std::uint64_t v = 0;
  if (!parse_u64(s.substr(0, digits_end), v)) return 0;
  const std::string unit = digits_end == std::string::npos ? "" : trim(s.substr(digits_end));
  const char u = unit.empty() ? '\0' : unit[0];
  if (u == 'K' || u == 'k') return v << 10;
  if (u == 'M' || u == 'm') return v << 20;
  if (u == 'G' || u == 'g') return v << 30;
  return v;
}

// ------------------------------------------------------------------ caches, from every source
// One cache level as one source reports it.
struct CacheReport {
  bool found = false;           // the source answered for this level
  std::uint64_t bytes = 0;      // one instance
  std::int64_t instances = -1;  // -1: unknown
  std::string why;              // why not found
};

constexpr const char* kLevels[] = {"l1d", "l1i", "l2", "l3"};

// sysfs: /sys/devices/system/cpu/cpu*/cache/index*/ (size from cpu0, instances = distinct sharing sets).
std::map<std::string, CacheReport> caches_from_sysfs() {
  std::map<std::string, CacheReport> out;
  const bool have = is_dir(cpu_dir(0) + "/cache");
  std::map<std::string, std::set<std::vector<int>>> sharing;
  for (int cpu : online_cpus()) {
    const std::string base = cpu_dir(cpu) + "/cache/";
    for (int idx : numbered_entries(base, "index")) {
      const std::string d = base + "index" + std::to_string(idx) + "/";
      std::string level_s, type, size_s, shared;
      std::uint64_t level = 0;
      if (!read_first_line(d + "level", level_s) || !parse_u64(level_s, level) || !read_first_line(d + "type", type))
        continue;
      std::string name = level == 1   ? (type == "Instruction" ? "l1i" : "l1d")
                         : level == 2 ? "l2"
                         : level == 3 ? "l3"
                                      : "";
      if (name.empty()) continue;
      CacheReport& r = out[name];
      if (!r.found && read_first_line(d + "size", size_s)) r.bytes = parse_cache_size(size_s);
      r.found = true;
      if (read_first_line(d + "shared_cpu_list", shared)) {
        auto list = parse_cpu_list_text(shared);
        if (!list.empty()) sharing[name].insert(std::move(list));
      }
    }
  }
  for (const char* l : kLevels) {
    CacheReport& r = out[l];
    if (!have) {
      r.found = false;
      r.why = "no " + kCpuSys + "/cpu0/cache";
    } else if (!r.found) {
      r.why = "no such cache in sysfs";
    } else {
      r.instances = sharing[l].empty() ? -1 : static_cast<std::int64_t>(sharing[l].size());
    }
  }
  return out;
}

#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
// hwloc: reads sysfs on Linux and, where that is silent, the CPU's own cpuid leaves.
std::map<std::string, CacheReport> caches_from_hwloc(std::string& version) {
  std::map<std::string, CacheReport> out;
  const unsigned v = hwloc_get_api_version();
  version = fmt::format("hwloc {}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 ||
      hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL) != 0 || hwloc_topology_load(topo) != 0) {
    for (const char* l : kLevels) out[l].why = "hwloc could not load the topology";
    return out;
  }
  const std::pair<const char*, hwloc_obj_type_t> types[] = {
      {"l1d", HWLOC_OBJ_L1CACHE}, {"l1i", HWLOC_OBJ_L1ICACHE}, {"l2", HWLOC_OBJ_L2CACHE}, {"l3", HWLOC_OBJ_L3CACHE}};
  for (auto& [name, type] : types) {
    CacheReport& r = out[name];
    int n = hwloc_get_nbobjs_by_type(topo, type);
    hwloc_obj_t o = n > 0 ? hwloc_get_obj_by_type(topo, type, 0) : nullptr;
    if (o == nullptr || o->attr == nullptr || o->attr->cache.size == 0) {
      r.why = "hwloc reports no such cache";
      continue;
    }
    r.found = true;
    r.bytes = o->attr->cache.size;
    r.instances = n;
  }
  hwloc_topology_destroy(topo);
  return out;
}
#endif

#if defined(RIGCHECK_HAVE_CPUINFO) && RIGCHECK_HAVE_CPUINFO
// cpuinfo (PyTorch's CPU detection library): decodes cpuid itself.
std::map<std::string, CacheReport> caches_from_cpuinfo() {
  std::map<std::string, CacheReport> out;
  if (!cpuinfo_initialize()) {
    for (const char* l : kLevels) out[l].why = "cpuinfo_initialize failed";
    return out;
  }
  auto fill = [&](const char* name, uint32_t count, const cpuinfo_cache* first) {
    CacheReport& r = out[name];
    if (count == 0 || first == nullptr || first->size == 0) {
      r.why = "cpuinfo reports no such cache";
      return;
    }
    r.found = true;
    r.bytes = first->size;
    r.instances = count;
  };
  fill("l1d", cpuinfo_get_l1d_caches_count(), cpuinfo_get_l1d_caches_count() ? cpuinfo_get_l1d_cache(0) : nullptr);
  fill("l1i", cpuinfo_get_l1i_caches_count(), cpuinfo_get_l1i_caches_count() ? cpuinfo_get_l1i_cache(0) : nullptr);
  fill("l2", cpuinfo_get_l2_caches_count(), cpuinfo_get_l2_caches_count() ? cpuinfo_get_l2_cache(0) : nullptr);
  fill("l3", cpuinfo_get_l3_caches_count(), cpuinfo_get_l3_caches_count() ? cpuinfo_get_l3_cache(0) : nullptr);
  return out;
}
#endif

std::string bytes_text(std::uint64_t b) {
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

}  // namespace rigcheck::inventory_detail

namespace rigcheck {

std::vector<CpuCacheDatasheet> read_cpu_cache_datasheets(const std::string& path) {
  std::vector<CpuCacheDatasheet> out;
  with_csv_errors(path, [&] {
    io::CSVReader<8, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "vendor", "family", "model_first", "model_last", "parts", "l3_instance_bytes",
                   "l3_instance_max_bytes", "source");
    CpuCacheDatasheet d;
    std::string fam, m0, m1, l3, l3max;
    while (in.read_row(d.vendor, fam, m0, m1, d.parts, l3, l3max, d.source)) {
      long line = static_cast<long>(in.get_file_line());
      double f, a, b, x = 0, y = 0;
      if (!parse_double(fam, f) || !parse_double(m0, a) || !parse_double(m1, b) ||
          (!l3.empty() && !parse_double(l3, x)) || (!l3max.empty() && !parse_double(l3max, y)))
        throw InputError(path, line, "family, models and sizes must be numbers (-1 = any)");
      // Whole numbers in range before the casts: a cast of any other double is undefined
      // (tests/fuzz, registries). CPUID family and model numbers are below 2^16; sizes below 2^53 bytes.
      auto whole = [](double v, double lo, double hi) { return v == std::floor(v) && v >= lo && v <= hi; };
      if (!whole(f, -1, 65535) || !whole(a, -1, 65535) || !whole(b, -1, 65535))
        throw InputError(path, line, "family and models must be whole numbers from -1 (any) to 65535");
      if (!whole(x, 0, 9007199254740992.0) || !whole(y, 0, 9007199254740992.0))
        throw InputError(path, line, "sizes must be whole numbers of bytes, 0 or more");
      d.family = static_cast<int>(f);
      d.model_first = static_cast<int>(a);
      d.model_last = static_cast<int>(b);
      d.l3_instance_bytes = static_cast<std::uint64_t>(x);
      d.l3_instance_max_bytes = static_cast<std::uint64_t>(y);
      if (d.source.empty()) throw InputError(path, line, "every datasheet figure needs its source");
      out.push_back(d);
    }
  });
  return out;
}

std::string l3_implausible(std::uint64_t bytes, const std::string& vendor, const std::vector<CpuCacheDatasheet>& ds) {
  for (const CpuCacheDatasheet& d : ds)
    if (d.vendor == vendor && d.family < 0 && d.l3_instance_max_bytes > 0 && bytes > d.l3_instance_max_bytes)
      return fmt::format("implausible: larger than the largest L3 any {} CPU has in one instance ({}: {})", vendor,
                         inventory_detail::bytes_text(d.l3_instance_max_bytes), d.source);
  return "";
}

const CpuCacheDatasheet* cpu_cache_datasheet(const std::string& vendor, int family, int model,
                                             const std::vector<CpuCacheDatasheet>& ds) {
  for (const CpuCacheDatasheet& d : ds)
    if (d.vendor == vendor && d.family >= 0 && d.family == family && model >= d.model_first && model <= d.model_last &&
        d.l3_instance_bytes > 0)
      return &d;
  return nullptr;
}

}  // namespace rigcheck

namespace rigcheck::inventory_detail {

// Every cache level from the first source that answers plausibly: sysfs, hwloc, cpuinfo, then the
// vendor's datasheet for this CPU family and model (L3 only). Each fact names its source; every
// source's answer for the L3 is kept in cache_l3_candidates, the implausible ones flagged.
void add_caches(Collector& c, const CpuId& cpu) {
  std::vector<std::pair<std::string, std::map<std::string, CacheReport>>> sources;
  sources.emplace_back("sysfs", caches_from_sysfs());
#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
  std::string hv;
  auto hw = caches_from_hwloc(hv);
  sources.emplace_back(hv, std::move(hw));
#else
  sources.emplace_back("hwloc", std::map<std::string, CacheReport>{});
  for (const char* l : kLevels) sources.back().second[l].why = "not built with hwloc";
#endif
#if defined(RIGCHECK_HAVE_CPUINFO) && RIGCHECK_HAVE_CPUINFO
  sources.emplace_back("cpuinfo", caches_from_cpuinfo());
#else
  sources.emplace_back("cpuinfo", std::map<std::string, CacheReport>{});
  for (const char* l : kLevels) sources.back().second[l].why = "not built with cpuinfo";
#endif
  std::vector<CpuCacheDatasheet> ds;
  std::string ds_error;
  try {
    ds = read_cpu_cache_datasheets(data_path("cpu_caches.csv"));
  } catch (const std::exception& e) {
    ds_error = e.what();
  }

  for (const char* level : kLevels) {
    const bool l3 = std::string(level) == "l3";
    std::string chosen, candidates;
    CacheReport best;
    for (auto& [src, reports] : sources) {
      CacheReport r = reports.count(level) ? reports.at(level) : CacheReport{};
      std::string text;
      if (!r.found) {
        text = fmt::format("{}: {}", src, r.why.empty() ? "no answer" : r.why);
      } else {
        std::string bad = l3 ? l3_implausible(r.bytes, cpu.vendor, ds) : "";
        text = fmt::format("{}: {}{}{}", src, bytes_text(r.bytes),
                           r.instances > 0 ? fmt::format(" x{} instance(s)", r.instances) : "",
                           bad.empty() ? "" : " (" + bad + ")");
        if (bad.empty() && chosen.empty()) {
          chosen = src;
          best = r;
        }
      }
      candidates += (candidates.empty() ? "" : "; ") + text;
    }
    if (l3) {
      const CpuCacheDatasheet* d =
          cpu_cache_datasheet(cpu.vendor, static_cast<int>(cpu.family), static_cast<int>(cpu.model), ds);
      if (d != nullptr) {
        candidates += fmt::format("; datasheet: {} per L3 instance for {} ({})", bytes_text(d->l3_instance_bytes),
                                  d->parts, d->source);
        if (chosen.empty()) {
          chosen = "datasheet (" + d->parts + ")";
          best.found = true;
          best.bytes = d->l3_instance_bytes;
          best.instances = -1;
        }
      } else {
        candidates += ds_error.empty() ? fmt::format("; datasheet: no row for {} family {} model {}", cpu.vendor,
                                                     cpu.family, cpu.model)
                                       : "; datasheet: " + ds_error;
      }
    }
    const std::string lv = level;
    if (chosen.empty()) {
      c.add("cache_" + lv + "_bytes", unknown("no plausible source: " + candidates));
      c.add("cache_" + lv + "_instances", unknown("no plausible source"));
      c.add("cache_" + lv + "_source", "none");
    } else {
      c.add("cache_" + lv + "_bytes", std::to_string(best.bytes));
      c.add("cache_" + lv + "_instances",
            best.instances > 0 ? std::to_string(best.instances)
                               : unknown(chosen + " gives the size of one instance, not how many these CPUs span"));
      c.add("cache_" + lv + "_source", chosen);
    }
    if (l3) {
      c.add("cache_l3_candidates", candidates);
      if (chosen.empty())
        c.add("cache_l3_total_bytes", unknown("no plausible source"));
      else if (best.instances > 0)
        c.add("cache_l3_total_bytes", std::to_string(best.bytes * static_cast<std::uint64_t>(best.instances)));
      else
        c.add("cache_l3_total_bytes", unknown("the number of L3 instances is unknown; one instance has " +
                                              std::to_string(best.bytes) + " bytes"));
    }
  }
}

// Linux resctrl L3 cache allocation (Intel RDT CAT, AMD L3 QoS): what CPU-3 would need to set the
// L3 to 16 and 32 MB for real. Only read, never mounted or written.
void add_resctrl(Collector& c) {
  std::string cbm;
  if (read_first_line("/sys/fs/resctrl/info/L3/cbm_mask", cbm))
    c.add("resctrl_l3", "yes (cbm_mask " + cbm + ")");
  else if (is_dir("/sys/fs/resctrl"))
    c.add("resctrl_l3", "no: /sys/fs/resctrl has no info/L3 (not mounted, or no L3 allocation)");
  else
    c.add("resctrl_l3", "no: /sys/fs/resctrl absent");
}

// What this process may use: affinity mask, cgroup CPU quota, and the usable cores that follow.
void add_affinity(Collector& c) {
  CpuBudget b = cpu_budget();
  c.add("cpu_affinity", format_cpu_list(b.allowed_cpus));
  c.add("cpu_affinity_cores", std::to_string(b.allowed_cores));
  c.add("cgroup_cpu_quota", b.quota.text);
  c.add("usable_cores", std::to_string(b.usable_cores));
}

// Instruction-set extensions from the cpuinfo flags.
void add_isa(Collector& c, const CpuId& cpu) {
  static const std::vector<std::pair<const char*, std::vector<const char*>>> keys = {
      {"isa_avx2", {"avx2"}},
      {"isa_fma", {"fma"}},
      {"isa_avx512f", {"avx512f"}},
      {"isa_avx512bw", {"avx512bw"}},
      {"isa_avx512vl", {"avx512vl"}},
      {"isa_avx512_bf16", {"avx512_bf16"}},
      {"isa_avx512_vnni", {"avx512_vnni"}},
      {"isa_avx512_fp16", {"avx512_fp16"}},
      {"isa_amx", {"amx_tile", "amx_bf16", "amx_int8"}},
  };
#if defined(__x86_64__) || defined(__i386__)
  const bool x86 = true;
#else
  const bool x86 = false;  // an aarch64 binary: under qemu-user /proc/cpuinfo is the host's x86 CPU
#endif
  const std::string why = !x86           ? std::string("an x86 feature; this binary is ") + binary_arch()
                          : cpu.readable ? "no flags line in /proc/cpuinfo"
                                         : "/proc/cpuinfo not readable";
  auto has = [&](const char* f) { return cpu.flags.count(f) != 0; };
  for (const auto& [key, flags] : keys) {
    if (!x86 || !cpu.flags_found) {
      c.add(key, unknown(why));
      continue;
    }
    bool any = false;
    for (const char* f : flags) any = any || has(f);
    c.add(key, any ? "yes" : "no");
  }
#if defined(__x86_64__) || defined(__i386__)
  if (!cpu.flags_found)
    c.add("isa_best", unknown(why));
  else if (has("avx512f"))
    c.add("isa_best", "avx512");
  else if (has("avx2") && has("fma"))
    c.add("isa_best", "avx2");
  else
    c.add("isa_best", "sse");
#else
  c.add("isa_best", unknown("not an x86 CPU"));
#endif
}

#if defined(__x86_64__)
// Runs `iterations` x 16 dependent register-register adds; returns the seconds taken.
// Register operands, not immediates: some cores fold small add-immediates at rename.
double time_add_chain(std::uint64_t iterations) {
  std::uint64_t acc = 0, n = iterations;
  const std::uint64_t one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  asm volatile(
      "1:\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "add %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\tadd %[one], %[acc]\n\t"
      "sub $1, %[n]\n\t"
      "jnz 1b\n\t"
      : [acc] "+r"(acc), [n] "+r"(n)
      : [one] "r"(one)
      : "cc", "memory");
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}
#endif

// Core clock, measured: a chain of dependent adds runs at one add per cycle.
void add_clock(Collector& c) {
#if defined(__x86_64__)
  constexpr std::uint64_t kAddsPerIteration = 16;
  constexpr std::uint64_t kAddsPerTry = 40'000'000;  // 5 tries: 200 M adds in all
  constexpr std::uint64_t kIterations = kAddsPerTry / kAddsPerIteration;
  time_add_chain(kIterations);  // warm-up: let the core leave its idle clock
  double best = 0.0;
  for (int i = 0; i < 5; ++i) {
    const double s = time_add_chain(kIterations);
    if (s > 0.0 && (best == 0.0 || s < best)) best = s;
  }
  if (best > 0.0)
    c.add("cpu_clock_measured_ghz", fmt::format("{:.2f}", double(kAddsPerTry) / best / 1e9));
  else
    c.add("cpu_clock_measured_ghz", unknown("timer reported no elapsed time"));
#else
  c.add("cpu_clock_measured_ghz", unknown("measurement needs x86-64 inline asm"));
#endif
  c.add("cpu_clock_note", "dependent integer add chain, 1 cycle per add; best of 5");
}

}  // namespace rigcheck::inventory_detail
