// The per-ISA seam of cpu_peak: each ISA family has one source file (peak_x86.cpp, peak_arm.cpp;
// CMake picks it from the target's processor, cmake/isa.cmake) that defines the same table of FMA
// kernels. peak.cpp iterates it: cases, work model, the correctness check are shared by every ISA.
#pragma once
#include <cstdint>
#include <vector>

namespace rigcheck::cpu {

struct FmaIsa {
  const char* name;  // the case name's and the `isa` parameter's word: avx2, avx512, neon, sve
  // f32 lanes of one vector register. A function: SVE's vector length is read at run time, and
  // only where supported() (an SVE instruction on a CPU without SVE is an illegal instruction).
  int (*lanes)();
  int chains;  // independent accumulator vectors per thread (>= FMA latency x FMA pipes)
  // `iters` rounds of `chains` vector FMAs c = c*a + b on acc (chains x lanes floats), fused
  // (one rounding), in place.
  void (*fn)(float* acc, float a, float b, int64_t iters);
  bool (*supported)();
  const char* detected_by;  // where supported() reads the CPU's features (cpuid, HWCAP), for the skip reason
  bool scalable = false;    // lanes() is the run-time vector length (SVE): written as the vector_bits fact
};

// The FMA kernels this binary was built with, narrowest first.
const std::vector<FmaIsa>& fma_isas();

}  // namespace rigcheck::cpu
