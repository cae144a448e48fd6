// The per-ISA seam of memory_bandwidth: each ISA family has one source file (stream_x86.cpp,
// stream_arm.cpp; CMake picks it from the target's processor, cmake/isa.cmake) that defines the
// same table of STREAM kernels. bandwidth.cpp iterates it: cases, arrays, byte counts and the
// correctness check are shared by every ISA.
#pragma once
#include <cstddef>
#include <vector>

namespace rigcheck::mem {

// STREAM: copy c = a; scale b = s c; add c = a + b; triad a = b + s c.
enum class Op { copy, scale, add, triad };

// One thread's share [i0, i1) of one kernel; i0 a multiple of 64 doubles (512 B), the arrays
// 2 MiB aligned, any tail past the last whole vector step done in scalar code.
using StreamFn = void (*)(Op op, double* a, double* b, double* c, double s, size_t i0, size_t i1);

struct StreamIsa {
  const char* name;  // the case name's and the `isa` parameter's word: avx512, avx2, neon
  StreamFn plain;    // ordinary vector stores
  StreamFn nt;       // non-temporal stores (x86: movntpd; aarch64: STNP, a hint: docs/methodology.md)
  bool (*supported)();
  const char* detected_by;  // where supported() reads the CPU's features (cpuid...), for the skip reason
};

// The kernels this binary was built with, widest first (the run takes the first the CPU has;
// the full profile every one it has).
const std::vector<StreamIsa>& stream_isas();

}  // namespace rigcheck::mem
