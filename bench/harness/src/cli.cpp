#include "rigcheck/harness/cli.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace rigcheck {

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

template <typename ParseOne>
std::vector<int64_t> parse_list(const std::string& spec, int64_t max_value, ParseOne one) {
  if (spec.empty()) throw std::invalid_argument("empty list");
  std::set<int64_t> values;
  for (const std::string& item : split(spec, ',')) {
    if (item.empty()) throw std::invalid_argument(fmt::format("empty item in '{}'", spec));
    size_t dash = item.find('-', 1);
    if (dash == std::string::npos) {
      values.insert(one(item));
      continue;
    }
    std::string lo_s = item.substr(0, dash), rest = item.substr(dash + 1);
    char op = '+';
    int64_t step = 1;
    size_t opos = rest.find_first_of("*+");
    if (opos != std::string::npos) {
      op = rest[opos];
      step = one(rest.substr(opos + 1));
      rest = rest.substr(0, opos);
    }
    int64_t lo = one(lo_s), hi = one(rest);
    if (lo > hi) throw std::invalid_argument(fmt::format("range '{}' runs backwards", item));
    if ((op == '*' && step < 2) || step < 1)
      throw std::invalid_argument(fmt::format("range '{}' has a step that never advances", item));
    for (int64_t v = lo; v <= hi; v = (op == '*') ? v * step : v + step) values.insert(v);
  }
  for (int64_t v : values) {
    if (v < 1) throw std::invalid_argument(fmt::format("value {} in '{}' is below 1", v, spec));
    if (max_value > 0 && v > max_value)
      throw std::invalid_argument(fmt::format("value {} in '{}' exceeds the maximum {}", v, spec, max_value));
  }
  return {values.begin(), values.end()};
}
}  // namespace

std::vector<int64_t> parse_int_list(const std::string& spec, int64_t max_value) {
  return parse_list(spec, max_value, [&](const std::string& s) -> int64_t {
    if (s == "max") {
      if (max_value <= 0) throw std::invalid_argument("'max' has no meaning here");
      return max_value;
    }
    size_t pos = 0;
    long long v = 0;
    try {
      v = std::stoll(s, &pos);
    } catch (...) {
      throw std::invalid_argument(fmt::format("'{}' is not an integer", s));
    }
    if (pos != s.size()) throw std::invalid_argument(fmt::format("'{}' is not an integer", s));
    return v;
  });
}

int64_t parse_size(const std::string& s) {
  if (s.empty()) throw std::invalid_argument("empty size");
  double mult = 1;
  std::string num = s;
  switch (s.back()) {
    case 'k':
    case 'K': mult = 1024.0; break;
    case 'm':
    case 'M': mult = 1024.0 * 1024; break;
    case 'g':
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    default: break;
  }
  if (mult != 1) num = s.substr(0, s.size() - 1);
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(num, &pos);
  } catch (...) {
    throw std::invalid_argument(fmt::format("'{}' is not a size (e.g. 4096, 64K, 1.5M, 2G)", s));
  }
  if (pos != num.size() || !(v > 0))
    throw std::invalid_argument(fmt::format("'{}' is not a size (e.g. 4096, 64K, 1.5M, 2G)", s));
  double bytes = v * mult;
  if (bytes != std::floor(bytes)) throw std::invalid_argument(fmt::format("'{}' is not a whole number", s));
  return static_cast<int64_t>(bytes);
}

std::vector<int64_t> parse_size_list(const std::string& spec) { return parse_list(spec, 0, parse_size); }

Profile profile_from_string(const std::string& s) {
  if (s == "tiny") return Profile::tiny;
  if (s == "quick") return Profile::quick;
  if (s == "full") return Profile::full;
  throw std::invalid_argument(fmt::format("unknown profile '{}' (tiny, quick or full)", s));
}

const char* to_string(Profile p) {
  return enum_name(p, {{Profile::tiny, "tiny"}, {Profile::quick, "quick"}, {Profile::full, "full"}});
}

void finish_common_options(CommonOptions& o, int physical_cores, int hardware_threads, int usable_cores) {
  if (o.quick) o.profile_name = "quick";
  o.profile = profile_from_string(o.profile_name);
  o.physical_cores = std::max(1, physical_cores);
  o.hardware_threads = std::max(1, hardware_threads);
  o.usable_cores = usable_cores > 0 ? std::min(usable_cores, o.physical_cores) : o.physical_cores;
  if (!o.threads_spec.empty()) o.threads = parse_int_list(o.threads_spec, o.hardware_threads);
  if (!o.sizes_spec.empty()) o.sizes = parse_size_list(o.sizes_spec);
  if (o.reps == 0) o.reps = o.profile == Profile::tiny ? 3 : o.profile == Profile::quick ? 5 : 10;
  if (o.reps < 1) throw std::invalid_argument("--reps must be at least 1");
  if (o.min_time == 0) o.min_time = o.profile == Profile::tiny ? 0.01 : o.profile == Profile::quick ? 0.2 : 0.5;
  if (o.min_time < 0) throw std::invalid_argument("--min-time must be positive");
}

}  // namespace rigcheck
