#!/usr/bin/env bash
# Install the Debian packages rigcheck builds and runs with. Does nothing when all are present.
# CUDA and NCCL are not Debian packages: they are used from /usr/local/cuda when present.
#   scripts/setup.sh           what the suite needs (scripts/run.sh, scripts/fuzz.sh)
#   scripts/setup.sh --tests   and what its tests need besides (scripts/test.sh): Debian's chromium
#                              and a CJK font, for the browser test of report.html (html_chromium);
#                              universal-ctags, for scripts/check-sizes.sh (layout_sizes); Slurm and
#                              munge, for the Slurm cluster test (comm_slurm_cluster); debootstrap,
#                              for the GPU pack's bare-root test (gpu_pack_bare_root); Google Benchmark's
#                              compare.py with scipy, promtool and junitparser, for the exports'
#                              consumers (export_gbench, export_openmetrics, export_junit); sqlite3
#                              and postgresql, for the results store's tests (docs/store.md); QEMU
#                              (qemu-system-x86) for the emulated NUMA machine (scripts/vm-numa.sh)
#   scripts/setup.sh --list    the packages it would install (with --tests, --arch: theirs too), one a line
#   scripts/setup.sh --arch arm64
#                              and the aarch64 cross build (docs/arm.md): Debian's cross compiler
#                              and qemu-user to run its binaries here; the arm64 architecture is
#                              added to dpkg, and the arm64 sysroot made (scripts/arm64-sysroot.sh)
# Known distributions (docs/distributions.md): Debian 12 and 13; Ubuntu 22.04 and 24.04 as far as
# package names go (not tried: no Ubuntu machine or mirror here). Elsewhere it installs nothing and
# names what the suite needs.
set -euo pipefail
for_tests=0
list=0
arch=
while (($# > 0)); do
  case "$1" in
    --tests) for_tests=1 ;;
    --list) list=1 ;;
    --arch)
      arch="${2:-}"
      [[ $arch == arm64 ]] || { echo "rigcheck setup: --arch takes arm64 (got '$arch')" >&2; exit 2; }
      shift ;;
    *) echo "rigcheck setup: unknown option $1 (known: --tests, --arch arm64, --list)" >&2; exit 2 ;;
  esac
  shift
done

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  ccache  # cmake/ccache.cmake: a second build on this machine (a fresh clone in CI) reuses the objects
  libbenchmark-dev libgtest-dev libgmock-dev
  libtorch-dev libdnnl-dev libopenblas-dev
  ocl-icd-opencl-dev opencl-headers  # Debian's dnnl CMake config requires OpenCL (GPU runtime OCL)
  libfccp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  fio util-linux procps
  libhwloc-dev libcpuinfo-dev  # cache sizes where sysfs is silent (VMs)
  gnuplot-nox  # draws the plots of report.html, compare.html, history.html (SVG terminal)
  libsqlitecpp-dev libsqlite3-dev  # the results store (rigcheck store, docs/store.md): SQLite through SQLiteCpp
  libpq-dev  # the results store's PostgreSQL back end (rigcheck store --db postgresql://..., docs/store.md)
  libssl-dev  # SHA-256 of run files and store records through libcrypto, with the CPU's SHA extensions
  clang  # scripts/fuzz.sh; its libFuzzer and sanitizer runtimes: below (clang_runtimes)
)
# The browser test of report.html (tests/bench/report/html/html_chromium.sh) opens the pages in headless Chromium and
# checks that the guide's Chinese quotes render with a CJK font: chromium and fonts-noto-cjk (16
# packages with the libraries chromium pulls in: 172 MB to download, about 380 MB installed; on the
# 2-core CI machine about 4 s to download and 15 s to install).
# For the tests (--tests, which scripts/test.sh passes) unless RIGCHECK_BROWSER=0 (the test then
# skips and says why); RIGCHECK_BROWSER=1 installs them in any case.
browser="${RIGCHECK_BROWSER:-$for_tests}"

# The distribution, from os-release: ID and VERSION_ID (RIGCHECK_OS_RELEASE names another file, for
# the tests of this script).
os_release=${RIGCHECK_OS_RELEASE:-/etc/os-release}
os_id=$( . "$os_release" 2>/dev/null && echo "${ID:-}")
os_version=$( . "$os_release" 2>/dev/null && echo "${VERSION_ID:-}")
os_name=$( . "$os_release" 2>/dev/null && echo "${PRETTY_NAME:-}")
case "$os_id:$os_version" in
  debian:12 | debian:13 | ubuntu:22.04 | ubuntu:24.04) known_os=1 ;;
  *) known_os=0 ;;
esac
# Ubuntu has Chromium only as a snap (its chromium-browser package installs the snap), which a
# container or chroot cannot run: the browser test skips there and says why.
if [[ $os_id == ubuntu && -z ${RIGCHECK_BROWSER:-} ]]; then browser=0; fi
# The GPU pack's bare-root test (tests/gpu/gpu_bare_root.sh) builds a minimal Debian root once per
# machine with debootstrap (--variant=minbase, cached) and runs the pack there under chroot.
if [[ $for_tests == 1 ]]; then PACKAGES+=(debootstrap); fi
if [[ $browser == 1 ]]; then PACKAGES+=(chromium fonts-noto-cjk); fi
# scripts/check-sizes.sh (ctest layout_sizes) measures functions with universal-ctags.
if [[ $for_tests == 1 ]]; then PACKAGES+=(universal-ctags); fi
# The sources' layout is clang-format 14's (.clang-format; tests/layout/format.sh): Debian 12's. Other
# releases have another major version, which lays some constructs out otherwise: the check skips there.
if [[ $for_tests == 1 && $os_id:$os_version == debian:12 ]]; then PACKAGES+=(clang-format); fi
# The Slurm test (ctest comm_slurm_cluster, scripts/slurm-cluster.sh): Debian's Slurm 22.05 and
# munge. Their services are not started by the install here (no init); the script starts its own.
if [[ $for_tests == 1 ]]; then PACKAGES+=(slurmctld slurmd slurm-client munge); fi
# The exports' consumers (ctest export_gbench, export_openmetrics, export_junit, docs/exports.md):
# Google Benchmark's compare.py with the scipy and numpy its U test imports (run by Debian's
# /usr/bin/python3; the suite itself has no Python), promtool, junitparser.
if [[ $for_tests == 1 ]]; then PACKAGES+=(libbenchmark-tools python3-scipy python3-numpy prometheus junitparser); fi
# The results store's tests (tests/bench/store/): sqlite3 makes a store of a newer schema version
# (store_cli_roundtrip); postgresql, the throw-away cluster of store_postgresql (initdb, pg_ctl).
if [[ $for_tests == 1 ]]; then PACKAGES+=(sqlite3 postgresql); fi
# The emulated 2-socket NUMA machine (scripts/vm-numa.sh, ctest vm_numa): QEMU's x86-64 system emulator
# boots a debootstrap root (debootstrap, above) made into an ext4 image and reads the results back from
# another (mkfs.ext4 -d, debugfs: e2fsprogs) without mounting either here.
if [[ $for_tests == 1 ]]; then PACKAGES+=(qemu-system-x86 e2fsprogs); fi
# The aarch64 cross build (--arch arm64, docs/arm.md): Debian's cross compiler (g++ 12 for
# aarch64-linux-gnu, with its own libstdc++ and libgomp) and qemu-user (qemu-aarch64 runs the arm64
# binaries here: ctest -L arm64). The arm64 libraries are not installed beside the amd64 ones (not all
# are Multi-Arch: same): scripts/arm64-sysroot.sh unpacks them into a sysroot, below.
if [[ $arch == arm64 ]]; then PACKAGES+=(g++-aarch64-linux-gnu qemu-user); fi

# `clang -fsanitize=fuzzer,address,undefined` (scripts/fuzz.sh) links the libFuzzer and sanitizer
# runtimes of the distribution's clang, packaged per LLVM version (Debian 12: 14, Debian 13: 19),
# which clang only recommends (and apt-get runs here without recommends). The version is the one the
# installed `clang` points at (/usr/bin/clang -> /usr/lib/llvm-N/bin/clang), else the one the
# distribution's `clang` package depends on (apt-cache, after apt-get update).
clang_major() {
  local target
  target=$(readlink -f /usr/bin/clang 2>/dev/null) || true
  if [[ $target =~ /llvm-([0-9]+)/ ]]; then echo "${BASH_REMATCH[1]}"; return; fi
  apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -1
}
# The runtime packages of clang MAJOR that the distribution has: libfuzzer-N-dev, and libclang-rt-N-dev
# where the runtimes have a package of their own (from LLVM 14 in Debian 12; before, they are part of
# libclang-common-N-dev, which clang depends on).
clang_runtimes() {
  local p
  for p in "libfuzzer-$1-dev" "libclang-rt-$1-dev"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
      echo "$p"
    fi
  done
}
missing_of() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then echo "$p"; fi
  done
}

# --list: the packages named above, one a line, and nothing installed (clang's runtimes, whose names
# follow the installed clang, are not among them). scripts/test-debian13.sh keys its root by this list.
if ((list)); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

major=$(clang_major)
if [[ -n $major ]]; then mapfile -t runtimes < <(clang_runtimes "$major"); PACKAGES+=("${runtimes[@]}"); fi
mapfile -t missing < <(missing_of "${PACKAGES[@]}")

if ((${#missing[@]} == 0)) && [[ -z $arch && -n $major ]]; then
  exit 0
fi
if ((!known_os)); then
  echo "rigcheck setup: ${os_name:-this system (no $os_release)} is not a distribution this script knows" \
    "(Debian 12 or 13, Ubuntu 22.04 or 24.04: docs/distributions.md); it installs nothing here." >&2
  runtimes_why=
  [[ -n $major ]] || runtimes_why=" and clang's libFuzzer and sanitizer runtimes (Debian: libfuzzer-N-dev libclang-rt-N-dev for clang N)"
  echo "rigcheck setup: the suite needs, as Debian names them: ${PACKAGES[*]}$runtimes_why; install them, then run" \
    "scripts/build.sh" >&2
  exit 1
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "rigcheck setup: need root or sudo to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get download of :arm64 packages (the sysroot) needs the architecture in dpkg and its lists.
updated=0
if [[ $arch == arm64 ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${SUDO[@]}" dpkg --add-architecture arm64
  "${SUDO[@]}" apt-get update -qq
  updated=1
fi
if ((${#missing[@]} > 0)) || [[ -z $major ]]; then
  ((updated)) || "${SUDO[@]}" apt-get update -qq
  updated=1
fi
if [[ -z $major ]]; then
  major=$(clang_major)
  [[ -n $major ]] || { echo "rigcheck setup: the distribution's clang package depends on no clang-N (apt-cache depends clang)" >&2; exit 1; }
  mapfile -t runtimes < <(clang_runtimes "$major")
  mapfile -t more < <(missing_of "${runtimes[@]}")
  missing+=("${more[@]}")
fi
if ((${#missing[@]} > 0)); then
  echo "rigcheck setup: installing ${missing[*]}" >&2
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [[ $arch == arm64 ]]; then "$(dirname "$0")/arm64-sysroot.sh"; fi
echo "rigcheck setup: done" >&2
