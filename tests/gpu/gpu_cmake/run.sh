#!/usr/bin/env bash
# CMake logic of the GPU build tested without a GPU: nvtx_shim (cmake/torch_cuda.cmake) and
# find_nccl (cmake/find_nccl.cmake). usage: run.sh MODE SOURCE_DIR WORK_DIR
source "$(dirname "$0")/../../support/lib.sh"
set +e  # each step's exit status is checked where it matters
mode=$1
src=$2
work=$3/$mode
here=$src/tests/gpu/gpu_cmake
rm -rf "$work"
mkdir -p "$work"
case $mode in
nvtx_shim)
  [[ -e /usr/local/cuda/include/nvtx3/nvToolsExt.h || -e /usr/local/cuda/targets/x86_64-linux/include/nvtx3/nvToolsExt.h ]] ||
    { echo "SKIP: no CUDA toolkit with nvtx3 in /usr/local/cuda"; exit 77; }
  export CUDAToolkit_ROOT=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH
  if cmake -S "$here/nvtx_shim" -B "$work/without" -DRIGCHECK_ROOT="$src" -DWITH_SHIM=OFF >"$work/without.log" 2>&1; then
    echo "note: this toolkit has libnvToolsExt (CUDA < 12.9): the failure without the stand-in cannot be shown here"
  else
    grep -q "CUDA::nvToolsExt" "$work/without.log" || { cat "$work/without.log"; fail "configure without the stand-in failed for another reason"; }
    echo "ok: without the stand-in, generating fails: $(grep -m1 -A1 'link interface' "$work/without.log" | tr -s ' \n' ' ')"
  fi
  cmake -S "$here/nvtx_shim" -B "$work/with" -DRIGCHECK_ROOT="$src" -DWITH_SHIM=ON >"$work/with.log" 2>&1 ||
    { cat "$work/with.log"; fail "configure with cmake/torch_cuda.cmake"; }
  cmake --build "$work/with" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build of the probe against the stand-in"; }
  echo "ok: with cmake/torch_cuda.cmake, torch::nvtoolsext resolves to the nvtx3 headers and the probe builds"
  ;;
find_nccl)
  fake=$work/fake
  mkdir -p "$fake/site-packages/nvidia/nccl/include" "$fake/site-packages/nvidia/nccl/lib" "$fake/no-cuda" "$fake/bin"
  echo '#define NCCL_MAJOR 2' >"$fake/site-packages/nvidia/nccl/include/nccl.h"
  : >"$fake/site-packages/nvidia/nccl/lib/libnccl.so.2"
  cmake -S "$here/find_nccl" -B "$work/given" -DRIGCHECK_ROOT="$src" -DFAKE="$fake" -DSITE="$fake/site-packages" \
    >"$work/given.log" 2>&1 || { cat "$work/given.log"; fail "site-packages given"; }
  printf '#!/bin/sh\necho "%s;/nonexistent/site-packages"\n' "$fake/site-packages" >"$fake/bin/python3"
  chmod +x "$fake/bin/python3"
  PATH=$fake/bin:$PATH cmake -S "$here/find_nccl" -B "$work/asked" -DRIGCHECK_ROOT="$src" -DFAKE="$fake" \
    >"$work/asked.log" 2>&1 || { cat "$work/asked.log"; fail "site-packages asked of python3"; }
  echo "ok: NCCL found in pip's nvidia/nccl (libnccl.so.2 only), given and asked of python3: $(grep -o 'find_nccl: ok.*' "$work/asked.log")"
  ;;
*) echo "usage: run.sh nvtx_shim|find_nccl SOURCE_DIR WORK_DIR"; exit 2 ;;
esac
