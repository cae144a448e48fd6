// Runs of different processor architectures side by side: see pair_across_archs in
// compare.hpp, data/cross_arch.csv and data/kernel_isas.csv.
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

std::string run_arch(const LoadedRun& r) {
  auto it = r.data.inventory.find("cpu_arch");
  return it == r.data.inventory.end() || it->second.empty() ? "x86_64" : it->second;
}

namespace {
struct KernelIsa {
  std::string arch;
  int rank = 0;
};
struct Pairing {
  std::string how, why;  // widest | one_sided
};

std::map<std::string, KernelIsa> read_kernel_isas(const std::string& path) {
  std::map<std::string, KernelIsa> out;
  for_each_csv_row<4>(path, io::ignore_extra_column, {"isa", "arch", "rank", "what"},
                      [&](long line, const std::array<std::string, 4>& f) {
                        KernelIsa k{f[1], 0};
                        if (f[0].empty() || f[1].empty())
                          throw InputError(path, line, "isa and arch must not be empty");
                        double rank = 0;
                        if (!parse_double(f[2], rank) || rank < 0)
                          throw InputError(path, line, fmt::format("rank '{}' is not a number >= 0", f[2]));
                        k.rank = static_cast<int>(rank);
                        if (!out.emplace(f[0], k).second) throw InputError(path, line, f[0] + " appears twice");
                      });
  return out;
}

std::map<std::string, Pairing> read_pairings(const std::string& path) {
  std::map<std::string, Pairing> out;
  for_each_csv_row<3>(path, io::ignore_extra_column, {"benchmark", "pairing", "why"},
                      [&](long line, const std::array<std::string, 3>& f) {
                        if (f[1] != "widest" && f[1] != "one_sided")
                          throw InputError(path, line, fmt::format("pairing '{}': widest or one_sided", f[1]));
                        if (f[0].empty() || f[2].empty())
                          throw InputError(path, line, "benchmark and why must not be empty");
                        if (!out.emplace(f[0], Pairing{f[1], f[2]}).second)
                          throw InputError(path, line, f[0] + " appears twice");
                      });
  return out;
}

// The requested params without `isa`, and its value.
std::string without_isa(const std::string& requested, std::string& isa) {
  std::string out;
  for (auto& [k, v] : parse_params(requested)) {
    if (k == "isa")
      isa = v;
    else
      out += (out.empty() ? "" : ";") + k + "=" + v;
  }
  return out;
}

// The case name with its '/' part equal to `isa` replaced by `by` (copy/plain/avx512/t1 -> copy/plain/widest/t1).
std::string case_with(const std::string& name, const std::string& isa, const std::string& by) {
  const std::string padded = "/" + name + "/";
  const size_t at = padded.find("/" + isa + "/");
  if (at == std::string::npos) return name;
  std::string out = padded.substr(0, at + 1) + by + padded.substr(at + 1 + isa.size());
  return out.substr(1, out.size() - 2);
}

template <class M>
void rekey(M& m, const std::string& from, const std::string& to) {
  auto node = m.extract(from);
  if (node.empty()) return;
  node.key() = to;
  if (!m.insert(std::move(node)).inserted)  // two cases of one run under one key: a fault of the rules
    throw std::logic_error("pair_across_archs: two cases renamed to one: " + to);
}

// One run's cases under the rules, its architecture `arch`; `others`: the other architectures compared.
void pair_run(LoadedRun& r, const std::string& arch, const std::string& others,
              const std::map<std::string, Pairing>& pairing, const std::map<std::string, KernelIsa>& isas) {
  std::set<std::string> keys;
  for (auto& [k, c] : r.cases) keys.insert(k);
  for (auto& [k, w] : r.not_working) keys.insert(k);
  // widest: the experiment (source, benchmark, case without its ISA, requested without isa) -> the
  // widest ISA's key, preferring a case that worked
  struct Best {
    std::string key, isa;
    int rank = -1;
    bool ok = false;
  };
  std::map<std::string, Best> best;
  std::map<std::string, std::string> renamed;  // old key -> new key
  for (const std::string& key : keys) {
    const CaseKeyParts k = split_case_key(key);
    auto p = pairing.find(k.benchmark);
    if (p == pairing.end()) continue;
    std::string isa;
    const std::string rest = without_isa(k.requested, isa);
    if (p->second.how == "one_sided") {
      renamed[key] =
          case_key(k.source, k.benchmark, k.case_name, k.requested + (k.requested.empty() ? "" : ";") + "arch=" + arch);
      r.one_sided[renamed[key]] =
          fmt::format("one-sided: {}; this run is {}, the other side {}", p->second.why, arch, others);
      continue;
    }
    auto i = isas.find(isa);
    if (i == isas.end() || i->second.arch != arch) continue;  // not a kernel ISA of this run's: left as it is
    const std::string experiment = case_key(k.source, k.benchmark, case_with(k.case_name, isa, "*"), rest);
    Best& b = best[experiment];
    const bool ok = r.cases.count(key) > 0;
    if (b.key.empty() || (ok && !b.ok) || (ok == b.ok && i->second.rank > b.rank))
      b = Best{key, isa, i->second.rank, ok};
  }
  for (auto& [experiment, b] : best) {
    const CaseKeyParts k = split_case_key(b.key);
    std::string isa;
    const std::string rest = without_isa(k.requested, isa);
    renamed[b.key] = case_key(k.source, k.benchmark, case_with(k.case_name, isa, "widest"),
                              rest + (rest.empty() ? "" : ";") + "isa=widest");
    if (auto c = r.cases.find(b.key); c != r.cases.end()) c->second.observed["isa"] = isa;
    r.widest_isa[renamed[b.key]] = isa;
  }
  for (const std::string& key : keys) {  // the other ISAs of a widest benchmark's experiment
    const CaseKeyParts k = split_case_key(key);
    auto p = pairing.find(k.benchmark);
    if (p == pairing.end() || p->second.how != "widest" || renamed.count(key)) continue;
    std::string isa;
    const std::string rest = without_isa(k.requested, isa);
    auto i = isas.find(isa);
    if (i == isas.end() || i->second.arch != arch) continue;
    const Best& b = best[case_key(k.source, k.benchmark, case_with(k.case_name, isa, "*"), rest)];
    r.one_sided[key] =
        i->second.rank < b.rank
            ? fmt::format("one-sided: a narrower kernel ({}) than this run's widest ({}) for the same experiment; {}",
                          isa, b.isa, p->second.why)
            : fmt::format("one-sided: a kernel ({}) that did not work here, so {} stands for this run; {}", isa, b.isa,
                          p->second.why);
  }
  for (auto& [from, to] : renamed) {
    rekey(r.cases, from, to);
    rekey(r.not_working, from, to);
    if (auto c = r.cases.find(to); c != r.cases.end()) {
      const CaseKeyParts k = split_case_key(to);
      c->second.case_name = k.case_name;
      c->second.requested = k.requested;
    }
  }
  // not_working_by_name (source, benchmark, case) follows the case names
  for (auto& [from, to] : renamed) {
    const CaseKeyParts a = split_case_key(from), b = split_case_key(to);
    if (a.case_name != b.case_name)
      rekey(r.not_working_by_name, a.source + '\x1f' + a.benchmark + '\x1f' + a.case_name,
            b.source + '\x1f' + b.benchmark + '\x1f' + b.case_name);
  }
}
}  // namespace

void pair_across_archs(std::vector<LoadedRun>& runs, const std::string& cross_arch_path,
                       const std::string& kernel_isas_path) {
  std::set<std::string> archs;
  for (const LoadedRun& r : runs) archs.insert(run_arch(r));
  if (archs.size() < 2) return;
  const auto pairing = read_pairings(data_file(cross_arch_path, "cross_arch.csv"));
  const auto isas = read_kernel_isas(data_file(kernel_isas_path, "kernel_isas.csv"));
  for (LoadedRun& r : runs) {
    const std::string arch = run_arch(r);
    std::string others;
    for (const std::string& a : archs)
      if (a != arch) others += (others.empty() ? "" : ", ") + a;
    pair_run(r, arch, others, pairing, isas);
  }
}

}  // namespace rigcheck
