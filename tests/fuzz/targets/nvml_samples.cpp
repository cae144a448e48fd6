// GPU power, temperature, clocks and throttle reasons as NVML returns them, and the RAPL energy
// counter text of /sys/class/powercap (gpu/power.cpp). The input is a sequence of samples, each
// 56 bytes and a text: a flags byte (which NVML calls answered), power mW, temperature, SM and memory clocks
// (u32), the clock-event reason bits, memory used and total (u64), the instantaneous power mW (u32),
// the total-energy counter mJ (u64), a time step in ms (u16) and a
// RAPL counter as text (its length, u8 mod 32, then that many bytes). Each
// sample goes through decode(); all of them through summarize() over a window, observed_rows()
// and throttle_reason_names(), the counters through parse_rapl_uj() and rapl_delta_j() as the
// sampler does. Checks: the fractions are fractions, the counts count.
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "fuzz.hpp"
#include "power.hpp"

using namespace rigcheck::gpu;
using rigcheck::fuzz::check;

namespace {
struct Bytes {
  const uint8_t* p;
  size_t n;
  template <class T>
  T take() {
    T v{};
    const size_t k = n < sizeof v ? n : sizeof v;
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
  std::string text(size_t len) {
    len = len < n ? len : n;
    std::string s(reinterpret_cast<const char*>(p), len);
    p += len;
    n -= len;
    return s;
  }
};
}  // namespace

RIGCHECK_FUZZ_TARGET(nvml_samples) {
  Bytes in{data, size};
  std::vector<RawSample> raw;
  double t = 0, last_j = -1, total_j = 0;
  const double range_j = 262143.328850;  // a typical max_energy_range_uj, in J
  while (in.n > 0 && raw.size() < 4096) {
    const auto flags = in.take<uint8_t>();
    RawSample r;
    r.power_ok = flags & 1;
    r.temp_ok = flags & 2;
    r.clocks_ok = flags & 4;
    r.reasons_ok = flags & 8;
    r.mem_ok = flags & 16;
    r.power_mw = in.take<uint32_t>();
    r.temp_c = in.take<uint32_t>();
    r.sm_mhz = in.take<uint32_t>();
    r.mem_mhz = in.take<uint32_t>();
    r.reasons = in.take<uint64_t>();
    r.mem_used = in.take<uint64_t>();
    r.mem_total = in.take<uint64_t>();
    r.power_instant_ok = flags & 64;
    r.energy_ok = flags & 128;
    r.power_instant_mw = in.take<uint32_t>();
    r.energy_mj = in.take<uint64_t>();
    t += in.take<uint16_t>() / 1000.0;  // the sampler's monotonic clock
    r.t_s = t;
    const std::string counter = in.text(in.take<uint8_t>() % 32);
    double j = -1;
    try {
      j = parse_rapl_uj(counter);
    } catch (const std::invalid_argument&) {  // the documented refusal; the sampler skips it
    }
    if (flags & 32 && j >= 0) {
      if (last_j >= 0) total_j += rapl_delta_j(last_j, j, range_j);
      last_j = j;
      r.cpu_energy_j = total_j;
    }
    decode(r);
    raw.push_back(r);
  }
  const double from = raw.empty() ? 0 : raw.front().t_s, to = raw.empty() ? 0 : raw.back().t_s;
  for (auto [a, b] : {std::pair{0.0, 1e300}, std::pair{from + (to - from) / 3, to - (to - from) / 3}}) {
    const PowerSummary s = summarize(raw, a, b);
    check(s.samples >= 0 && static_cast<size_t>(s.samples) <= raw.size(), "summarize counted samples it was not given");
    for (double f : {s.thermal_fraction, s.power_cap_fraction})
      check(std::isnan(f) || (f >= 0 && f <= 1), "a fraction of samples outside [0, 1]");
    check(std::isnan(s.energy_j) || s.energy_j >= 0, "a negative energy from the counter's increases");
    check(std::isnan(s.power_mean_w) || s.power_mean_w >= 0, "a negative mean power");
    check(std::isnan(s.power_max_w) == s.power_max_method.empty(),
          "a peak power without its method, or a method without it");
    observed_rows(s);
    throttle_reason_names(s.reasons_seen);
  }
  return 0;
}
