# The ISA family the suite's own SIMD kernels are built for (cpu_peak, memory_bandwidth): each has
# one source file per family (cpu/peak_<isa>.cpp, memory/stream_<isa>.cpp) behind one table, picked
# here from the processor the build targets (CMAKE_SYSTEM_PROCESSOR: the host's, or the toolchain
# file's when cross-compiling, cmake/toolchains/). RIGCHECK_ISA is empty for any other processor:
# the two benchmarks are then not built, with the reason.
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" _rigcheck_proc)
if(_rigcheck_proc MATCHES "^(x86_64|amd64)$")
  set(RIGCHECK_ISA x86)
elseif(_rigcheck_proc MATCHES "^(aarch64|arm64)$")
  set(RIGCHECK_ISA arm)
else()
  set(RIGCHECK_ISA "")
endif()
set(RIGCHECK_ISA_REASON "no SIMD kernels for the processor ${CMAKE_SYSTEM_PROCESSOR} (x86_64 and aarch64 have them)")
