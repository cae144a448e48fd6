// memory_bandwidth: STREAM's four kernels (copy, scale, add, triad) on doubles, threads
// 1..cores, with plain stores and with non-temporal (streaming) stores, over arrays of at least
// 4x the last-level cache. Bytes are counted as STREAM counts them (copy/scale 16 B, add/triad
// 24 B per element); the figure with write-allocate traffic (one more read of the destination
// for plain stores) is derived beside it (metric gbps_write_allocate). Every element of the
// result array is compared with a scalar reference before the kernel is timed.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "memutil.hpp"
#include "stream_kernels.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/machine_topology.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::mem {
namespace {

constexpr const char* kOpName[] = {"copy", "scale", "add", "triad"};
// Arrays read + written per element (STREAM's count).
constexpr int kStreams[] = {2, 2, 3, 3};
constexpr double kScalar = 3.0;  // STREAM's scalar

// The three arrays, kept across the cases of one memory policy (first touch is slow on some VMs:
// docs/machines.md). The harness binds each case's memory to its NUMA nodes on a machine of several
// (placement): a case of other nodes gets arrays of its own, first touched by its own threads, each
// its share (Stream::share, as STREAM's static schedule does), so a page lies on its thread's node.
struct Arrays {
  size_t n = 0;
  std::string nodes;  // memory_policy_nodes() when they were made
  Buffer a, b, c;
};
Arrays& arrays(size_t n, int threads) {
  static Arrays arr;
  const std::string nodes = memory_policy_nodes();
  if (arr.n != n || arr.nodes != nodes) {
    arr = Arrays{};  // the old ones freed first
    const size_t bytes = n * sizeof(double);
    arr.a = Buffer(bytes, Pages::none);
    arr.b = Buffer(bytes, Pages::none);
    arr.c = Buffer(bytes, Pages::none);
    arr.n = n;
    arr.nodes = nodes;
    // One node (no policy): any CPU may touch, so all of them do; several: the case's threads.
    const int t = nodes.find(',') == std::string::npos ? omp_get_num_procs() : threads;
    arr.a.touch(t);
    arr.b.touch(t);
    arr.c.touch(t);
  }
  return arr;
}

class Stream final : public Kernel {
 public:
  Stream(Op op, const StreamIsa& isa, bool nt, int threads, size_t n)
      : op_(op), fn_(nt ? isa.nt : isa.plain), threads_(threads), arr_(arrays(n, threads)) {
    // Fresh random inputs in [-1, 1] (never 0) for this case, written by the case's threads.
    double* p[] = {A(), B(), C()};
#pragma omp parallel num_threads(threads_)
    {
      const int t = omp_get_thread_num();
      auto [i0, i1] = share(t);
      SplitMix r(1234567 + 7919 * t);
      for (double* q : p)
        for (size_t i = i0; i < i1; ++i) {
          double v = static_cast<double>(r.next() >> 11) * 0x1.0p-53 * 2 - 1;
          q[i] = v == 0 ? 0.5 : v;
        }
    }
  }
  void run() override {
#pragma omp parallel num_threads(threads_)
    {
      auto [i0, i1] = share(omp_get_thread_num());
      fn_(op_, A(), B(), C(), kScalar, i0, i1);
    }
  }
  CheckResult check() override {
    run();
    CheckResult r;
    r.method = fmt::format("every element of the result array vs a scalar reference (STREAM {} with scalar {}), exact",
                           kOpName[static_cast<int>(op_)], kScalar);
    const double *a = A(), *b = B(), *c = C();
    const size_t n = arr_.n;
    int64_t wrong = 0;
#pragma omp parallel for num_threads(threads_) reduction(+ : wrong)
    for (size_t i = 0; i < n; ++i) {
      bool ok = true;
      switch (op_) {
        case Op::copy: ok = c[i] == a[i]; break;
        case Op::scale: ok = b[i] == kScalar * c[i]; break;
        case Op::add: ok = c[i] == a[i] + b[i]; break;
        case Op::triad: ok = a[i] == b[i] + kScalar * c[i]; break;
      }
      wrong += !ok;
    }
    r.checked = static_cast<int64_t>(n);
    r.wrong = wrong;
    r.worst = wrong ? INFINITY : 0;
    return r;
  }

 private:
  double* A() const { return static_cast<double*>(arr_.a.data()); }
  double* B() const { return static_cast<double*>(arr_.b.data()); }
  double* C() const { return static_cast<double*>(arr_.c.data()); }
  // Thread t's contiguous share, in blocks of 64 doubles (512 B, aligned for vector stores).
  std::pair<size_t, size_t> share(int t) const {
    const size_t blocks = arr_.n / 64, per = blocks / threads_, extra = blocks % threads_;
    const size_t b0 = t * per + std::min<size_t>(t, extra), b1 = b0 + per + (static_cast<size_t>(t) < extra);
    return {b0 * 64, t == threads_ - 1 ? arr_.n : b1 * 64};
  }
  Op op_;
  StreamFn fn_;
  int threads_;
  Arrays& arr_;
};

// Bytes of one array: at least 4x the last-level cache (sysfs) and never below 256 MiB, which
// is 4x an L3 of 64 MiB for machines whose sysfs says nothing (some VMs); tiny: 16 MiB.
std::pair<int64_t, std::string> array_bytes(const CommonOptions& o) {
  if (!o.sizes.empty()) return {o.sizes.front(), "--sizes"};
  if (o.profile == Profile::tiny) return {16 << 20, "tiny profile: arrays NOT 4x the last-level cache"};
  const uint64_t l3 = sysfs_l3_total_bytes();
  const int64_t floor = int64_t(256) << 20;
  if (l3 == 0) return {floor, "L3 size not in sysfs: 256 MiB (4x an assumed 64 MiB L3)"};
  const int64_t want = std::max<int64_t>(floor, 4 * static_cast<int64_t>(l3));
  return {want, fmt::format("4x the sysfs L3 of {} MiB, at least 256 MiB", l3 >> 20)};
}

Case stream_case(const std::string& name, Op op, bool nt, const StreamIsa* isa, int64_t t, size_t n,
                 const std::string& basis) {
  Case c;
  const int streams = kStreams[static_cast<int>(op)];
  c.name = name;
  c.params = {{"kernel", kOpName[static_cast<int>(op)]},
              {"stores", nt ? "nontemporal" : "plain"},
              {"isa", isa->name},
              {"threads", std::to_string(t)},
              {"array_bytes", std::to_string(n * sizeof(double))},
              {"array_basis", basis},
              {"dtype", "f64"},
              {"bytes_per_element", std::to_string(8 * streams)},
              {"bytes_per_element_write_allocate", std::to_string(8 * (streams + (nt ? 0 : 1)))}};
  c.threads = static_cast<int>(t);
  c.work.bytes = 8.0 * streams * static_cast<double>(n);
  c.make = [op, isa, nt, t, n]() -> std::unique_ptr<Kernel> {
    if (!isa->supported()) throw Skip(fmt::format("this CPU lacks {} ({})", isa->name, isa->detected_by));
    return std::make_unique<Stream>(op, *isa, nt, static_cast<int>(t), n);
  };
  return c;
}

// On a machine of several host NUMA nodes: triad (plain stores) on each node's cores with its memory
// on that node (local), and on the first node's cores with the memory on each other node (remote):
// STREAM per node, beside the sweep's all-core figure across them. On a machine of one host node,
// one skipped case saying so.
std::vector<Case> numa_cases(const CommonOptions& o, const StreamIsa& isa, size_t n, const std::string& basis) {
  std::vector<Case> cs;
  const std::vector<std::pair<int, int>> nodes = node_core_counts(this_machine(), o.allowed_cpus);
  if (nodes.size() < 2) {
    Case c = stream_case(fmt::format("triad/plain/{}/per_node", isa.name), Op::triad, false, &isa, 1, n, basis);
    skip_case(c, fmt::format("STREAM per NUMA node needs two host NUMA nodes with allowed CPUs (this process: {})",
                             nodes.size()));
    cs.push_back(std::move(c));
    return cs;
  }
  auto add = [&](int node, int memory, int cores) {
    const std::string where = memory == node ? fmt::format("node{}", node) : fmt::format("node{}/mem{}", node, memory);
    Case c = stream_case(fmt::format("triad/plain/{}/{}/t{}", isa.name, where, cores), Op::triad, false, &isa, cores, n,
                         basis);
    c.params.push_back({"numa_node", std::to_string(node)});
    c.params.push_back({"memory_node", std::to_string(memory)});
    c.numa_node = node;
    c.memory_node = memory;
    cs.push_back(std::move(c));
  };
  for (const auto& [node, cores] : nodes) add(node, node, cores);
  for (size_t i = 1; i < nodes.size(); ++i) add(nodes.front().first, nodes[i].first, nodes.front().second);
  return cs;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_memory_bandwidth = declare_entry(
    {"memory_bandwidth", "memory", "--min-time 0.1", "", "", 60, 240, 1800,
     "STREAM copy/scale/add/triad, plain and non-temporal stores, threads 1..cores (MEM-2 figures)", true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row = declare_doc(
    {"",
     R"(STREAM copy, scale, add, triad (f64), plain and non-temporal stores (AVX2, AVX-512; NEON with STNP on
aarch64), threads 1..cores, arrays >= 4x the last-level cache (>= 256 MiB); STREAM byte counting and
with write-allocate (`gbps_write_allocate`); on a machine of 2+ NUMA nodes triad per node (threads and
arrays on it) and from the first node to each other node's memory)",
     "MEM-2 (figures for a second run)"});

const bool bw = register_benchmark(
    {names::kMemoryBandwidth, "STREAM copy/scale/add/triad, plain and non-temporal stores, threads 1..cores",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       auto [bytes, basis] = array_bytes(o);
       const size_t n = static_cast<size_t>(bytes) / sizeof(double);
       // The widest ISA the CPU has (likwid-bench's stream_avx512 or stream_avx; aarch64: NEON); full: all.
       std::vector<const StreamIsa*> isas;
       for (const StreamIsa& isa : stream_isas())
         if (isa.supported() && (isas.empty() || o.profile == Profile::full)) isas.push_back(&isa);
       if (isas.empty()) isas.push_back(&stream_isas().back());  // its make() skips with the reason
       for (const StreamIsa* isa : isas)
         for (int op = 0; op < 4; ++op)
           for (bool nt : {false, true})
             for (int64_t t : default_threads(o))
               cs.push_back(stream_case(fmt::format("{}/{}/{}/t{}", kOpName[op], nt ? "nt" : "plain", isa->name, t),
                                        static_cast<Op>(op), nt, isa, t, n, basis));
       for (Case& c : numa_cases(o, *isas.front(), n, basis)) cs.push_back(std::move(c));
       return cs;
     }});

// gbps_write_allocate: the same repetitions with the destination's write-allocate read counted.
const bool bw_wa = register_derived_rows(names::kMemoryBandwidth, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  for (const ResultRow& r : rows) {
    if (r.metric != "gbps") continue;
    const double s = std::atof(param_value(r.params, "bytes_per_element").c_str());
    const double w = std::atof(param_value(r.params, "bytes_per_element_write_allocate").c_str());
    if (!(s > 0 && w > 0)) continue;
    ResultRow d = r;
    d.metric = "gbps_write_allocate";
    d.value = r.value * w / s;
    if (d.note.empty()) d.note = "gbps x bytes_per_element_write_allocate / bytes_per_element";
    out.push_back(d);
  }
  return out;
});

}  // namespace
}  // namespace rigcheck::mem
