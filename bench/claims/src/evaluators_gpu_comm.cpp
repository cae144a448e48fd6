// Verdicts of the multi-GPU communication claims (docs/claims.md section 2.3): GPU-6 (all-reduce over
// NVLink against PCIe) and GPU-7, from comm_allreduce_nccl (nccl_allreduce_f32 rows).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {
namespace {

using Rows = std::vector<const ResultRow*>;

// Busbw (GB/s) of the NCCL runs at their largest size, per value of a parameter.
std::map<std::string, std::pair<Measured, std::string>> nccl_busbw_by(const RunData& run, const std::string& key,
                                                                      const std::map<std::string, std::string>& where) {
  std::map<std::string, std::pair<Measured, std::string>> out;
  auto rows = flatten(run.select(names::kNcclAllreduce, names::kBusbw, where));
  double largest = 0;
  for (const ResultRow* r : rows) largest = std::max(largest, std::atof(param_value(r->params, "size_bytes").c_str()));
  std::map<std::string, Rows> groups;
  for (const ResultRow* r : rows)
    if (std::atof(param_value(r->params, "size_bytes").c_str()) == largest)
      groups[param_value(r->params, key)].push_back(r);
  for (auto& [k, g] : groups) out[k] = {measure(g), param_value(g.front()->params, "transport_paths")};
  return out;
}

// GPU-6: NVLink is 6x PCIe 4.0: NCCL busbw with P2P on against P2P off (NCCL_P2P_DISABLE=1).
const bool gpu6 = register_evaluator("GPU-6", [](const Claim& c, const RunData& run) {
  Verdict v;
  auto by = nccl_busbw_by(run, "nccl_p2p_disable", {{"launch", "single"}});
  if (!by.count("unset") || !by.count("1")) {
    v.verdict = Outcome::not_measurable;
    v.reason = "needs NCCL all-reduce runs with P2P on and off (" + manifest_status(run, "comm_allreduce_nccl") + "; " +
               manifest_status(run, "comm_allreduce_nccl_nop2p") + ")";
    return v;
  }
  const Measured& on = by["unset"].first;
  const Measured& off = by["1"].first;
  v.measured.value = on.value / off.value;
  v.measured.low = on.low / off.high;
  v.measured.high = on.high / off.low;
  v.measured.reps = std::min(on.reps, off.reps);
  v.unit = "x";
  v.evidence = fmt::format("NCCL all-reduce busbw with P2P {} GB/s ({}) vs NCCL_P2P_DISABLE=1 {} GB/s ({})",
                           fmt_num(on.value), by["unset"].second, fmt_num(off.value), by["1"].second);
  v.verdict = judge(c, v.measured.low, v.measured.high);
  v.basis = Basis::measured;
  v.reason =
      "ratio of bus bandwidths at the largest size; the transports NCCL reported are named: the ratio is NVLink "
      "vs PCIe only when they say P2P over NVLink and SHM or P2P over PCIe";
  return v;
});

// The most nodes and ranks (GPUs) of the run's ok NCCL all-reduce rows.
std::pair<int, int> nccl_nodes_and_gpus(const RunData& run) {
  int nodes = 0, gpus = 0;
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kNcclAllreduce && r.status == Status::ok) {
      nodes = std::max(nodes, std::atoi(param_value(r.params, "nodes").c_str()));
      gpus = std::max(gpus, std::atoi(param_value(r.params, "ranks").c_str()));
    }
  return {nodes, gpus};
}

// GPU-7 without an NCCL all-reduce across 2 nodes, its needs met or not: how to run one, and what
// this run had in its place (in the place of the framework's reason, which says less).
void gpu7_too_few_nodes(const Claim&, const RunData& run, Verdict& v) {
  v.verdict = Outcome::not_measurable;
  v.reason = fmt::format(
      "needs an NCCL all-reduce across at least 2 nodes with GPUs (rigcheck run --launcher \"mpirun -np N --hostfile "
      "hosts\"): this run had {} node(s) in NCCL runs and the inventory {} GPU(s) ({})",
      nccl_nodes_and_gpus(run).first, run.facts.count("gpu_count") ? run.facts.at("gpu_count") : "unknown",
      manifest_status(run, "comm_allreduce_nccl_mpi"));
}

// GPU-7: cross-machine training needs 100 Gbps InfiniBand: NCCL busbw across nodes.
const bool gpu7 = register_evaluator(
    "GPU-7",
    [](const Claim& c, const RunData& run) {
      Verdict v;
      const auto [nodes, gpus] = nccl_nodes_and_gpus(run);
      if (nodes < 2) {
        gpu7_too_few_nodes(c, run, v);
        return v;
      }
      auto by = nccl_busbw_by(run, "launch", {{"launch", "process"}});
      if (!by.count("process")) {
        v.verdict = Outcome::not_measurable;
        v.reason = "no NCCL multi-process results";
        return v;
      }
      const Measured& m = by["process"].first;
      v.measured.value = m.value * 8;
      v.measured.low = m.low * 8;
      v.measured.high = m.high * 8;
      v.measured.reps = m.reps;
      v.unit = "Gbps";
      v.evidence = fmt::format("NCCL all-reduce across {} nodes, {} GPUs: busbw {} GB/s = {} Gbps; transport {}", nodes,
                               gpus, fmt_num(m.value), fmt_num(v.measured.value), by["process"].second);
      v.verdict = judge(c, v.measured.low, v.measured.high);
      v.basis = Basis::measured;
      v.reason = "bus bandwidth across nodes against the guide's 100 Gbps";
      return v;
    },
    gpu7_too_few_nodes);

}  // namespace
}  // namespace rigcheck
