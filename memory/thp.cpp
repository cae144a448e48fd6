// memory_thp: transparent huge pages measured in one process, no system setting changed (MEM-4).
// - thp_alloc: one allocation cycle of a 1 GiB buffer (256 MiB in the quick profile) per iteration: mmap, madvise
//   (MADV_HUGEPAGE or MADV_NOHUGEPAGE), first touch of every 4 KiB page, munmap; rate in GB/s.
// - thp_gups: GUPS-style random read-modify-write updates (table[r & mask] ^= r) of a table of
//   the same size, 64-bit words with each advice; metric gups (1e9 updates/s) derived per repetition.
// AnonHugePages of each buffer is read back from /proc/self/smaps and recorded, with the THP
// mode and defrag setting.
#include <omp.h>

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "memutil.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck::mem {
namespace {

Params thp_facts() { return {{"thp_enabled", thp_setting("enabled")}, {"thp_defrag", thp_setting("defrag")}}; }

void require_thp(Pages pages) {
  const std::string en = thp_setting("enabled");
  if (en.rfind("unknown", 0) == 0) throw Skip("transparent huge pages are not in this kernel: " + en);
  if (pages == Pages::huge && en == "never") throw Skip("THP mode is 'never': MADV_HUGEPAGE cannot take effect");
}

class AllocTouch final : public Kernel {
 public:
  AllocTouch(Pages pages, size_t bytes) : pages_(pages), bytes_(bytes) {
    require_thp(pages);
    checked_ = cycle_and_check();  // here, so that facts() (asked before check()) has AnonHugePages
    if (pages == Pages::huge && huge_ == 0)
      throw Skip(fmt::format("MADV_HUGEPAGE took no effect: AnonHugePages 0 (THP {}, defrag {})",
                             thp_setting("enabled"), thp_setting("defrag")));
  }
  void run() override {
    Buffer b(bytes_, pages_);
    char* c = static_cast<char*>(b.data());
    for (size_t i = 0; i < bytes_; i += 4096) c[i] = static_cast<char>(i >> 12);
    sink_ = c[bytes_ / 2];
  }
  // One cycle, with AnonHugePages read while the buffer is mapped and every page checked to
  // hold what the touch wrote.
  CheckResult check() override { return checked_; }

 private:
  CheckResult cycle_and_check() {
    Buffer b(bytes_, pages_);
    char* c = static_cast<char*>(b.data());
    const uint64_t salt = 0x9d;
    for (size_t i = 0; i < bytes_; i += 4096) c[i] = static_cast<char>((i >> 12) * salt + 1);
    huge_ = b.huge_bytes();
    CheckResult r;
    for (size_t i = 0; i < bytes_; i += 4096, ++r.checked)
      if (c[i] != static_cast<char>((i >> 12) * salt + 1)) ++r.wrong;
    if (pages_ == Pages::nohuge && huge_ > 0) ++r.wrong;
    r.worst = r.wrong ? INFINITY : 0;
    r.method = fmt::format("every 4 KiB page read back after first touch; AnonHugePages {} MiB of {} MiB ({} expected)",
                           huge_ >> 20, bytes_ >> 20, pages_ == Pages::huge ? "> 0" : "0");
    return r;
  }

 public:
  Params facts() const override {
    Params p = thp_facts();
    p.push_back({"anon_huge_bytes", std::to_string(huge_)});
    return p;
  }

 private:
  CheckResult checked_;
  Pages pages_;
  size_t bytes_;
  int64_t huge_ = -1;
  static inline volatile char sink_ = 0;
};

class Gups final : public Kernel {
 public:
  Gups(Pages pages, size_t bytes, int64_t updates) : buf_(bytes, pages), updates_(updates) {
    require_thp(pages);
    words_ = bytes / 8;
    mask_ = words_ - 1;  // bytes is a power of two
    t_ = static_cast<uint64_t*>(buf_.data());
    for (size_t i = 0; i < words_; ++i) t_[i] = i * 0x9E3779B97F4A7C15ull + 1;  // never 0
    huge_ = buf_.huge_bytes();
    if (pages == Pages::huge && huge_ == 0)
      throw Skip(fmt::format("MADV_HUGEPAGE took no effect: AnonHugePages 0 (THP {}, defrag {})",
                             thp_setting("enabled"), thp_setting("defrag")));
  }
  void run() override { seed_ = update(seed_, updates_); }
  // HPCC RandomAccess's own check: the same update stream applied twice restores the table.
  CheckResult check() override {
    const uint64_t s = 12345;
    update(s, updates_);
    update(s, updates_);
    CheckResult r;
    for (size_t i = 0; i < words_; ++i, ++r.checked)
      if (t_[i] != i * 0x9E3779B97F4A7C15ull + 1) ++r.wrong;
    r.worst = r.wrong ? INFINITY : 0;
    r.method =
        fmt::format("{} updates applied twice restore every word of the table (HPCC RandomAccess check)", updates_);
    return r;
  }
  Params facts() const override {
    Params p = thp_facts();
    p.push_back({"anon_huge_bytes", std::to_string(huge_)});
    return p;
  }

 private:
  // Not instrumented by AddressSanitizer: every index is masked into the table, and under ASan each
  // random update's shadow check missed the TLB on its own (3.4 us an update in the VM: memory_thp's
  // tiny run took 19 s of the sanitizer stage, 2 s without).
  __attribute__((no_sanitize_address)) uint64_t update(uint64_t seed, int64_t n) {
    SplitMix r(seed);
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = r.next();
      t_[v & mask_] ^= v;
    }
    return r.s;
  }
  Buffer buf_;
  int64_t updates_;
  size_t words_ = 0, mask_ = 0;
  uint64_t* t_ = nullptr;
  uint64_t seed_ = 777;
  int64_t huge_ = -1;
};

// Quick: 256 MiB, not 512 MiB or 1 GiB. A 4 KiB-page
// first touch costs about 11-15 us per page on these VMs, and the alloc case pays it four times (its
// check's cycle and 3 repetitions): 12 s at 1 GiB, 6.8 s at 512 MiB. Both sizes
// are far beyond the 4 KiB pages' TLB reach, so the two advices differ by the same mechanisms.
int64_t thp_bytes(const CommonOptions& o) {
  if (!o.sizes.empty()) return o.sizes.front();
  return o.profile == Profile::tiny    ? int64_t(64) << 20
         : o.profile == Profile::quick ? int64_t(256) << 20
                                       : int64_t(1) << 30;
}

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_memory_thp = declare_entry(
    {"memory_thp", "memory", "--reps 5", "", "thp_available=yes", 60, 240, 1200,
     "allocate+first-touch and GUPS of 1 GiB (quick: 256 MiB), MADV_HUGEPAGE vs MADV_NOHUGEPAGE (MEM-4)", true});
// Its row of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row =
    declare_doc({"",
                 R"(allocate + first touch + free of 1 GiB, and GUPS random updates of a 1 GiB table (256 MiB in quick),
`MADV_HUGEPAGE` vs `MADV_NOHUGEPAGE` in one process; the first-touch cost per 4 KiB and per 2 MiB page;
THP mode and defrag recorded, never changed)",
                 "MEM-4"});

const bool alloc = register_benchmark(
    {names::kThpAlloc,
     "allocate + first-touch + free cycles of a 1 GiB buffer (quick: 256 MiB), MADV_HUGEPAGE vs MADV_NOHUGEPAGE",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       const int64_t bytes = thp_bytes(o);
       for (Pages pg : {Pages::huge, Pages::nohuge}) {
         Case c;
         c.name = fmt::format("{}/{}", to_string(pg), bytes);
         c.params = {{"pages", to_string(pg)}, {"bytes", std::to_string(bytes)}, {"threads", "1"}};
         c.work.bytes = static_cast<double>(bytes);
         c.make = [pg, bytes]() -> std::unique_ptr<Kernel> { return std::make_unique<AllocTouch>(pg, bytes); };
         c.interleave = "pages";  // MEM-4 is the ratio of the two: taken per pair of neighbouring repetitions
         cs.push_back(std::move(c));
       }
       return cs;
     }});

const bool gups = register_benchmark(
    {names::kThpGups, "GUPS-style random updates of a 1 GiB table (quick: 256 MiB), MADV_HUGEPAGE vs MADV_NOHUGEPAGE",
     [](const CommonOptions& o) {
       std::vector<Case> cs;
       int64_t bytes = thp_bytes(o);
       if (bytes & (bytes - 1)) throw std::invalid_argument("thp_gups: --sizes must be a power of two");
       const int64_t updates = o.profile == Profile::tiny ? 1 << 18 : 1 << 22;
       for (Pages pg : {Pages::huge, Pages::nohuge}) {
         Case c;
         c.name = fmt::format("{}/{}", to_string(pg), bytes);
         c.params = {{"pages", to_string(pg)},
                     {"bytes", std::to_string(bytes)},
                     {"updates", std::to_string(updates)},
                     {"threads", "1"}};
         c.make = [pg, bytes, updates]() -> std::unique_ptr<Kernel> {
           return std::make_unique<Gups>(pg, bytes, updates);
         };
         c.interleave = "pages";
         cs.push_back(std::move(c));
       }
       return cs;
     }});

// The first-touch cost per page (MEM-4's cause): one allocation cycle's time (mmap, madvise,
// first touch of every page, munmap) divided by the pages the buffer was made of, 4 KiB pages under
// MADV_NOHUGEPAGE and 2 MiB pages under MADV_HUGEPAGE; per repetition, so the evaluator has the
// spread. It includes mmap and munmap, which are a small part of the cycle (the page faults and the
// zeroing are most of it): an upper bound of the first touch alone. A huge-page buffer only partly
// backed by 2 MiB pages (AnonHugePages < bytes) says so in the note.
const bool alloc_rows = register_derived_rows(names::kThpAlloc, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  for (const ResultRow& r : rows) {
    if (r.metric != names::kTimePerIter) continue;
    const bool huge = param_value(r.params, "pages") == to_string(Pages::huge);
    const double bytes = std::atof(param_value(r.params, "bytes").c_str());
    const double anon_huge = std::atof(param_value(r.params, "anon_huge_bytes").c_str());
    const double page = huge ? 2.0 * 1048576 : 4096.0;
    if (!(bytes >= page)) continue;
    ResultRow d = r;
    d.metric = names::kFirstTouchUsPerPage;
    d.value = std::isfinite(r.value) ? 1e6 * r.value / (bytes / page) : NAN;
    d.unit = "us";
    std::string how = fmt::format("allocation cycle time / {:.0f} pages of {}; mmap and munmap included", bytes / page,
                                  huge ? "2 MiB" : "4 KiB");
    if (huge && anon_huge < bytes)
      how += fmt::format("; only {:.0f} of {:.0f} MiB were 2 MiB pages (the rest 4 KiB)", anon_huge / 1048576,
                         bytes / 1048576);
    d.note = r.note.empty() ? how : r.note + "; " + how;
    out.push_back(d);
  }
  return out;
});

const bool gups_rows = register_derived_rows(names::kThpGups, [](const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  for (const ResultRow& r : rows)
    if (r.metric == "time_per_iter") {
      ResultRow d = r;
      d.metric = "gups";
      d.value = std::atof(param_value(r.params, "updates").c_str()) / r.value / 1e9;
      d.unit = "GUP/s";
      out.push_back(d);
    }
  return out;
});

}  // namespace
}  // namespace rigcheck::mem
