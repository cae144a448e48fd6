# Cross-compiling for 64-bit Arm (aarch64) on an x86-64 Debian machine (docs/arm.md): Debian's cross
# compiler (g++-aarch64-linux-gnu) and an arm64 sysroot of Debian's packages unpacked with dpkg -x
# (scripts/arm64-sysroot.sh; RIGCHECK_ARM64_SYSROOT, default build-arm64/sysroot of the source tree).
# On an Arm machine no toolchain file is needed: the ordinary presets build natively.
# Libraries, headers and CMake packages are searched in the sysroot only, programs on the host.
# Test programs run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR) with the sysroot as the root
# of the loader and its libraries, so try_run and ctest can run arm64 binaries here.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT RIGCHECK_ARM64_SYSROOT)
  get_filename_component(RIGCHECK_ARM64_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../../build-arm64/sysroot" ABSOLUTE)
endif()
set(RIGCHECK_ARM64_SYSROOT "${RIGCHECK_ARM64_SYSROOT}" CACHE PATH "arm64 sysroot (scripts/arm64-sysroot.sh)")
if(NOT EXISTS "${RIGCHECK_ARM64_SYSROOT}/usr/include")
  message(FATAL_ERROR "no arm64 sysroot at ${RIGCHECK_ARM64_SYSROOT}: run scripts/arm64-sysroot.sh (docs/arm.md)")
endif()
set(CMAKE_SYSROOT "${RIGCHECK_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${RIGCHECK_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (hwloc, cpuinfo) reads the sysroot's .pc files, not the host's.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${RIGCHECK_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR} "${RIGCHECK_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${RIGCHECK_ARM64_SYSROOT}/usr/share/pkgconfig")

find_program(RIGCHECK_QEMU_AARCH64 qemu-aarch64)
if(RIGCHECK_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${RIGCHECK_QEMU_AARCH64};-L;${RIGCHECK_ARM64_SYSROOT}")
endif()
