#!/usr/bin/env bash
# The GPU pack and the GPU check without a GPU (issue 19). A pack is made from this build tree's
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
#                 60 s, its logs in the result folder, the archive and summary beside it
#   missing_tool  scripts/gpu-check.sh with a driver and a torch stand-in but no nvcc on PATH: stops
#                 within 60 s with one line naming nvcc, and nothing else (exit 5)
# usage: gpu_pack.sh BUILD_DIR SOURCE_DIR MODE [PACK_DIR]
# PACK_DIR: check that pack (e.g. gpu-pack/ made by scripts/gpu-pack.sh) instead of making one from
# BUILD_DIR; it must then also hold the 60 MiB limit.
tmp_template=/tmp/rigcheck-gpu-pack.XXXXXX
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
build=$1
src=$2
mode=$3
given=${4:-}
[[ -x $build/bin/gpu_gemm && -x $build/bin/gpu_transfer ]] || { echo "SKIP: no CUDA benchmarks built here (RIGCHECK_WITH_CUDA=OFF)"; exit 77; }
pack=$tmp/pack
if [[ -n $given ]]; then
  pack=$(cd "$given" && pwd) || fail "no pack at $given"
  [[ $pack != "$src"/* ]] || { cp -a "$pack" "$tmp/pack" && pack=$tmp/pack; }  # outside the tree hidden below
  mib=$(( ($(du -sb "$pack" | cut -f1) + 1048575) / 1048576 ))
  ((mib <= 60)) || fail "the pack is $mib MiB, over 60 MiB"
  echo "ok: the given pack is $mib MiB"
else
  bash "$src/scripts/gpu-pack.sh" --from "$build" --out "$pack" --max-mib 200 >"$tmp/pack.log" 2>&1 ||
    { cat "$tmp/pack.log"; fail "gpu-pack.sh --from $build"; }
fi
for f in bin/rigcheck bin/gpu_gemm bin/gpu_transfer bin/gpu_model_memory.not-built share/rigcheck/data/claims.csv \
         deps/usr/include/fmt/format.h deps/fmt-first/fmt/format.h MANIFEST.txt; do
  [[ -e $pack/$f ]] || fail "no $f in the pack"
done
[[ ! -e $pack/bin/gpu_model_memory ]] || fail "the pack carries a LibTorch binary (built on the GPU machine instead)"
bins=()
for b in "$pack"/bin/*; do [[ -x $b && ! $b == *.not-built ]] && bins+=("$b"); done

case $mode in
relocatable)
  # The libraries a GPU image has (glibc, the toolchain's runtime, the driver's, CUDA's and NCCL):
  # everything else must resolve inside the pack.
  image='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda|libnvidia-|libcudart|libcublas|libcublasLt|libnccl|libcudnn|libnvrtc|libnvJitLink)\.'
  for b in "${bins[@]}"; do
    out=$(LD_LIBRARY_PATH=$pack/lib ldd "$b" 2>&1)
    if grep -q 'not found' <<<"$out"; then echo "$out"; fail "$(basename "$b"): unresolved libraries"; fi
    while read -r name arrow path _; do
      [[ $arrow == "=>" && ! $name =~ $image ]] || continue
      [[ $(realpath "$path") == "$(realpath "$pack")/lib/"* ]] || fail "$(basename "$b"): $name resolves to $path, outside the pack"
    done <<<"$out"
  done
  echo "ok: ldd of ${#bins[@]} binaries: nothing unresolved, every library a GPU image lacks from $pack/lib"
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
no_gpu)
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then echo "SKIP: a GPU is here"; exit 77; fi
  t0=$(date +%s)
  OUT= bash "$src/scripts/gpu-check.sh" --pack "$pack" --out "$tmp/out" >"$tmp/check.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  cat "$tmp/check.log"
  [[ $rc -eq 4 ]] || fail "gpu-check.sh exited $rc, not 4 (no GPU)"
  ((secs <= 60)) || fail "gpu-check.sh took $secs s to find no GPU (limit 60 s)"
  grep -q 'no GPU here: ' "$tmp/check.log" || fail "no 'no GPU here' line"
  res=$(ls -d "$tmp"/out/gpu-check-*/ | head -1)
  [[ -n $res ]] || fail "no result folder in $tmp/out"
  for f in logs/precheck.log logs/gpu-check.log summary.txt; do [[ -s $res/$f ]] || fail "no $f in the result folder"; done
  grep -q 'no GPU here' "$res/logs/gpu-check.log" || fail "the log in the result folder lacks the ending"
  archive=$(ls "$tmp"/out/gpu-check-*.tar.gz | head -1)
  [[ -s $archive && -s $tmp/out/summary.txt ]] || fail "no archive or summary beside the result folder"
  tar -tzf "$archive" | grep -q 'logs/precheck.log$' || fail "the archive lacks the logs"
  echo "ok: no GPU: exit 4 after $secs s, logs in $res, archive $(basename "$archive")"
  ;;
missing_tool)
  # A driver and a PyTorch with CUDA (stand-ins), and no nvcc anywhere on PATH nor in CUDA_HOME.
  mkdir -p "$tmp/fake"
  printf '#!/bin/sh\n[ "$1" = -L ] && echo "GPU 0: NVIDIA H200 (UUID: GPU-stand-in)" && exit 0\nexit 9\n' >"$tmp/fake/nvidia-smi"
  printf '#!/bin/sh\ncat >/dev/null\necho site=/nonexistent\necho torch_version=2.11.0+cu130\necho torch_cuda=13.0\necho torch_cmake=%s\necho torch_cudnn=91000\n' \
    "$tmp/torch" >"$tmp/fake/python3"
  chmod +x "$tmp/fake/nvidia-smi" "$tmp/fake/python3"
  path=$tmp/fake
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do [[ -n $d && ! -x $d/nvcc ]] && path+=":$d"; done
  PATH=$path command -v nvcc >/dev/null && fail "nvcc still on the test's PATH"
  t0=$(date +%s)
  OUT= PATH=$path CUDA_HOME=$tmp/no-cuda bash "$src/scripts/gpu-check.sh" --pack "$pack" --out "$tmp/out" >"$tmp/check.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  cat "$tmp/check.log"
  [[ $rc -eq 5 ]] || fail "gpu-check.sh exited $rc, not 5 (something missing)"
  ((secs <= 60)) || fail "the precheck took $secs s (limit 60 s)"
  line=$(grep 'STOP: missing: ' "$tmp/check.log" | head -1)
  [[ $line == *"missing: nvcc ("* ]] || fail "the STOP line does not name nvcc: $line"
  [[ $line != *";"* ]] || fail "the STOP line names more than nvcc: $line"
  res=$(ls -d "$tmp"/out/gpu-check-*/ | head -1)
  [[ -s $res/logs/precheck.log && -s $(ls "$tmp"/out/gpu-check-*.tar.gz | head -1) ]] || fail "no logs or archive"
  echo "ok: without nvcc: exit 5 after $secs s: $line"
  ;;
*) echo "usage: gpu_pack.sh BUILD_DIR SOURCE_DIR relocatable|no_gpu|missing_tool"; exit 2 ;;
esac
