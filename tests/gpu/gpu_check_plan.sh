#!/usr/bin/env bash
# scripts/gpu-check.sh's plan and floors, on stand-ins for a GPU machine: a fake nvidia-smi (its
# driver and the CUDA version it supports), a fake python3 (torch with or without CUDA), a fake
# cmake (the build here: it records its arguments and lays out stand-in binaries), fake toolkit
# layouts (CUDA_HOME with an nvcc and a libcublasLt, or nothing) and a fake getconf (the glibc).
# The pack is the one gpu_pack_make made from this build (its real rigcheck runs the gpu area).
#   present     an H100 image with a CUDA 13 toolkit and a CUDA torch: the plan, printed before any
#               step, runs gpu_gemm before gpu_model_memory and fits 480 s; gpu_model_memory is
#               planned (not starved by the build's and the peers' caps); the run and the summary
#               follow it; the output folder gives back everything (8 files, two folders down)
#   budget      --plan-only at 600 s (gpu_transfer and the peers come in) and 300 s (gpu_gemm kept,
#               gpu_model_memory and its build left out for time, gpu_transfer in what that frees)
#   host_build  a driver for CUDA 12.8 (too old for the pack's CUDA 13 runtime) and a CUDA 12.8
#               toolkit here: gpu_gemm and gpu_transfer are built here, the build inside the plan
#   absent      no toolkit, no torch: the plan names the claims this host cannot measure and what
#               it would need
#   old_driver  a driver for CUDA 12.4 and no toolkit it runs: exit 5 in seconds, before Python,
#               with the reason; again with this machine's CUDA 13 toolkit, too new for the driver
#   old_glibc   glibc 2.35 below the pack's floor: exit 5 in seconds with the reason; docs/gpu.md
#               states the floor the pack's MANIFEST.txt measured
# usage: gpu_check_plan.sh BUILD_DIR SOURCE_DIR MODE PACK_DIR
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
build=$1 src=$2 mode=$3 given=$4
source "$(dirname "$0")/gpu_check_lib.sh"
[[ -x $build/bin/gpu_gemm && -x $build/bin/gpu_transfer ]] ||
  { echo "SKIP: no CUDA benchmarks built here (RIGCHECK_WITH_CUDA=OFF)"; exit 77; }
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: a GPU is here"; exit 77
fi
[[ -d $given ]] || fail "no pack at $given (gpu_pack_make failed?)"
cp -a "$given" "$tmp/pack" || fail "cannot copy the pack"
pack=$tmp/pack
f=$tmp/fake
mkdir -p "$f" "$tmp/empty"

# smi NAME DRIVER CUDA: the fake nvidia-smi.
smi() {
  cat >"$f/nvidia-smi" <<EOS
#!/bin/sh
case "\$*" in
  -L) echo "GPU 0: $1 (UUID: GPU-stand-in)" ;;
  -q) printf 'Driver Version                            : $2\nCUDA Version                              : $3\n' ;;
  *name*) echo "$1" ;; *driver_version*) echo "$2" ;; *compute_cap*) echo "9.0" ;;
  *) echo "stand-in" ;;
esac
EOS
}
# python TORCH_CUDA|none: the fake python3; it leaves a mark that it ran.
python() {
  {
    echo '#!/bin/sh'
    echo "cat >/dev/null; touch '$tmp/python-ran'; echo site=/nonexistent"
    if [[ $1 == none ]]; then echo "echo \"torch_error=No module named 'torch'\""
    else echo "echo torch_version=2.11.0+cu${1/./}; echo torch_cuda=$1"
      echo "echo torch_cmake=/nonexistent; echo torch_cudnn=91000"
    fi
  } >"$f/python3"
}
# standin NAME: a benchmark's stand-in that notes it ran (the run's order) and skips.
standin() {
  printf '#!/bin/sh\necho %s >>"%s/order.log"\necho "SKIP: no GPU behind the stand-in"\nexit 77\n' "$1" "$tmp" >"$f/$1"
}
for b in gpu_gemm gpu_transfer gpu_model_memory gpu_torch_peer; do standin "$b"; done
# The build here: records each call; --build lays out the stand-ins of the targets asked for.
cat >"$f/cmake" <<EOS
#!/bin/bash
echo "\$*" >>'$tmp/cmake.log'
if [[ \$1 == --build ]]; then
  mkdir -p "\$2/bin"
  for t in \$(echo "\$*" | sed -n 's/.*--target //p'); do cp '$f'/"\$t" "\$2/bin/"; done
  exit 0
fi
while [[ \$# -gt 0 ]]; do [[ \$1 == -B ]] && bt=\$2; shift; done
mkdir -p "\$bt" && printf 'RIGCHECK_WITH_TORCH:BOOL=ON\nRIGCHECK_WITH_CUDA:BOOL=ON\n' >"\$bt/CMakeCache.txt"
EOS
chmod +x "$f"/*
# check ARGS...: gpu-check.sh with the stand-ins first on PATH; $rc, $secs, $log, $s (the summary
# given back), $pre (the preflight given back).
check() {
  rm -rf "$tmp/out" "$tmp/back" "$tmp/python-ran" "$tmp/order.log" "$tmp/cmake.log"
  chmod +x "$f"/*
  local t0=$SECONDS
  OUT= PATH=$f:${path:-$PATH} CUDA_HOME=${cuda_home:-/usr/local/cuda} "${wrap[@]}" bash "$src/scripts/gpu-check.sh" \
    --pack "$pack" --out "$tmp/out" --jobs 1 "$@" >"$tmp/check.log" 2>&1
  rc=$? secs=$((SECONDS - t0)) log=$tmp/check.log
  cat "$log"
  comes_back "$tmp/out" "$tmp/back"
  s=$tmp/back/summary.txt pre=$tmp/back/preflight.txt
}
# steps_of FILE: the plan's step names in order, space-separated.
steps_of() { sed -n 's/^plan: //p' "$1" | sed 's/ = .*//' | tr ';' '\n' | awk '{ printf "%s%s", sep, $1; sep = " " }'; }
wrap=()
path=

case $mode in
present)
  smi "NVIDIA H100 80GB HBM3" 580.95.05 13.0
  python 13.0
  check
  [[ $rc -eq 0 ]] || fail "exit $rc, not 0 (complete)"
  [[ $(steps_of "$s") == "precheck configure build gpu_gemm gpu_model_memory inventory+report finish" ]] ||
    fail "the plan's order: $(steps_of "$s")"
  total=$(sed -n 's/^plan: .* = \([0-9]*\) s of 480 .*/\1/p' "$s")
  [[ -n $total ]] && ((total <= 480)) || fail "the plan does not fit 480 s: $(grep '^plan:' "$s")"
  grep -q '^plan: .*gpu_model_memory [0-9]* s (GPU-1)' "$s" || fail "gpu_model_memory (GPU-1) is not planned"
  grep -q '^plan: .*gpu_gemm [0-9]* s (GPU-3 GPU-4 PWR-1 PWR-2 THM-1)' "$s" || fail "gpu_gemm's claims are not named"
  grep -q '^left out for time: gpu_transfer (60 s); peers' "$s" ||
    fail "what is left out for time: $(grep '^left out' "$s")"
  cmp -s <(grep -E '^(plan|left out)' "$pre") <(grep -E '^(plan|left out)' "$s") || fail "the preflight's plan differs"
  p=$(grep -n '\] plan: ' "$log" | head -1 | cut -d: -f1)
  c=$(grep -n 'step configure: budget' "$log" | head -1 | cut -d: -f1)
  [[ -n $p && -n $c ]] && ((p < c)) || fail "the plan is not printed before the first step after the precheck"
  grep -q -- '--build .* --target gpu_model_memory gpu_torch_peer$' "$tmp/cmake.log" ||
    fail "the build here is not the LibTorch targets alone: $(grep -- --build "$tmp/cmake.log")"
  m=$(ls "$tmp"/back/res/run/*/manifest.csv)
  [[ $(cut -d, -f1 "$m" | sed 1d | paste -sd' ') == "gpu_gemm gpu_model_memory" ]] ||
    fail "the run's order: $(cut -d, -f1 "$m" | sed 1d | paste -sd' ')"
  grep -q '^steps: precheck [0-9]*s ok; configure [0-9]*s ok; build [0-9]*s ok; run [0-9]*s exit 0' "$s" ||
    fail "the steps: $(grep '^steps' "$s")"
  echo "ok: present: $(grep '^plan:' "$s")"
  ;;
budget)
  smi "NVIDIA H100 80GB HBM3" 580.95.05 13.0
  python 13.0
  check --plan-only --budget 600
  [[ $rc -eq 0 ]] || fail "--plan-only exited $rc"
  ((secs <= 30)) || fail "--plan-only took $secs s"
  want="precheck configure build gpu_gemm gpu_model_memory gpu_transfer inventory+report peers finish"
  [[ $(steps_of "$s") == "$want" ]] ||
    fail "the plan at 600 s: $(steps_of "$s")"
  [[ ! -s $tmp/cmake.log ]] || fail "--plan-only ran cmake"
  grep -q '^steps: precheck [0-9]*s ok; total' "$s" || fail "--plan-only ran steps: $(grep '^steps' "$s")"
  echo "ok: 600 s: $(grep '^plan:' "$s")"
  check --plan-only --budget 300
  [[ $(steps_of "$s") == "precheck gpu_gemm gpu_transfer inventory+report finish" ]] ||
    fail "the plan at 300 s: $(steps_of "$s")"
  grep -q '^left out for time: gpu_model_memory (290 s)$' "$s" ||
    fail "what 300 s leaves out: $(grep '^left out' "$s")"
  echo "ok: 300 s: $(grep '^plan:' "$s"); $(grep '^left out' "$s")"
  ;;
host_build)
  smi "NVIDIA H100 80GB HBM3" 570.124.06 12.8
  python 12.8
  mkdir -p "$tmp/cuda12/bin" "$tmp/cuda12/lib64"
  printf '#!/bin/sh\necho "Cuda compilation tools, release 12.8, V12.8.93"\n' >"$tmp/cuda12/bin/nvcc"
  chmod +x "$tmp/cuda12/bin/nvcc"
  touch "$tmp/cuda12/lib64/libcublasLt.so.12"
  strip_tool nvcc
  path=$stripped cuda_home=$tmp/cuda12
  check
  [[ $rc -eq 0 ]] || fail "exit $rc, not 0"
  [[ $(steps_of "$s") == "precheck configure build gpu_gemm gpu_model_memory inventory+report finish" ]] ||
    fail "the plan: $(steps_of "$s")"
  grep -q '^built here: gpu_gemm (the pack.s: the driver 570.124.06 supports CUDA 12.8' "$s" ||
    fail "the summary does not say why the GPU binaries are built here: $(grep '^built here' "$s")"
  grep -q -- "-DRIGCHECK_WITH_CUDA=ON .*-DCMAKE_CUDA_COMPILER=$tmp/cuda12/bin/nvcc" "$tmp/cmake.log" ||
    fail "the configure does not build CUDA with this toolkit: $(head -1 "$tmp/cmake.log")"
  grep -q -- '--build .* --target gpu_gemm gpu_model_memory gpu_torch_peer$' "$tmp/cmake.log" ||
    fail "the build's targets: $(grep -- --build "$tmp/cmake.log")"
  [[ $(paste -sd' ' "$tmp/order.log") == "gpu_gemm gpu_model_memory" ]] ||
    fail "the run's order: $(paste -sd' ' "$tmp/order.log")"
  echo "ok: host_build: $(grep '^built here' "$s")"
  ;;
absent)
  unshare -m true 2>/dev/null || { echo "SKIP: cannot make a mount namespace here (unshare -m needs root)"; exit 77; }
  smi "NVIDIA H100 80GB HBM3" 580.95.05 13.0
  python none
  strip_tool nvcc
  path=$stripped
  cuda=$(realpath /usr/local/cuda)
  wrap=(unshare -m bash -c "mount --bind '$tmp/empty' '$cuda' && exec \"\$@\"" -)
  check --plan-only
  [[ $rc -eq 0 ]] || fail "--plan-only exited $rc"
  [[ $(steps_of "$s") == "precheck gpu_transfer inventory+report finish" ]] || fail "the plan: $(steps_of "$s")"
  want='^cannot measure here: GPU-3 GPU-4 PWR-1 PWR-2 THM-1 (gpu_gemm: the pack.s: libcublasLt.so.13 not found;'
  grep -q "$want no CUDA toolkit .*; needs the CUDA 13 toolkit.s cuBLASLt" "$s" ||
    fail "the summary does not name gpu_gemm's claims and what to install: $(grep '^cannot' "$s")"
  want='^cannot measure here: .*; GPU-1 (gpu_model_memory: torch side not available (missing nvcc.*python3 with torch'
  grep -q "$want.*needs cmake, g++, nvcc (a CUDA toolkit) and PyTorch with CUDA)" "$s" ||
    fail "the summary does not name GPU-1 and what to install: $(grep '^cannot' "$s")"
  echo "ok: absent: $(grep '^cannot' "$s")"
  ;;
old_driver)
  smi "NVIDIA H100 80GB HBM3" 550.54.15 12.4
  python 12.4
  strip_tool nvcc
  path=$stripped cuda_home=$tmp/empty
  check
  [[ $rc -eq 5 ]] || fail "exit $rc, not 5"
  ((secs <= 10)) || fail "$secs s to stop at the driver's floor"
  [[ ! -e $tmp/python-ran ]] || fail "python3 ran before the stop"
  want='^rigcheck GPU check, .*: nothing measured: the pack cannot run here: the driver 550.54.15 supports CUDA 12.4;'
  want+=' the pack.s GPU binaries carry the CUDA 13.0 runtime and need a driver for CUDA 13 or newer;'
  grep -q "$want and no CUDA toolkit to build with here" "$s" ||
    fail "the headline: $(head -1 "$s")"
  echo "ok: old driver, no toolkit: exit 5 after $secs s"
  path= cuda_home=
  check
  [[ $rc -eq 5 ]] || fail "exit $rc, not 5 (this machine's CUDA 13 toolkit is too new for the driver)"
  grep -q "^rigcheck GPU check, .*CUDA toolkit 13.0 is newer than its driver supports (CUDA 12.4)" "$s" ||
    fail "the headline: $(head -1 "$s")"
  echo "ok: old driver, CUDA 13 toolkit: exit 5 after $secs s: $(head -1 "$s" | sed 's/.*: nothing/nothing/')"
  ;;
old_glibc)
  smi "NVIDIA H100 80GB HBM3" 580.95.05 13.0
  python 13.0
  printf '#!/bin/sh\n[ "$1" = GNU_LIBC_VERSION ] && echo "glibc 2.35" && exit 0\nexec /usr/bin/getconf "$@"\n' \
    >"$f/getconf"
  need=$(sed -n 's/^needs glibc: \([0-9.]*\).*/\1/p' "$pack/MANIFEST.txt")
  [[ -n $need ]] || fail "the pack's MANIFEST.txt has no 'needs glibc:' line"
  check
  [[ $rc -eq 5 ]] || fail "exit $rc, not 5"
  ((secs <= 10)) || fail "$secs s to stop at the glibc floor"
  [[ ! -e $tmp/python-ran ]] || fail "python3 ran before the stop"
  want="^rigcheck GPU check, .*: nothing measured: the pack cannot run here:"
  grep -q "$want this machine's glibc 2.35 is older than the pack's floor $need (GLIBC_$need, by " "$s" ||
    fail "the headline: $(head -1 "$s")"
  grep -q "glibc $need or newer" "$src/docs/gpu.md" || fail "docs/gpu.md does not state the pack's glibc floor $need"
  echo "ok: old glibc: exit 5 after $secs s; the floor $need is the one docs/gpu.md states"
  ;;
*) echo "usage: gpu_check_plan.sh BUILD_DIR SOURCE_DIR present|budget|host_build|absent|old_driver|old_glibc PACK_DIR"
   exit 2 ;;
esac
