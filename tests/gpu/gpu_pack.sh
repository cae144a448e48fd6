#!/usr/bin/env bash
# The GPU pack and the GPU check without a GPU. A pack is made from this build tree's
# binaries (scripts/gpu-pack.sh --from BUILD: rebuilding the pack's own preset is too slow for CI;
# the default build carries more libraries, oneDNN and OpenBLAS, so its size limit here is larger),
# in a temporary folder outside the source tree, then one of:
#   relocatable   every library ldd resolves for the pack's binaries that a GPU image lacks lies in
#                 the pack's lib/; nothing unresolved; with the source tree (and the build tree in it)
#                 hidden by an empty folder mounted over it, each GPU binary runs with only lib/ on
#                 LD_LIBRARY_PATH and exits 77 naming the missing GPU, and the pack's rigcheck runs
#                 the gpu area and reports its claims not_measurable; and the size check refuses a
#                 pack over --max-mib
#   no_gpu        scripts/gpu-check.sh on this machine: the clean "no GPU" ending (exit 4) within
#                 60 s; what an output folder limited as a GPU machine's (8 files, two folders down)
#                 gives back is all the check leaves there: preflight.txt, summary.txt and one archive
#                 holding the result folder with its logs (comes_back)
#   no_cmake, no_python3   the same with that command stripped from PATH: still exit 4 (not 5 before
#                 the GPU probe), the summary saying `torch side: not available (missing cmake|python3`
#   missing_tool  a driver and a torch stand-in, the CUDA toolkit hidden (no nvcc, no cuBLASLt): the
#                 check goes on without the torch side and with gpu_gemm not_built (the reason in the
#                 run's manifest), runs the rest and ends "done, with parts missing" naming both (exit 3)
#   make          (ctest's fixture gpu_pack_make) makes the pack from BUILD_DIR into PACK_DIR, marked
#                 .from-build, for the modes above to check
# usage: gpu_pack.sh BUILD_DIR SOURCE_DIR MODE [PACK_DIR]
# PACK_DIR: check that pack (e.g. gpu-pack/ made by scripts/gpu-pack.sh) instead of making one from
# BUILD_DIR; it must then also hold the 60 MiB limit, unless it is the one `make` made from the build
# (the default build carries more libraries: 200 MiB).
tmp_template=/tmp/rigcheck-gpu-pack.XXXXXX
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
build=$1
src=$2
mode=$3
given=${4:-}
[[ -x $build/bin/gpu_gemm && -x $build/bin/gpu_transfer ]] || { echo "SKIP: no CUDA benchmarks built here (RIGCHECK_WITH_CUDA=OFF)"; exit 77; }
pack=$tmp/pack
# make_pack DIR: the pack of this build's binaries in DIR (the default build carries more libraries
# than the pack's own preset: 200 MiB).
make_pack() {
  bash "$src/scripts/gpu-pack.sh" --from "$build" --out "$1" --max-mib 200 >"$tmp/pack.log" 2>&1 ||
    { cat "$tmp/pack.log"; fail "gpu-pack.sh --from $build"; }
}
if [[ $mode == make ]]; then
  [[ -n $given ]] || fail "make: no PACK_DIR"
  rm -rf "$given"
  make_pack "$given"
  touch "$given/.from-build"
  echo "ok: packed from $build into $given: $(du -sh "$given" | cut -f1)"
  exit 0
fi
if [[ -n $given ]]; then
  [[ -d $given ]] || fail "no pack at $given (gpu_pack_make failed?)"
  pack=$(cd "$given" && pwd)
  limit=60
  [[ -e $pack/.from-build ]] && limit=200
  # A copy of its own, outside the tree hidden below: the modes change what they check.
  cp -a "$pack" "$tmp/pack" && pack=$tmp/pack || fail "cannot copy the pack"
  rm -f "$pack/.from-build"
  mib=$(( ($(du -sb "$pack" | cut -f1) + 1048575) / 1048576 ))
  ((mib <= limit)) || fail "the pack is $mib MiB, over $limit MiB"
  echo "ok: the given pack is $mib MiB"
else
  make_pack "$pack"
fi
for f in bin/rigcheck bin/gpu_gemm bin/gpu_transfer bin/gpu_model_memory.not-built share/rigcheck/data/claims.csv \
         deps/usr/include/fmt/format.h deps/fmt-first/fmt/format.h MANIFEST.txt; do
  [[ -e $pack/$f ]] || fail "no $f in the pack"
done
[[ ! -e $pack/bin/gpu_model_memory ]] || fail "the pack carries a LibTorch binary (built on the GPU machine instead)"
bins=()
for b in "$pack"/bin/*; do [[ -x $b && ! $b == *.not-built ]] && bins+=("$b"); done

source "$(dirname "$0")/gpu_check_lib.sh"

case $mode in
relocatable)
  # The libraries a GPU image has (glibc, the toolchain's runtime, the driver's, CUDA's and NCCL):
  # everything else must resolve inside the pack.
  image='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libcuda|libnvidia-|libcudart|libcublas|libcublasLt|libnccl|libcudnn|libnvrtc|libnvJitLink)\.'
  for b in "${bins[@]}"; do
    out=$(LD_LIBRARY_PATH=$pack/lib ldd "$b" 2>&1)
    if grep -q 'not found' <<<"$out"; then echo "$out"; fail "$(basename "$b"): unresolved libraries"; fi
    while read -r name arrow path _; do
      [[ $arrow == "=>" && ! $name =~ $image ]] || continue
      [[ $(realpath "$path") == "$(realpath "$pack")/lib/"* ]] || fail "$(basename "$b"): $name resolves to $path, outside the pack"
    done <<<"$out"
  done
  echo "ok: ldd of ${#bins[@]} binaries: nothing unresolved, every library a GPU image lacks from $pack/lib"
  # The C++ runtime is carried (an older image lacks this compiler's GLIBCXX/CXXABI), and no run
  # path has an empty entry (glibc reads it as the current folder).
  for l in libstdc++.so.6 libgcc_s.so.1; do [[ -e $pack/lib/$l ]] || fail "the pack does not carry $l"; done
  for b in "${bins[@]}"; do
    rp=$(readelf -d "$b" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p' | head -1)
    [[ $rp == '$ORIGIN/../lib'* ]] || fail "$(basename "$b"): run path '$rp' does not start with \$ORIGIN/../lib"
    [[ $rp != *::* && $rp != *: && $rp != :* ]] || fail "$(basename "$b"): run path '$rp' has an empty entry"
  done
  echo "ok: libstdc++ and libgcc_s carried; run paths without empty entries: $rp"
  if bash "$src/scripts/gpu-pack.sh" --from "$build" --out "$tmp/small" --max-mib 1 >"$tmp/small.log" 2>&1; then
    fail "gpu-pack.sh accepted a pack over --max-mib 1"
  fi
  grep -q "over the limit of 1 MiB" "$tmp/small.log" || { cat "$tmp/small.log"; fail "no clear line about the size limit"; }
  echo "ok: the size check refuses a pack over its limit: $(grep -o 'the pack is.*' "$tmp/small.log")"
  if [[ -e /dev/nvidia0 || -e /dev/nvidiactl ]]; then echo "SKIP: a GPU is here: the no-GPU runs do not apply"; exit 77; fi
  if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot make a mount namespace here (unshare -m needs root)"; exit 77; fi
  mkdir "$tmp/empty"
  cat >"$tmp/hidden.sh" <<EOF
set -u
mount --bind '$tmp/empty' '$src' || exit 90
[[ ! -e '$src/data' ]] || exit 91
cd '$tmp'
export LD_LIBRARY_PATH='$pack/lib'
unset RIGCHECK_DATA_DIR
for b in gpu_gemm gpu_transfer comm_allreduce_nccl; do
  [[ -x '$pack'/bin/\$b ]] || continue
  mkdir -p '$tmp'/out-\$b
  '$pack'/bin/\$b --profile tiny --reps 2 --out '$tmp'/out-\$b >'$tmp'/\$b.log 2>&1
  echo "\$b \$? \$(grep -m1 '^SKIP: ' '$tmp'/\$b.log)"
done
'$pack/bin/rigcheck' run --profile tiny --only gpu --out '$tmp/results' >'$tmp/run.log' 2>&1
echo "rigcheck \$?"
EOF
  unshare -m bash "$tmp/hidden.sh" >"$tmp/hidden.out" 2>&1
  rc=$?
  cat "$tmp/hidden.out"
  [[ $rc -eq 0 ]] || fail "the namespace script exited $rc (90: mount failed, 91: source still visible)"
  for b in gpu_gemm gpu_transfer comm_allreduce_nccl; do
    [[ -x $pack/bin/$b ]] || continue
    line=$(grep "^$b " "$tmp/hidden.out")
    [[ $line == "$b 77 SKIP: "* ]] || { cat "$tmp/$b.log"; fail "$b did not exit 77 with a SKIP line: $line"; }
    grep -qiE 'GPU|CUDA|driver' <<<"$line" || fail "$b's SKIP line does not name the missing GPU: $line"
  done
  grep -q '^rigcheck 0$' "$tmp/hidden.out" || { tail -20 "$tmp/run.log"; fail "the pack's rigcheck run failed"; }
  run=$(ls -d "$tmp"/results/*/ 2>/dev/null | head -1)
  [[ -n $run && -f $run/report.md ]] || fail "no report from the pack's rigcheck"
  for id in GPU-1 GPU-3 GPU-4 PWR-1 THM-1; do
    grep -q "^$id,.*,not_measurable," "$run/verdicts.csv" || fail "$id is not not_measurable in the hidden run"
  done
  grep -q '^GPU-1,.*gpu_count>=1 (this machine: 0)' "$run/verdicts.csv" || fail "GPU-1 does not say the GPU is missing"
  echo "ok: source tree hidden, only the pack's lib/ on LD_LIBRARY_PATH: every GPU binary exits 77 naming the GPU; rigcheck ran the gpu area"
  ;;
no_gpu|no_cmake|no_python3)
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then echo "SKIP: a GPU is here"; exit 77; fi
  path=$PATH
  if [[ $mode != no_gpu ]]; then strip_tool "${mode#no_}"; path=$stripped; fi
  t0=$(date +%s)
  OUT= PATH=$path bash "$src/scripts/gpu-check.sh" --pack "$pack" --out "$tmp/out" >"$tmp/check.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  cat "$tmp/check.log"
  [[ $rc -eq 4 ]] || fail "gpu-check.sh exited $rc, not 4 (nothing measured: no GPU)"
  ((secs <= 60)) || fail "gpu-check.sh took $secs s to find no GPU (limit 60 s)"
  grep -q 'nothing measured: no GPU here: ' "$tmp/check.log" || fail "no 'nothing measured: no GPU here' line"
  comes_back "$tmp/out" "$tmp/back"
  grep -q 'nothing measured: no GPU here' "$tmp/back/res/logs/gpu-check.log" || fail "the log in the archive lacks the ending"
  if [[ $mode != no_gpu ]]; then
    grep -q "^torch side: not available (missing ${mode#no_}" "$tmp/back/summary.txt" ||
      fail "the summary does not say the torch side lacks ${mode#no_}: $(grep 'torch side' "$tmp/back/summary.txt")"
  fi
  echo "ok: $mode: exit 4 after $secs s; $(grep '^torch side' "$tmp/back/summary.txt")"
  ;;
missing_tool)
  # A driver and a PyTorch with CUDA (stand-ins), and the CUDA toolkit hidden (an empty folder
  # mounted over it): no nvcc, no cuBLASLt. The check goes on without the torch side and without
  # gpu_gemm, runs what is left (every GPU binary skips: there is no GPU behind the stand-in) and
  # names both in the summary (exit 3).
  if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot make a mount namespace here (unshare -m needs root)"; exit 77; fi
  mkdir -p "$tmp/fake" "$tmp/empty"
  printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H200 (UUID: GPU-stand-in)" && exit 0\nexit 9\n' >"$tmp/fake/nvidia-smi"
  printf '#!/bin/sh\ncat >/dev/null\necho site=/nonexistent\necho torch_version=2.11.0+cu130\necho torch_cuda=13.0\necho torch_cmake=%s\necho torch_cudnn=91000\n' \
    "$tmp/torch" >"$tmp/fake/python3"
  chmod +x "$tmp/fake/nvidia-smi" "$tmp/fake/python3"
  strip_tool nvcc
  cuda=$(realpath /usr/local/cuda)
  t0=$(date +%s)
  OUT= PATH=$tmp/fake:$stripped unshare -m bash -c "mount --bind '$tmp/empty' '$cuda' || exit 90
    bash '$src/scripts/gpu-check.sh' --pack '$pack' --out '$tmp/out' --profile tiny" >"$tmp/check.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  cat "$tmp/check.log"
  [[ $rc -eq 3 ]] || fail "gpu-check.sh exited $rc, not 3 (done, with parts missing)"
  ((secs <= 120)) || fail "the check took $secs s (limit 120 s)"
  comes_back "$tmp/out" "$tmp/back"
  s=$tmp/back/summary.txt
  grep -q '^rigcheck GPU check, .*: done, with parts missing: ' "$s" || fail "no 'done, with parts missing' headline"
  grep -q '^torch side: not available (missing nvcc' "$s" || fail "the summary does not name nvcc: $(grep 'torch side' "$s")"
  grep -q 'gpu_gemm: not_built (libcublasLt' "$s" || fail "the summary does not say gpu_gemm is not_built for want of cuBLASLt"
  grep -q '^steps: .*run [0-9]*s exit' "$s" || fail "the run step did not run: $(grep '^steps' "$s")"
  for id in GPU-1 GPU-2 GPU-7 PWR-1 THM-1; do
    tr '\n' ' ' <"$s" | grep -q "verdicts: .*$id [a-z_]" || fail "the summary lacks $id's verdict"
  done
  grep -q '^suite vs torch: .*0 of 5 alternation' "$s" || fail "the summary does not say how many peer rounds ran"
  m=$(ls "$tmp"/back/res/run/*/manifest.csv 2>/dev/null | head -1)
  [[ -n $m ]] || fail "no run folder in the archive"
  grep -q '^gpu_gemm,.*not_built.*libcublasLt' "$m" || fail "the run's manifest does not record gpu_gemm not_built with the reason: $(grep gpu_gemm "$m")"
  grep -q '^gpu_transfer,' "$m" || fail "gpu_transfer was not run"
  grep -q '^benchmarks: gpu_gemm not_built; gpu_model_memory not_built; gpu_transfer skipped' "$s" || fail "the benchmarks line: $(grep '^benchmarks' "$s")"
  echo "ok: no nvcc, no cuBLASLt: exit 3 after $secs s; $(head -1 "$s")"
  ;;
peers)
  # The torch side's path on stand-ins: a driver, a CUDA torch, a cmake that "builds" the LibTorch
  # targets, and pack binaries that write canned peer CSVs (a params field with a quoted comma, as
  # impl has; single_call_* rows). The check must run every round, read the ratios through the
  # suite's reader, say each side's method, and end complete (exit 0).
  f=$tmp/fake
  mkdir -p "$f"
  cat >"$f/nvidia-smi" <<'EOS'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-stand-in)" ;;
  *name*) echo "NVIDIA H200" ;; *driver_version*) echo "580.65" ;; *compute_cap*) echo "9.0" ;;
  -q) echo "    CUDA Version                          : 13.0" ;;
  *) echo "stand-in" ;;
esac
EOS
  printf '#!/bin/sh\ncat >/dev/null\necho site=/nonexistent\necho torch_version=2.11.0+cu130\necho torch_cuda=13.0\necho torch_cmake=/nonexistent\necho torch_cudnn=91000\n' >"$f/python3"
  cat >"$f/cmake" <<EOS
#!/bin/bash
if [[ \$1 == --build ]]; then mkdir -p "\$2/bin"; cp '$f/gpu_torch_peer' '$f/gpu_model_memory' "\$2/bin/"; exit 0; fi
while [[ \$# -gt 0 ]]; do [[ \$1 == -B ]] && bt=\$2; shift; done
mkdir -p "\$bt" && echo "RIGCHECK_WITH_TORCH:BOOL=ON" >"\$bt/CMakeCache.txt"
EOS
  # fake BENCHMARK CASE METRIC VALUE SINGLE [CASE METRIC VALUE SINGLE]: a peer binary's stand-in.
  fake() {
    local name=$1
    shift
    {
      echo '#!/bin/bash'
      echo 'out= stem=; while [[ $# -gt 0 ]]; do case $1 in --out) out=$2; shift ;; --stem) stem=$2; shift ;; esac; shift; done'
      echo '[[ -n $stem ]] || { echo "SKIP: no GPU behind the stand-in"; exit 77; }'
      echo 'f=$out/$stem.csv; echo schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status,note >"$f"'
      while [[ $# -gt 0 ]]; do
        echo "for r in 0 1 2; do echo \"1,peers,$1,$2,\\\"impl=x TN, fastest of 8\\\",$3,\$(( $4 + r - 1 )),u,\$r,ok,\" >>\"\$f\"; done"
        echo "echo \"1,peers,$1,$2,\\\"impl=x TN, fastest of 8\\\",single_call_$3,$5,u,-1,ok,\" >>\"\$f\""
        shift 5
      done
    } >"$f/$name"
    chmod +x "$f/$name"
  }
  fake gpu_gemm gpu_gemm bf16/n8192 gflops 700000 690000
  fake gpu_transfer gpu_transfer d2d/1024MiB gbps 2900 2800
  fake gpu_torch_peer torch_peer matmul_bf16/n8192 gflops 720000 650000 torch_peer copy/1024MiB gbps 3000 2700
  fake gpu_model_memory
  chmod +x "$f"/*
  cp -a "$pack" "$tmp/fpack" && cp "$f/gpu_gemm" "$f/gpu_transfer" "$tmp/fpack/bin/"
  t0=$(date +%s)
  OUT= PATH=$f:$PATH bash "$src/scripts/gpu-check.sh" --pack "$tmp/fpack" --out "$tmp/out" --jobs 1 >"$tmp/check.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  cat "$tmp/check.log"
  comes_back "$tmp/out" "$tmp/back"
  s=$tmp/back/summary.txt
  [[ $rc -eq 0 ]] || fail "gpu-check.sh exited $rc, not 0 (complete)"
  grep -q '^rigcheck GPU check, .*: complete$' "$s" || fail "the headline does not say complete"
  grep -q '^GPU: NVIDIA H200; driver 580.65 (CUDA 13.0); torch 2.11.0+cu130' "$s" || fail "no GPU/driver/torch versions"
  grep -q '^torch side: available$' "$s" || fail "the torch side is not available"
  grep -q '^suite vs torch: median over 5 of 5 alternation' "$s" || fail "not 5 of 5 rounds"
  grep -q 'bf16 GEMM 8192^3 *suite 700 TFLOP/s, torch 720 TFLOP/s: suite/torch 0.972 (wanted >= 0.97: yes) \[ 0.972 0.972 0.972 0.972 0.972 \]' "$s" ||
    fail "the GEMM ratio is not read right: $(grep 'GEMM' "$s")"
  grep -q 'D2D copy 1 GiB *suite 2900 GB/s, torch 3000 GB/s: suite/torch 0.967 (wanted >= 0.95: yes)' "$s" ||
    fail "the copy ratio is not read right: $(grep 'D2D' "$s")"
  grep -q 'one call alone: suite 690 TFLOP/s, torch 650 TFLOP/s: suite/torch 1.062' "$s" || fail "no single-call GEMM line"
  grep -q 'methods: suite GEMM cuBLASLt, TN layout' "$s" || fail "no methods line"
  grep -q '^steps: precheck .*configure [0-9]*s ok; build [0-9]*s ok; run [0-9]*s exit 0; peers [0-9]*s 5 of 5 rounds' "$s" ||
    fail "the steps are not all there: $(grep '^steps' "$s")"
  ls "$tmp"/back/res/peers/suite_gemm_5.csv "$tmp"/back/res/peers/torch_5.csv >/dev/null || fail "the peers' CSVs are not in the archive"
  echo "ok: the torch side on stand-ins: exit 0 after $secs s; $(grep 'GEMM' "$s" | head -1)"
  ;;
*) echo "usage: gpu_pack.sh BUILD_DIR SOURCE_DIR relocatable|no_gpu|no_cmake|no_python3|missing_tool|peers"; exit 2 ;;
esac
