// Verdicts of the network claims (docs/claims.md section 5): NET-1, NET-2, from comm_allreduce_mpi
// (mpi_allreduce_f32 rows; GPU-6 and GPU-7, NCCL's: evaluators_gpu_comm.cpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/claims/claim.hpp"
#include "rigcheck/runfolder/registries.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck {
namespace {

constexpr double kNet1Bytes = 400e6;      // 100M float32 parameters
constexpr double kDefaultStepBudget = 1;  // s; `rigcheck run|report --step-budget` changes it
constexpr int kGuideNodes = 4;            // the guide's example

// All ok rows of one metric, grouped by case, whose params match.
using Rows = std::vector<const ResultRow*>;

int int_param(const ResultRow* r, const char* key) { return std::atoi(param_value(r->params, key).c_str()); }

// Where the ranks of a row talked: "2 nodes on 1 machine(s), link L" or "1 node" (rows from before
// the machine and link were recorded say only the nodes).
std::string where_ran(const ResultRow* r) {
  const int nodes = int_param(r, "nodes");
  if (nodes < 2) return "1 node";
  std::string s = fmt::format("{} nodes", nodes);
  const std::string machines = param_value(r->params, "machines");
  if (!machines.empty()) s += fmt::format(" on {} machine(s)", machines);
  const std::string link = param_value(r->params, "link");
  if (!link.empty() && link != "unknown") s += ", link " + link;
  const std::string tcp_if = param_value(r->params, "tcp_if_include");
  if (!tcp_if.empty() && tcp_if != "default") s += ", TCP on " + tcp_if;
  if (machines == "1")
    s += " (network namespaces of one machine: a shaped link, the CPUs and memory shared by every node)";
  return s;
}
// The ranks' hosts (the mpi_ranks rows) and what started them (the run's launcher and, inside a
// Slurm allocation, its job and nodes: the inventory), e.g. "; ranks on n1, n2, started by 'srun
// --mpi=pmix --nodes=2' in Slurm job 7 (nodes n[1-2])"; empty when the run recorded none of it.
std::string launched_on(const RunData& run) {
  std::vector<std::string> hosts;
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kMpiRanks) {
      const std::string h = param_value(r.params, "host");
      if (!h.empty() && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
    }
  std::string s;
  if (!hosts.empty()) {
    s = "; ranks on ";
    for (size_t i = 0; i < hosts.size(); ++i) s += (i ? ", " : "") + hosts[i];
  }
  auto fact = [&](const char* k) {  // empty where the run did not record it (or it was unset)
    const std::string v = fact_or(run.facts, k, "");
    return v == "unset" ? std::string() : v;
  };
  if (const std::string l = fact("run_launcher"); !l.empty())
    s += fmt::format("{} started by '{}'", s.empty() ? ";" : ",", l);
  if (const std::string job = fact("slurm_job_id"); !job.empty())
    s += fmt::format(" in Slurm job {} (nodes {})", job, fact("slurm_job_nodelist"));
  return s;
}
bool oversubscribed(const std::vector<const ResultRow*>& rows) {
  for (const ResultRow* r : rows)
    if (param_value(r->params, "oversubscribed") == "yes") return true;
  return false;
}

// The algorithm with the highest median busbw among cases of one size and transport.
struct Best {
  std::string algorithm;
  Measured busbw;
};
std::vector<Best> by_algorithm(const RunData& run, const std::map<std::string, std::string>& where) {
  std::vector<Best> out;
  for (auto& [alg, rows] : group_by_param(run.select(names::kMpiAllreduce, names::kBusbw, where), "algorithm"))
    out.push_back({alg, measure(rows)});
  std::sort(out.begin(), out.end(), [](const Best& a, const Best& b) { return a.busbw.value > b.busbw.value; });
  return out;
}

std::string transport_of_run(const RunData& run) {
  for (const ResultRow& r : run.results)
    if (r.benchmark == names::kMpiAllreduce && param_value(r.params, "transport") != "tcp")
      return param_value(r.params, "transport");
  return "auto";
}

// The small-message latency: the 8-byte all-reduce time of a transport (us), Open MPI's default
// algorithm. Context only (never a verdict's measurement on one machine): when every repetition
// was mistrusted, those are shown and labelled.
struct Latency {
  Measured us;
  bool mistrusted = false;
  bool oversubscribed = false;
  std::string where;  // where_ran of its rows
};
Latency latency_us(const RunData& run, const std::string& transport) {
  const std::map<std::string, std::string> where = {
      {"size_bytes", "8"}, {"transport", transport}, {"algorithm", "default"}};
  Latency l;
  Rows rows = flatten(run.select(names::kMpiAllreduce, names::kTimePerIter, where));
  if (rows.empty()) {
    for (const ResultRow& r : run.results) {
      if (r.benchmark != names::kMpiAllreduce || r.metric != names::kTimePerIter || r.status != Status::mistrusted)
        continue;
      bool match = true;
      for (auto& [k, v] : where) match = match && param_value(r.params, k) == v;
      if (match) rows.push_back(&r);
    }
    l.mistrusted = !rows.empty();
  }
  l.oversubscribed = oversubscribed(rows);
  if (!rows.empty()) l.where = where_ran(rows.front());
  l.us = measure(rows);
  if (l.us.ok()) {
    l.us.value *= 1e6;
    l.us.low *= 1e6;
    l.us.high *= 1e6;
  }
  return l;
}
std::string describe(const Latency& l) {
  if (l.mistrusted && l.oversubscribed)
    return format_measured(l.us, "us") +
           " (every repetition labelled oversubscribed: more ranks than hardware threads)";
  return format_measured(l.us, "us") + (l.mistrusted ? " (every repetition mistrusted: the machine was busy)" : "");
}

// NET-1: traffic = params x 2 x nodes (3.2 GB for 100M params on 4 nodes) -> >= 10 Gbps.
// NET-1's timing evidence: the 100M-float32 all-reduce's time with the best algorithm (mistrusted
// rows only as labelled context, never the verdict's figure), the algorithms side by side, and the
// best one at 64 MiB. `n` is filled from the rows where it is still 0.
std::string net1_time_evidence(const RunData& run, const std::string& size, const std::string& tr, double budget,
                               std::vector<Best>& algs, Rows& time_rows, int& n) {
  std::string evidence;
  bool time_mistrusted = false;
  if (time_rows.empty()) {  // context even when contended, labelled as such (never the verdict's figure)
    for (const ResultRow& r : run.results)
      if (r.benchmark == names::kMpiAllreduce && r.metric == names::kTimePerIter && r.status == Status::mistrusted &&
          param_value(r.params, "size_bytes") == size && param_value(r.params, "transport") == tr)
        time_rows.push_back(&r);
    time_mistrusted = !time_rows.empty();
    if (time_mistrusted) {
      Rows bw;
      for (const ResultRow& r : run.results)
        if (r.benchmark == names::kMpiAllreduce && r.metric == names::kBusbw && r.status == Status::mistrusted &&
            param_value(r.params, "size_bytes") == size && param_value(r.params, "transport") == tr)
          bw.push_back(&r);
      algs.push_back({param_value(time_rows.front()->params, "algorithm"), measure(bw)});
      if (n == 0) n = int_param(time_rows.front(), "ranks");
    }
  }
  if (!time_rows.empty()) {
    Measured t = measure(time_rows);
    evidence += fmt::format(
        "all-reduce of 100M float32 (400 MB) on {} ranks ({}, transport {}): {} s [{} to {}], "
        "algorithm {}, busbw {} GB/s, {:.0f}% of a {} s step",
        n, where_ran(time_rows.front()) + launched_on(run), tr, fmt_num(t.value), fmt_num(t.low), fmt_num(t.high),
        algs.front().algorithm, fmt_num(algs.front().busbw.value), 100 * t.value / budget, fmt_num(budget));
    if (time_mistrusted)
      evidence += oversubscribed(time_rows)
                      ? " (every repetition labelled oversubscribed: more ranks than hardware threads on a machine)"
                      : " (every repetition mistrusted: the machine was busy)";
    if (algs.size() > 1) {
      evidence += "; by algorithm:";
      for (const Best& b : algs) evidence += fmt::format(" {} {} GB/s,", b.algorithm, fmt_num(b.busbw.value));
      evidence.pop_back();
    }
  }
  // Best Open MPI algorithm at 64 MiB (the peer comparison size), when several ran.
  auto at64 = by_algorithm(run, {{"size_bytes", "67108864"}, {"transport", tr}, {"place", "out"}});
  if (at64.size() > 1)
    evidence += fmt::format("; best algorithm at 64 MiB out-of-place: {} ({} GB/s busbw; worst {} {} GB/s)",
                            at64.front().algorithm, fmt_num(at64.front().busbw.value), at64.back().algorithm,
                            fmt_num(at64.back().busbw.value));
  return evidence;
}

const bool net1 = register_evaluator("NET-1", [](const Claim& c, const RunData& run) {
  Verdict v;
  double budget = kDefaultStepBudget;
  if (run.facts.count("step_budget_s")) parse_double(run.facts.at("step_budget_s"), budget);
  const std::string size = fmt::format("{:.0f}", kNet1Bytes);

  // The all-reduce of 100M float32 on the ranks there are: time with the best algorithm.
  const std::string tr = transport_of_run(run);
  auto algs = by_algorithm(run, {{"size_bytes", size}, {"transport", tr}});
  Rows time_rows;
  int n = 0;
  if (!algs.empty()) {
    time_rows = flatten(run.select(names::kMpiAllreduce, names::kTimePerIter,
                                   {{"size_bytes", size}, {"transport", tr}, {"algorithm", algs.front().algorithm}}));
    if (!time_rows.empty()) n = int_param(time_rows.front(), "ranks");
  }
  // The bytes each rank really sent, from the network counters of a TCP run of the same size.
  Rows tx = flatten(
      run.select(names::kMpiAllreduce, names::kNetTxBytesPerRank, {{"size_bytes", size}, {"transport", "tcp"}}));
  if (time_rows.empty() && tx.empty()) {
    v.verdict = Outcome::not_measurable;
    v.reason = "no 100M-float32 all-reduce in this run (" + manifest_status(run, "comm_allreduce_mpi") + "; " +
               manifest_status(run, "comm_allreduce_mpi_tcp") + ")";
    return v;
  }
  std::string evidence = net1_time_evidence(run, size, tr, budget, algs, time_rows, n);
  // The traffic is judged at the ranks its own rows ran on: the TCP run may have had other ranks
  // than the timed one (another launcher, a machine's core count).
  if (!tx.empty()) n = int_param(tx.front(), "ranks");
  const double ring = 2.0 * (n - 1) / n * kNet1Bytes;  // bytes per rank, ring all-reduce
  const double guide_total = 100e6 * 2 * n * 4;        // the guide's formula at n, in bytes
  const double ring4 = 2.0 * (kGuideNodes - 1) / kGuideNodes * kNet1Bytes;
  const double need_gbps = ring4 * 8 / budget / 1e9;
  const std::string formula = fmt::format(
      "a ring all-reduce sends 2(n-1)/n x buffer per rank: {} GB per rank on {} ranks, {} GB per rank on the guide's "
      "{} "
      "nodes ({} GB in all), where the guide's parameters x 2 x nodes x 4 B gives {} GB; bandwidth needed to finish "
      "within a step budget of {} s (--step-budget) on {} nodes: {} Gbps per rank, against the guide's 10 Gbps",
      fmt_num(ring / 1e9), n, fmt_num(ring4 / 1e9), kGuideNodes, fmt_num(ring4 * kGuideNodes / 1e9),
      fmt_num(100e6 * 2 * kGuideNodes * 4 / 1e9), fmt_num(budget), kGuideNodes, fmt_num(need_gbps));
  if (tx.empty()) {
    v.evidence = evidence;
    v.verdict = Outcome::not_measurable;
    v.reason = "the bytes sent were not measured (the TCP run, " + manifest_status(run, "comm_allreduce_mpi_tcp") +
               "); " + formula;
    return v;
  }
  Measured per_rank = measure(tx);
  v.measured.value = per_rank.value * n / 1e9;
  v.measured.low = per_rank.low * n / 1e9;
  v.measured.high = per_rank.high * n / 1e9;
  v.measured.reps = per_rank.reps;
  v.unit = "GB";
  const bool one_per_node = int_param(tx.front(), "nodes") == n && n >= 2;
  evidence += fmt::format(
      "{}measured traffic (TCP, {}): {} GB per rank [{} to {}], {} GB in all on {} ranks, "
      "against {} GB by the ring formula and {} GB by the guide's formula at {} ranks",
      evidence.empty() ? "" : "; ",
      one_per_node ? "each node's network counters, one rank per node: " + where_ran(tx.front())
      : int_param(tx.front(), "nodes") < 2
          ? std::string("network counters, every rank on one node: loopback, not a wire")
          : "network counters summed over nodes, divided by ranks: " + where_ran(tx.front()),
      fmt_num(per_rank.value / 1e9), fmt_num(per_rank.low / 1e9), fmt_num(per_rank.high / 1e9),
      fmt_num(v.measured.value), n, fmt_num(ring * n / 1e9), fmt_num(guide_total / 1e9), n);
  v.evidence = evidence;
  Claim at_n = c;  // the guide's formula evaluated at the ranks measured, +-10%
  at_n.kind = ClaimKind::approx;
  at_n.low = guide_total / 1e9;
  at_n.tolerance = 0.1 * at_n.low;
  v.verdict = judge(at_n, v.measured.low, v.measured.high);
  v.basis = Basis::measured;
  v.reason = fmt::format("measured total traffic against the guide's formula at {} ranks ({} GB, +-10%); ", n,
                         fmt_num(guide_total / 1e9)) +
             formula;
  return v;
});

// NET-2's evidence on any machine, InfiniBand or none: the small-message all-reduce latencies over
// TCP and over the MPI's own transport choice, each with where it ran.
std::string net2_context(const RunData& run, const Latency& tcp, const Latency& local) {
  const std::string tr = transport_of_run(run);
  std::string ctx;
  if (tcp.us.ok())
    ctx += (tcp.where == "1 node" || tcp.where.empty()
                ? std::string("TCP (btl tcp, one machine: loopback, not a wire)")
                : "TCP (btl tcp) across " + tcp.where + " (the delay is the link's, as set)") +
           " 8-byte all-reduce " + describe(tcp);
  if (local.us.ok())
    ctx += std::string(ctx.empty() ? "" : "; ") +
           (local.where == "1 node" || local.where.empty()
                ? "shared memory (" + tr + ", context only: no network at all) "
                : "the MPI's own transport choice (" + tr + ") across " + local.where + " ") +
           describe(local);
  if (ctx.empty())
    ctx = "no small-message all-reduce in this run (" + manifest_status(run, "comm_allreduce_mpi_tcp") + ")";
  return ctx;
}

void net2_unmet(const Claim&, const RunData& run, Verdict& v) {
  v.evidence = net2_context(run, latency_us(run, "tcp"), latency_us(run, transport_of_run(run)));
}

// NET-2: RDMA cuts latency from 50 us to 5 us.
const bool net2 = register_evaluator(
    "NET-2",
    [](const Claim&, const RunData& run) {
      Verdict v;
      Latency tcp = latency_us(run, "tcp");
      Latency local = latency_us(run, transport_of_run(run));
      v.unit = "us";
      v.evidence = net2_context(run, tcp, local);
      // InfiniBand/RoCE present: the default transport's latency (RDMA when the MPI picks it) against TCP.
      if (!tcp.us.ok() || !local.us.ok() || tcp.mistrusted || local.mistrusted) {
        v.verdict = Outcome::not_measurable;
        v.reason =
            "an RDMA device exists but the TCP and default-transport latencies were not both measured uncontended";
        return v;
      }
      v.measured = local.us;
      v.verdict =
          (tcp.us.value >= 25 && tcp.us.value <= 100 && local.us.high <= 10) ? Outcome::confirmed : Outcome::refuted;
      v.basis = Basis::measured;
      v.reason =
          "confirmed when TCP is within 25-100 us and the default transport (RDMA where the MPI uses it) at most "
          "10 us; check the rows' transport and node count: on one node the default is shared memory";
      return v;
    },
    net2_unmet);

}  // namespace
}  // namespace rigcheck
