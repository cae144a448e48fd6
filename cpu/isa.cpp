// cpu_isa: the same oneDNN primitives at all cores, for claim CPU-5 (AVX-512 vs AVX2). The ISA
// cap comes from the environment (ONEDNN_MAX_CPU_ISA=AVX2), so each ISA runs in its own process:
// oneDNN freezes the cap at first use. `rigcheck run` starts this binary once (cpu_isa in
// data/benchmarks.csv) with --alternate-env ONEDNN_MAX_CPU_ISA=AVX2: it starts a capped second
// process of itself and the two take turns repetition by repetition (capped, native, capped...),
// both sides' rows in one CSV with interleaved=ONEDNN_MAX_CPU_ISA (bench/harness/src/alternate.hpp), so
// that CPU-5 takes its gain per pair. Every row records the cap (isa_cap, also the last part of the
// case name, so that the two sides never share a line of a table) and the ISA oneDNN dispatched.
#include <fmt/format.h>

#include "kernels.hpp"
#include "rigcheck/harness/repetitions.hpp"

namespace rigcheck::cpu {
namespace {

struct Shape {
  const char* kind;
  int64_t a, b, c, d;  // matmul: m n k -; ip: batch in out -; conv: n c k hw
};

std::vector<Shape> shapes(const CommonOptions& o) {
  if (o.profile == Profile::tiny)
    return {{"matmul", 256, 256, 256, 0}, {"inner_product", 64, 256, 256, 0}, {"conv3x3", 2, 16, 16, 14}};
  // conv: a ResNet-50 conv3_x 3x3 layer (128 -> 128 channels, 28x28) at batch 8.
  return {{"matmul", 2048, 2048, 2048, 0}, {"inner_product", 64, 4096, 4096, 0}, {"conv3x3", 8, 128, 128, 28}};
}

Case make_case(const Shape& s, DType t, int threads, const std::string& cap) {
  Case c;
  c.threads = threads;
  const std::string ts = std::to_string(threads);
  const std::string kind = s.kind;
  if (kind == "matmul") {
    c.name = fmt::format("matmul_{}/m{}n{}k{}/t{}", to_string(t), s.a, s.b, s.c, threads);
    c.params = {
        {"primitive", "matmul"}, {"m", std::to_string(s.a)}, {"n", std::to_string(s.b)}, {"k", std::to_string(s.c)}};
    c.work.flops = 2.0 * s.a * s.b * s.c;
    c.make = [=] { return make_onednn_matmul(s.a, s.b, s.c, t); };
  } else if (kind == "inner_product") {
    c.name = fmt::format("inner_product_{}/b{}i{}o{}/t{}", to_string(t), s.a, s.b, s.c, threads);
    c.params = {{"primitive", "inner_product"},
                {"batch", std::to_string(s.a)},
                {"in", std::to_string(s.b)},
                {"out", std::to_string(s.c)}};
    c.work.flops = 2.0 * s.a * s.b * s.c;
    c.make = [=] { return make_onednn_inner_product(s.a, s.b, s.c, t); };
  } else {
    c.name = fmt::format("conv3x3_{}/n{}c{}k{}hw{}/t{}", to_string(t), s.a, s.b, s.c, s.d, threads);
    c.params = {{"primitive", "conv3x3"},
                {"n", std::to_string(s.a)},
                {"c", std::to_string(s.b)},
                {"k", std::to_string(s.c)},
                {"hw", std::to_string(s.d)}};
    c.work.flops = 2.0 * s.a * s.c * s.b * 9 * s.d * s.d;
    c.make = [=] { return make_onednn_conv(s.a, s.b, s.c, s.d, t); };
  }
  c.name += "/isa_cap_" + cap;
  c.params.push_back({"dtype", to_string(t)});
  c.params.push_back({"threads", ts});
  return c;
}

const bool reps_defaults = register_repetition_defaults({3, 5, 10}, kShortQuickMinTimeS);

// Its rows of the benchmark registry, data/benchmarks.csv (--describe; scripts/registry.sh).
const bool entry_cpu_isa = declare_entry(
    {"cpu_isa", "cpu", "--alternate-env ONEDNN_MAX_CPU_ISA=AVX2", "", "isa_avx512f=yes", 240, 600, 3600,
     R"(oneDNN primitives with every ISA the CPU has and, in a second process taking turns with it repetition by
repetition, with the ISA capped at AVX2 (CPU-5); under a time budget the floor's 3 pairs)",
     true});
const bool entry_cpu_isa_sve = declare_entry(
    {"cpu_isa_sve", "cpu", "--alternate-env ONEDNN_MAX_CPU_ISA=ADVANCED_SIMD", "", "isa_sve=yes;sve_vector_bits>=512",
     240, 600, 3600,
     R"(aarch64, in place of CPU-5 and not the guide's claim: the same oneDNN primitives with SVE against, in a
second process taking turns, the ISA capped at Advanced SIMD (NEON); Debian's oneDNN 2.6 has SVE kernels
for 512-bit vectors only (docs/arm.md))",
     true});
// Its rows of docs/benchmarks.md's table (--describe; scripts/registry.sh writes the table).
const bool doc_row =
    declare_doc({"",
                 R"(oneDNN matmul, inner product, 3x3 convolution at all cores, f32 and bf16, ISA capped at AVX2 and
uncapped, each in its own process, the two processes taking turns repetition by repetition
(`--alternate-env ONEDNN_MAX_CPU_ISA=AVX2`; one registry entry, one `cpu_isa.csv`), the implementation
dispatched recorded; the gain per pair of repetitions)",
                 "CPU-5"});
const bool doc_row_variant = declare_doc({"`cpu_isa_sve`; aarch64 with 512-bit SVE only",
                                          R"(the same primitives with SVE against oneDNN capped at Advanced SIMD
(`ONEDNN_MAX_CPU_ISA=ADVANCED_SIMD`), the two processes taking turns; Debian's oneDNN 2.6.3 has SVE
kernels for 512-bit vectors only, so elsewhere skipped with the need named (docs/arm.md))",
                                          "in place of CPU-5, not the guide's claim (CPU-5's evidence)"});

const bool isa = register_benchmark({names::kIsaPrimitives,
                                     "oneDNN matmul, inner product and 3x3 convolution at all cores, f32 and bf16, "
                                     "under the ISA cap in ONEDNN_MAX_CPU_ISA",
                                     [](const CommonOptions& o) {
                                       std::vector<Case> cs;
                                       const int threads =
                                           static_cast<int>(o.threads.empty() ? o.physical_cores : o.threads.back());
                                       for (DType t : {DType::f32, DType::bf16})
                                         for (const Shape& s : shapes(o))
                                           cs.push_back(make_case(s, t, threads, onednn_isa_cap()));
                                       return cs;
                                     }});

}  // namespace
}  // namespace rigcheck::cpu
