#!/usr/bin/env bash
# Install the Debian packages rigcheck builds and runs with. Does nothing when all are present.
# CUDA and NCCL are not Debian packages: they are used from /usr/local/cuda when present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libbenchmark-dev libgtest-dev libgmock-dev
  libtorch-dev libdnnl-dev libopenblas-dev
  ocl-icd-opencl-dev opencl-headers  # Debian's dnnl CMake config requires OpenCL (GPU runtime OCL)
  libfccp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  fio util-linux procps
  libhwloc-dev libcpuinfo-dev  # cache sizes where sysfs is silent (VMs)
  gnuplot-nox  # draws the plots of report.html, compare.html, history.html (SVG terminal)
  # scripts/fuzz.sh: clang and libFuzzer. `clang -fsanitize=fuzzer,address,undefined` links the runtimes of
  # libclang-rt-14-dev, which clang only recommends (and apt-get runs here without recommends)
  clang libfuzzer-14-dev libclang-rt-14-dev
)
# Headless Chromium for the report.html browser test (tests/tool/html/html_chromium.sh), about 350 MB:
# installed only when asked, RIGCHECK_BROWSER=1; without it that test skips and says why.
if [[ "${RIGCHECK_BROWSER:-0}" == 1 ]]; then PACKAGES+=(chromium); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "rigcheck setup: installing ${missing[*]}" >&2
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
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "rigcheck setup: done" >&2
