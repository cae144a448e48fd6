// comm_allreduce_nccl's options and cases (allreduce_nccl_plan.hpp).
#include "allreduce_nccl_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"

namespace rigcheck::comm {

std::string case_name(const Options& o, const Plan& p) {
  return fmt::format("{}/{}B/{}", o.launch, p.bytes, p.inplace ? "in" : "out");
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--launch", o.launch,
                 "process: one process per GPU, started by mpirun/srun, bootstrapped through MPI; single: one process "
                 "drives every local GPU")
      ->capture_default_str();
  app.add_option("--modes", o.modes, "out, in or out,in")->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed calls before timing")->capture_default_str();
}

void validate(const Options& o) {
  if (o.launch != "single" && o.launch != "process") throw std::invalid_argument("--launch must be single or process");
  if (o.modes != "out" && o.modes != "in" && o.modes != "out,in" && o.modes != "in,out")
    throw std::invalid_argument("--modes must be out, in or out,in");
}

std::vector<Plan> make_plan(const Session& s, const Options& o) {
  const CommonOptions& opt = s.options();
  std::vector<int64_t> sizes = !opt.sizes.empty()              ? opt.sizes
                               : opt.profile == Profile::tiny  ? parse_size_list("8-1M*8,1M")
                               : opt.profile == Profile::quick ? parse_size_list("8-512M*8,512M")
                                                               : parse_size_list("8-1G*2");
  std::vector<Plan> plan;
  for (int64_t sz : sizes) {
    if (sz <= 0 || sz % 4)
      throw std::invalid_argument(fmt::format("size {} is not a positive multiple of 4 (float32)", sz));
    if (o.modes.find("out") != std::string::npos) plan.push_back({sz, false});
    if (o.modes.find("in") != std::string::npos) plan.push_back({sz, true});
  }
  plan.erase(std::remove_if(plan.begin(), plan.end(),
                            [&](const Plan& p) { return !s.selected(names::kNcclAllreduce, case_name(o, p)); }),
             plan.end());
  return plan;
}

}  // namespace rigcheck::comm
