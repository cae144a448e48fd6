// The cases of comm_allreduce_mpi (allreduce_mpi.cpp): each profile's plan of algorithm x size x
// place, the binary's own options (--algorithms, --modes, --transport, --warmup, --huge-pages,
// --net1) and the plan they make. No MPI here: the plan is made before MPI_Init.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "comm_common.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/session.hpp"

namespace rigcheck::comm::mpi {

inline constexpr int64_t kNet1Bytes = 400000000;  // NET-1: 100M float32 parameters
inline constexpr const char* kBench = names::kMpiAllreduce;

// One case: an Open MPI all-reduce algorithm, a message size, in or out of place.
struct Plan {
  int algorithm = 0;  // 0 = Open MPI's own decision rules
  int64_t bytes = 0;
  bool inplace = false;
  std::string name() const {
    return fmt::format("{}/{}B/{}", ompi_allreduce_algorithm_name(algorithm), bytes, inplace ? "in" : "out");
  }
};

struct Options {
  std::string algorithms;  // "default,1,2" or "all"
  std::string modes = "out,in";
  std::string transport = "auto";
  int warmup = 2;
  bool net1 = true;
  bool huge_pages = false;
};

// The sizes of each profile when neither --sizes nor --algorithms is given (allreduce_mpi_plan.cpp).
std::vector<Plan> profile_plan(Profile p);
// "default,ring,3" or "all" -> algorithm ids; throws std::invalid_argument on an unknown name.
std::vector<int> parse_algorithms(const std::string& spec);
// The binary's options, their check and the plan they make (found by comm::parse_plan, comm_cli.hpp).
void add_options(CLI::App& app, Options& o);
void validate(const Options& o);
std::vector<Plan> make_plan(const Session& s, const Options& o);

}  // namespace rigcheck::comm::mpi
