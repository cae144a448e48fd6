#include "comm_common.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "rigcheck/harness/split.hpp"
#include "rigcheck/harness/topology.hpp"

namespace rigcheck::comm {

namespace {
uint64_t mix(uint64_t x) {  // splitmix64 finaliser: a fixed, portable pseudo-random function
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}
}  // namespace

float exact_input(int rank, int64_t i) {
  uint64_t h = mix((static_cast<uint64_t>(rank) << 40) ^ static_cast<uint64_t>(i));
  int k = static_cast<int>(h % 2048) + 1;  // 1..2048
  if (h & (1ULL << 40)) k = -k;
  return static_cast<float>(k) * 0.25f;
}

double exact_sum(int nranks, int64_t i) {
  double s = 0;
  for (int r = 0; r < nranks; ++r) s += exact_input(r, i);
  return s;
}

void fill_inputs(float* buf, int64_t count, int rank) {
  for (int64_t i = 0; i < count; ++i) buf[i] = exact_input(rank, i);
}

int64_t count_wrong(const float* out, int64_t count, int nranks) {
  int64_t wrong = 0;
  for (int64_t i = 0; i < count; ++i)
    if (static_cast<double>(out[i]) != exact_sum(nranks, i)) ++wrong;
  return wrong;
}

double algbw_gbps(double bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0; }
double busbw_factor_allreduce(int nranks) { return nranks > 0 ? 2.0 * (nranks - 1) / nranks : 0; }
double ring_bytes_per_rank(double bytes, int nranks) { return busbw_factor_allreduce(nranks) * bytes; }

std::string table_header() {
  return fmt::format(
      "#{:>12} {:>12} {:>8} {:>6} {:>9} {:>10} {:>8} {:>8} {:>8}\n"
      "#{:>12} {:>12} {:>8} {:>6} {:>9} {:>10} {:>8} {:>8} {:>8}",
      "size", "count", "type", "redop", "place", "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "", "",
      "(us)", "(GB/s)", "(GB/s)", "");
}

std::string table_line(int64_t bytes, int64_t count, const std::string& type, const std::string& redop, bool inplace,
                       double time_us, double algbw, double busbw, int64_t wrong) {
  return fmt::format(" {:>12} {:>12} {:>8} {:>6} {:>9} {:>10.2f} {:>8.3f} {:>8.3f} {:>8}", bytes, count, type, redop,
                     inplace ? "in-place" : "out-place", time_us, algbw, busbw, wrong);
}

std::string network_interfaces(const std::string& sysfs_net) {
  std::vector<std::string> names;
  if (DIR* d = opendir(sysfs_net.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == ".." || n == "lo") continue;
      names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) {
    std::string state = read_first_line(sysfs_net + "/" + n + "/operstate");
    std::string speed = read_first_line(sysfs_net + "/" + n + "/speed");  // Mb/s; -1 or unreadable if unknown
    std::string s = state.empty() ? "state unknown" : state;
    if (!speed.empty() && speed[0] != '-')
      s += "," + speed + "Mb/s";
    else
      s += ",speed unknown";
    out += (out.empty() ? "" : " ") + n + "(" + s + ")";
  }
  return out.empty() ? "none" : out;
}

int64_t net_tx_bytes_total(const std::string& proc_net_dev) {
  std::ifstream in(proc_net_dev);
  if (!in) return -1;
  std::string line;
  int64_t total = 0;
  int n = 0;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;  // the two header lines
    std::istringstream f(line.substr(colon + 1));
    int64_t v[9] = {};
    for (int64_t& x : v)
      if (!(f >> x)) return -1;
    total += v[8];  // receive: bytes packets errs drop fifo frame compressed multicast; then transmit bytes
    ++n;
  }
  return n ? total : -1;
}

NcclTransport parse_nccl_debug(const std::string& text) {
  NcclTransport t;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("NCCL INFO") == std::string::npos) continue;
    auto via = line.find(" via ");
    if (via != std::string::npos) {
      std::istringstream w(line.substr(via + 5));
      std::string path;
      if (w >> path) ++t.paths[path];
      continue;
    }
    auto un = line.find("Using network ");
    if (un != std::string::npos) {
      std::istringstream w(line.substr(un + 14));
      w >> t.network;
      continue;
    }
    auto ver = line.find("NCCL version ");
    if (ver != std::string::npos) {
      std::istringstream w(line.substr(ver + 13));
      w >> t.version;
    }
  }
  return t;
}

std::string NcclTransport::kinds() const {
  std::vector<std::string> k;
  for (auto& [p, n] : paths) {
    std::string kind = p.substr(0, p.find('/'));
    if (kind == "NET") {
      auto a = p.find('/'), b = p.find('/', a + 1);
      kind = p.substr(0, b);
    }
    if (std::find(k.begin(), k.end(), kind) == k.end()) k.push_back(kind);
  }
  if (k.empty()) return "unknown";
  std::string s;
  for (auto& x : k) s += (s.empty() ? "" : "+") + x;
  return s;
}

std::string NcclTransport::summary() const {
  std::string s;
  for (auto& [p, n] : paths) s += fmt::format("{}{} x{}", s.empty() ? "" : ", ", p, n);
  return s.empty() ? "no transport line seen" : s;
}

const char* ompi_allreduce_algorithm_name(int id) {
  switch (id) {
    case 0: return "default";
    case 1: return "basic_linear";
    case 2: return "nonoverlapping";
    case 3: return "recursive_doubling";
    case 4: return "ring";
    case 5: return "segmented_ring";
    case 6: return "rabenseifner";
    default: return "unknown";
  }
}

// A value fit for params (no ; or =, no commas or quotes).
std::string param_safe(std::string s) {
  for (char& c : s)
    if (c == ';' || c == '=' || c == ',' || c == '"' || c == '\n' || c == '\t') c = '_';
  return s.empty() ? "unknown" : s;
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string s;
  std::getline(in, s);
  return s.empty() ? host_name() : s;
}

// The interface of this node whose IPv4 address lies in one of the comma-separated subnets
// (a.b.c.d/n) of btl_tcp_if_include; interface names in the list are taken as they are.
std::string interfaces_in(const std::string& include) {
  std::string out;
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return "unknown";
  for (const std::string& w : split_fields(include, ',')) {
    auto slash = w.find('/');
    in_addr net{};
    if (slash == std::string::npos || inet_pton(AF_INET, w.substr(0, slash).c_str(), &net) != 1) {
      out += (out.empty() ? "" : "+") + w;
      continue;
    }
    const int bits = std::atoi(w.c_str() + slash + 1);
    const uint32_t mask = bits <= 0 ? 0 : bits >= 32 ? 0xffffffffu : ~((1u << (32 - bits)) - 1);
    for (ifaddrs* i = ifs; i; i = i->ifa_next)
      if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
          (ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr) & mask) == (ntohl(net.s_addr) & mask))
        out += (out.empty() ? "" : "+") + std::string(i->ifa_name);
  }
  freeifaddrs(ifs);
  return out.empty() ? "none" : out;
}

std::vector<std::string> routable_interfaces() {
  std::vector<std::string> out;
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return out;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    if (std::find(out.begin(), out.end(), i->ifa_name) == out.end()) out.push_back(i->ifa_name);
  }
  freeifaddrs(ifs);
  return out;
}

std::string tcp_transport_missing(const std::vector<std::string>& interfaces, const char* tcp_if_include) {
  // The user's own btl_tcp_if_include (lo among them, say) is theirs to answer for: Open MPI is asked.
  if (!interfaces.empty() || (tcp_if_include && *tcp_if_include)) return "";
  return "needs a non-loopback network interface that is up with an IPv4 or IPv6 address, and this node has none "
         "(only lo): Open MPI's tcp BTL does not use lo between ranks (its btl_tcp_if_exclude leaves out "
         "127.0.0.1/8), so MPI_Init would fail with \"unable to reach each other\"; give the node a network "
         "interface, or name one with --mca btl_tcp_if_include in --launcher";
}

}  // namespace rigcheck::comm
