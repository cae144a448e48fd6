#!/usr/bin/env bash
# An arm64 sysroot for the aarch64 cross build (cmake/toolchains/aarch64-linux-gnu.cmake, preset
# arm64-cross) and for running its binaries here under qemu-user (qemu-aarch64 -L SYSROOT): Debian's
# arm64 packages that cpu_peak and memory_bandwidth link, downloaded with apt-get download and
# unpacked with dpkg -x into one folder, never installed. A sysroot rather than installing the
# :arm64 packages beside the amd64 ones: several are not Multi-Arch: same (libtorch-dev, and the
# -dev packages whose config files differ per architecture), so they cannot be co-installed; a
# folder holds any of them and is removed with rm -r. Needs `dpkg --add-architecture arm64` and
# an apt-get update (scripts/setup.sh --arch arm64 does both).
#   scripts/arm64-sysroot.sh [FOLDER]     default: build-arm64/sysroot; does nothing when complete
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sysroot="${1:-$root/build-arm64/sysroot}"
# The C and C++ runtime (the loader, libc, libstdc++, libgcc, libgomp for OpenMP) and their headers,
# then what the benchmarks link (fmt, Google Benchmark), the architecture-independent header packages
# every benchmark includes (CLI11, fast-cpp-csv-parser, nlohmann-json), the results store's SQLite
# (SQLiteCpp), oneDNN and OpenBLAS (cpu_gemm, cpu_isa, cpu_cache_fc) and GoogleTest for the unit tests.
# Not LibTorch (docs/arm.md says why), not libpq (the store is SQLite only there), not hwloc or MPI.
PACKAGES=(
  libc6:arm64 libc6-dev:arm64 linux-libc-dev:arm64 libcrypt1:arm64 libcrypt-dev:arm64
  libstdc++6:arm64 libgcc-s1:arm64 libgomp1:arm64
  libfmt9:arm64 libfmt-dev:arm64 libbenchmark1debian:arm64 libbenchmark-dev:arm64
  libcli11-dev libfccp-dev nlohmann-json3-dev
  libsqlite3-0:arm64 libsqlite3-dev:arm64 libsqlitecpp-dev:arm64
  libdnnl2:arm64 libdnnl-dev:arm64
  libgfortran5:arm64 libopenblas0-pthread:arm64 libopenblas-pthread-dev:arm64
  libgtest-dev:arm64 libgmock-dev:arm64
)
stamp="$sysroot/.rigcheck-packages"
if [[ -f $stamp && "$(cat "$stamp")" == "${PACKAGES[*]}" ]]; then exit 0; fi
debs="$(mktemp -d)"
chmod 755 "$debs"  # apt-get download writes as the _apt user
trap 'rm -rf "$debs"' EXIT
echo "arm64-sysroot: downloading ${#PACKAGES[@]} packages into $sysroot" >&2
(cd "$debs" && apt-get download -qq "${PACKAGES[@]}")
rm -rf "$sysroot"
mkdir -p "$sysroot"
for d in "$debs"/*.deb; do dpkg -x "$d" "$sysroot"; done
# What dpkg's update-alternatives would link (dpkg -x runs no maintainer script): OpenBLAS's libraries
# under their plain names, as an installed libopenblas0-pthread has them.
lib="$sysroot/usr/lib/aarch64-linux-gnu"
for f in "$lib"/openblas-pthread/lib*.so*; do ln -sfn "openblas-pthread/${f##*/}" "$lib/${f##*/}"; done
echo "${PACKAGES[*]}" > "$stamp"
echo "arm64-sysroot: $(du -sh "$sysroot" | cut -f1) in $sysroot" >&2
