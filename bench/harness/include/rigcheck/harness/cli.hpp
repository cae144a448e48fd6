// The values of the command line every benchmark binary shares (the options themselves are
// declared by Session, session.hpp): lists and ranges, sizes, profiles.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck {

// "1,2,4", "1-8" (every value), "1-16*2" (1,2,4,8,16), "2-10+4" (2,6,10), "max" = max_value;
// items may be mixed: "1,4-8*2,max". Values must lie in [1, max_value] when max_value > 0.
// Returns sorted unique values. Throws std::invalid_argument with the offending item.
std::vector<int64_t> parse_int_list(const std::string& spec, int64_t max_value = 0);

// "4096", "64K", "1.5M", "2G": binary multiples (K = 1024). Throws std::invalid_argument.
int64_t parse_size(const std::string& s);
// A list of sizes: "64K,1M,16M", or ranges "1K-1M*2".
std::vector<int64_t> parse_size_list(const std::string& spec);

enum class Profile { tiny, quick, full };
Profile profile_from_string(const std::string& s);
const char* to_string(Profile p);

struct CommonOptions {
  std::string threads_spec;  // empty: the benchmark's default for the profile
  std::vector<int64_t> threads;
  std::string sizes_spec;
  std::vector<int64_t> sizes;
  int reps = 0;         // 0: the profile's default
  double min_time = 0;  // seconds per repetition; 0: the profile's default
  std::string profile_name = "quick";
  Profile profile = Profile::quick;
  bool quick = false;
  std::string out_dir = ".";
  std::string stem;  // output file stem; default: the binary's name
  std::string run_id;
  std::string filter;
  bool list = false;
  int hardware_threads = 1;           // filled by the harness
  int physical_cores = 1;             // filled by the harness
  int usable_cores = 1;               // filled by the harness: cores this process may use (affinity, cgroup quota)
  int usable_threads = 1;             // filled by the harness: hardware threads it may use (the SMT point's count)
  std::vector<int> allowed_cpus;      // filled by the harness: the CPUs it may use, sorted
  std::string cpu_budget;             // filled by the harness: how usable_cores was found
  std::string placement = "compact";  // --placement: compact | spread (machine_topology.hpp)
};

// After parsing: expands specs, applies --quick, fills defaults. Throws std::invalid_argument.
void finish_common_options(CommonOptions& o, int physical_cores, int hardware_threads, int usable_cores = 0);

}  // namespace rigcheck
