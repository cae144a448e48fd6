// Helpers the files of the report share (report.cpp, report_model.cpp): not part of the tool's interface.
#pragma once
#include <map>
#include <string>

#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck::report_detail {

// An inventory value, or "unknown: not in inventory".
inline std::string inv(const RunData& r, const std::string& key) { return fact_or(r.inventory, key, kNotInInventory); }
// The best f32 GEMM (benchmarks gemm_*: oneDNN matmul and sgemm, OpenBLAS sgemm; not a convolution
// or an inner product) at the most threads the peak was measured at, beside that peak.
struct GemmHeadline {
  double value = 0, peak = 0;
  std::string threads, what;
  std::string shape;  // "m=n=k=2048", from the rows' params
  bool ok() const { return value > 0 && peak > 0; }
};
GemmHeadline best_f32_gemm(const RunData& run);
// f32 FMA peak per thread count: the median of the best ISA, from cpu_peak (medians on both sides).
std::map<std::string, double> peaks(const RunData& run);
// "Shape: 2 sockets x 24 cores x 2 threads, 8 NUMA nodes, 16 L3 of 32 MiB; this run: 6 CPUs of 96 (cpuset),
// 6 GiB (cgroup memory.max)": the machine's shape and the limits the run lived under, from the
// inventory; empty for a run whose inventory predates these facts.
std::string shape_and_limits(const RunData& run);
// "## Where threads and memory were": the placement of the rows behind CPU-1 and CPU-2, STREAM per NUMA
// node and the latency matrix (numa_md.cpp); what was not measured, said; empty for a run with none of it.
std::string numa_md(const RunData& run);
// The text up to the first "; " or ". " outside parentheses, brackets and quotes: one clause.
std::string first_clause(const std::string& s);
// At most `max` bytes, cut at a space (never inside a UTF-8 character), with an ellipsis.
std::string at_most(const std::string& s, size_t max);

}  // namespace rigcheck::report_detail
