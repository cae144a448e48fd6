// comm_allreduce_nccl's plan: its own options (--launch, --modes, --warmup) and the cases they and the
// profile make, each message size in- and out-of-place. allreduce_nccl.cpp runs them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rigcheck/harness/session.hpp"

namespace rigcheck::comm {

struct Options {
  std::string launch = "single", modes = "out,in";
  int warmup = 5;
};

struct Plan {
  int64_t bytes;
  bool inplace;
};

// "single/1048576B/out": the launch shape, the message size and where the result goes.
std::string case_name(const Options& o, const Plan& p);
void add_options(CLI::App& app, Options& o);
// Throws std::invalid_argument naming the option.
void validate(const Options& o);
// The profile's message sizes (or --sizes), each in the modes asked, that --filter selects.
std::vector<Plan> make_plan(const Session& s, const Options& o);

}  // namespace rigcheck::comm
