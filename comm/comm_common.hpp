// What the MPI and NCCL all-reduce benchmarks share: exact-sum inputs, the nccl-tests
// bandwidth formulas, the table they print, the node facts, and the parser of NCCL's
// NCCL_DEBUG=INFO lines. Plain C++ (no MPI, no CUDA): the unit tests link it alone.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rigcheck::comm {

// Input element i of rank r: a nonzero multiple of 1/4 in [-512, 512]. Every partial sum of up
// to 2^13 ranks is a multiple of 1/4 below 2^22 in magnitude, so float32 adds it exactly in any
// order: the expected all-reduce result is known exactly and compared element by element.
float exact_input(int rank, int64_t i);
// The exact sum over ranks 0..n-1 of exact_input(r, i) (computed in double, exact in float).
double exact_sum(int nranks, int64_t i);
void fill_inputs(float* buf, int64_t count, int rank);
// Elements of out[0..count) that differ from exact_sum(nranks, i).
int64_t count_wrong(const float* out, int64_t count, int nranks);

// nccl-tests (PERFORMANCE.md): algbw = bytes / time; busbw = algbw x 2 (n - 1) / n for
// all-reduce. GB/s = 1e9 bytes per second.
double algbw_gbps(double bytes, double seconds);
double busbw_factor_allreduce(int nranks);
// Bytes each rank sends (and receives) in a ring all-reduce of `bytes`: 2 (n - 1) / n x bytes.
double ring_bytes_per_rank(double bytes, int nranks);

// The nccl-tests table: header lines and one line per measurement.
std::string table_header();
std::string table_line(int64_t bytes, int64_t count, const std::string& type, const std::string& redop, bool inplace,
                       double time_us, double algbw, double busbw, int64_t wrong);

// This node's network interfaces from /sys/class/net (loopback left out):
// "eth0(up,10000Mb/s) ib0(up,100000Mb/s)" (no ; or =: it goes in params); "none" when there is none.
std::string network_interfaces(const std::string& sysfs_net = "/sys/class/net");
// The interfaces of this node that are up and hold an IPv4 or IPv6 address, loopback left out
// (getifaddrs): what Open MPI's tcp BTL can carry the ranks' traffic over.
std::vector<std::string> routable_interfaces();
// Why `--transport tcp` cannot run on this node, or "" when it can: no routable interface (Open MPI
// 4.1's tcp BTL leaves lo out, and MPI_Init then fails with only "self" to reach the other ranks),
// unless the user named interfaces (OMPI_MCA_btl_tcp_if_include, `tcp_if_include`).
std::string tcp_transport_missing(const std::vector<std::string>& interfaces, const char* tcp_if_include);
// Sum of transmitted bytes over every interface in /proc/net/dev (loopback included); -1 if unreadable.
int64_t net_tx_bytes_total(const std::string& proc_net_dev = "/proc/net/dev");

// What NCCL said it chose, from NCCL_DEBUG=INFO lines.
struct NcclTransport {
  std::map<std::string, int> paths;  // "P2P/CUMEM/read" -> connections seen, "NET/IB/0", "SHM/direct/direct"
  std::string network;               // "IB", "Socket" ... from "Using network X"; empty when not said
  std::string version;               // "2.28.3+cuda13.0" from "NCCL version ..."
  // "P2P" / "SHM" / "NET/IB" / "NET/Socket" joined with '+', the kinds seen; "unknown" when none.
  std::string kinds() const;
  // "P2P/CUMEM/read x4, NET/IB/0 x2"
  std::string summary() const;
};
NcclTransport parse_nccl_debug(const std::string& text);

// "1,2" -> the values; "default" -> 0. Names of Open MPI 4.1's tuned all-reduce algorithms.
const char* ompi_allreduce_algorithm_name(int id);

// A value fit for params (no ; or =, no commas or quotes; "unknown" for an empty one).
std::string param_safe(std::string s);
// This machine's kernel boot id (ranks on one machine share it), or its host name.
std::string boot_id();
// The interfaces of this node (joined by +) whose IPv4 address lies in one of the comma-separated
// subnets (a.b.c.d/n) of btl_tcp_if_include; interface names in the list are taken as they are;
// "none" where nothing matches.
std::string interfaces_in(const std::string& include);

}  // namespace rigcheck::comm
