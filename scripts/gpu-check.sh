#!/usr/bin/env bash
# The whole GPU section on a GPU machine in one call (< 8 minutes): builds the suite there
# (CUDA benchmarks for that GPU's architecture, LibTorch ones against the PyTorch installed
# there), runs the torch peer side by side with the suite's own kernels (A B A B), runs
# `rigcheck run --only gpu` (inventory included), and leaves a normal run folder under results/
# with the peer figures in its peers/ subfolder; --copy-to copies that folder elsewhere.
#
#   scripts/gpu-check.sh [--copy-to DIR] [--profile quick|tiny|full] [--jobs N]
#   scripts/gpu-check.sh --pack     # on a Debian build machine: bundle the build dependencies a
#                                   # bare CUDA image may lack into build-gpu-deps/ (carry it along)
#
# Exit: 0 run done (some benchmarks may have skipped), 1 run done with failures, 2 usage,
# 3 build failed, 4 no GPU here.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
say() { printf '[gpu-check %4ss] %s\n' "$(elapsed)" "$*" >&2; }

copy_to=${OUT:-}
profile=quick
jobs=$(nproc 2>/dev/null || echo 4)
pack=no
while [[ $# -gt 0 ]]; do
  case $1 in
    --copy-to) copy_to=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --pack) pack=yes; shift ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

deps=$root/build-gpu-deps
if [[ $pack == yes ]]; then
  # Headers, CMake configs and libraries of the Debian packages the build needs that a CUDA
  # image usually lacks (fmt, Google Benchmark, GoogleTest, CLI11, fast-cpp-csv-parser), laid
  # out as under /usr so that their CMake configs stay valid when relocated.
  rm -rf "$deps"
  mkdir -p "$deps"
  ml=lib/x86_64-linux-gnu
  for p in include/fmt include/benchmark include/gtest include/gmock include/CLI include/libfccp \
           $ml/cmake/fmt $ml/cmake/benchmark $ml/cmake/GTest share/cmake/CLI11; do
    if [[ -e /usr/$p ]]; then
      mkdir -p "$deps/usr/$(dirname "$p")"
      cp -a "/usr/$p" "$deps/usr/$p"
    else
      say "warning: /usr/$p is absent here (install the Debian dev packages: scripts/setup.sh)"
    fi
  done
  mkdir -p "$deps/usr/$ml"
  cp -a /usr/$ml/libfmt.so* /usr/$ml/libbenchmark.so* /usr/$ml/libbenchmark_main.* /usr/$ml/libgtest*.a \
        /usr/$ml/libgmock*.a "$deps/usr/$ml/" 2>/dev/null
  du -sh "$deps" >&2
  say "packed into $deps: pass it to the device call as carry: [\"build-gpu-deps\"]"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  say "no GPU here (nvidia-smi absent or sees no device): nothing to do"
  exit 4
fi
nvidia-smi -L >&2

# ------------------------------------------------------------------ build
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
arch=${arch:-90}
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
prefix=$torch_prefix
if [[ -d $deps/usr ]]; then
  prefix="$deps/usr;$prefix"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
bdir=$root/build-gpu
say "configure: CUDA architecture sm_$arch, LibTorch from '${torch_prefix:-none found}', build in $bdir"
export PATH=/usr/local/cuda/bin:$PATH
configure() {  # extra cmake args...
  cmake -S "$root" -B "$bdir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    -DCUDAToolkit_ROOT=/usr/local/cuda -DCMAKE_PREFIX_PATH="$prefix" "$@" >>"$root/build-gpu-configure.log" 2>&1
}
if [[ ! -f $bdir/CMakeCache.txt ]]; then
  : >"$root/build-gpu-configure.log"
  if ! configure && [[ -n $torch_prefix ]]; then
    # LibTorch's CMake config can refuse this toolkit: keep the CUDA benchmarks, drop LibTorch's.
    say "configure with LibTorch failed; again without it (no training memory, no torch peer)"
    rm -rf "$bdir"
    configure -DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON
  fi
  if [[ ! -f $bdir/CMakeCache.txt ]] || ! grep -q "rigcheck configure summary" "$root/build-gpu-configure.log"; then
    tail -40 "$root/build-gpu-configure.log" >&2
    say "configure failed (log: build-gpu-configure.log). Missing Debian build dependencies? Run"
    say "'scripts/gpu-check.sh --pack' on a Debian machine and carry build-gpu-deps/ along."
    rm -rf "$bdir"
    exit 3
  fi
fi
grep -A9 "rigcheck configure summary" "$root/build-gpu-configure.log" >&2 || true
grep "gpu: LibTorch with CUDA" "$root/build-gpu-configure.log" >&2 || true
keep_going=(-k)
[[ ${#gen[@]} -gt 0 ]] && keep_going=(-k 0)
if ! timeout 300 cmake --build "$bdir" -j "$jobs" -- "${keep_going[@]}" >"$root/build-gpu-build.log" 2>&1; then
  grep -E "error|FAILED" "$root/build-gpu-build.log" | head -20 >&2
  say "the build had errors (log: build-gpu-build.log); going on with what was built"
fi
if [[ ! -x $bdir/bin/rigcheck ]]; then
  say "rigcheck itself was not built"
  exit 3
fi
bin=$bdir/bin
for b in gpu_gemm gpu_transfer gpu_model_memory gpu_torch_peer; do
  [[ -x $bin/$b ]] || say "$b not built: $(cat "$bin/$b.not-built" 2>/dev/null)"
done
say "built"

# ------------------------------------------------------------------ peers, A B A B
peers=$(mktemp -d)
peer_run() {  # stem, binary, args...
  local stem=$1 exe=$2
  shift 2
  [[ -x $bin/$exe ]] || return 0
  timeout 120 "$bin/$exe" --profile "$profile" --out "$peers" --stem "$stem" --run-id peers "$@" \
    >>"$peers/peers.log" 2>&1 || say "$stem: exit $?"
}
if [[ $profile != tiny ]]; then
  for round in 1 2; do
    peer_run "suite_gemm_bf16_$round" gpu_gemm --filter '^gemm_tc/bf16/n8192$' --reps 10
    peer_run "torch_matmul_bf16_$round" gpu_torch_peer --filter '^torch_peer/matmul_bf16/n8192$' --reps 10
    peer_run "suite_copy_d2d_$round" gpu_transfer --filter '^gpu_transfer/d2d/1024MiB$' --sizes 1G --reps 10
    peer_run "torch_copy_$round" gpu_torch_peer --filter '^torch_peer/copy/1024MiB$' --sizes 1G --reps 10
  done
  say "peers done"
fi

# ------------------------------------------------------------------ the gpu area + inventory
mkdir -p "$root/results"
left=$((470 - $(elapsed))); ((left < 120)) && left=120
out=$(timeout "$left" "$bin/rigcheck" run --profile "$profile" --only gpu --out "$root/results" \
      --timeout-scale 0.5 2>&1 | tee /dev/stderr)
rc=${PIPESTATUS[0]}
run=$(printf '%s\n' "$out" | sed -n 's/^Report: \(.*\)\/report.md$/\1/p' | tail -1)
if [[ -z $run || ! -d $run ]]; then
  say "rigcheck run left no run folder (exit $rc)"
  exit 1
fi

# ------------------------------------------------------------------ side by side
mkdir -p "$run/peers"
cp -a "$peers"/. "$run/peers/"
rm -rf "$peers"
nvidia-smi -q >"$run/peers/nvidia-smi-q.txt" 2>&1 || true
# Median of one metric over every *.csv of a stem prefix (status ok rows; params hold no commas).
median_of() {  # stem-prefix metric
  cat "$run/peers/$1"_*.csv 2>/dev/null | awk -F, -v m="$2" '$6 == m && $10 == "ok" { print $7 }' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
{
  echo "comparison,suite_median,peer_median,unit,suite_over_peer"
  for row in "bf16 GEMM 8192^3 (cublasLt vs torch.matmul):suite_gemm_bf16:torch_matmul_bf16:gflops:GFLOP/s" \
             "device-to-device copy 1 GiB (cudaMemcpyAsync vs Tensor.copy_):suite_copy_d2d:torch_copy:gbps:GB/s"; do
    IFS=: read -r what a b metric unit <<<"$row"
    x=$(median_of "$a" "$metric")
    y=$(median_of "$b" "$metric")
    ratio=$(awk -v x="$x" -v y="$y" 'BEGIN { if (x == "" || y == "" || y == 0) print ""; else printf "%.4f", x / y }')
    echo "\"$what\",$x,$y,$unit,$ratio"
  done
} >"$run/peers/summary.csv"
say "side by side ($run/peers/summary.csv):"
column -s, -t <"$run/peers/summary.csv" >&2 2>/dev/null || cat "$run/peers/summary.csv" >&2

if [[ -n $copy_to ]]; then
  # The copy is named after the GPU too (e.g. vm-20261202T150000Z-NVIDIA-H200).
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr -c 'A-Za-z0-9\n' - | tr -s - | sed 's/-$//')
  dest="$copy_to/$(basename "$run")${gpu:+-$gpu}"
  mkdir -p "$copy_to" && cp -a "$run" "$dest" && say "copied to $dest"
fi
say "done: $run (exit $rc)"
exit $((rc == 0 ? 0 : 1))
