#!/usr/bin/env bash
# Every GPU benchmark binary, on a machine without a usable GPU, exits 77 and says why on a
# "SKIP: " line; with a GPU it must not fail (0, or 77 where its library lacks CUDA).
# usage: gpu_skip.sh BIN_DIR
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gpu=no
if [[ -e /dev/nvidia0 || -e /dev/nvidiactl ]]; then gpu=yes; fi
status=0
ran=0
for b in gpu_gemm gpu_transfer gpu_model_memory gpu_torch_peer; do
  if [[ ! -x $bin/$b ]]; then
    echo "$b: not built: $(cat "$bin/$b.not-built" 2>/dev/null || echo unknown reason)"
    continue
  fi
  ran=$((ran + 1))
  mkdir -p "$tmp/$b"
  "$bin/$b" --profile tiny --out "$tmp/$b" >"$tmp/$b.out" 2>&1
  rc=$?
  why=$(grep -m1 '^SKIP: ' "$tmp/$b.out")
  echo "$b: exit $rc ${why}"
  if [[ $gpu == no ]]; then
    if [[ $rc -ne 77 || -z $why ]]; then
      echo "  FAIL: expected exit 77 with a SKIP reason on a machine without a GPU"; cat "$tmp/$b.out"; status=1
    fi
    if [[ ! -s $tmp/$b/$b.csv ]] || ! grep -q ',skipped,' "$tmp/$b/$b.csv"; then
      echo "  FAIL: no skipped rows in $tmp/$b/$b.csv"; status=1
    fi
  elif [[ $rc -ne 0 && $rc -ne 77 ]]; then
    echo "  FAIL: exit $rc on a machine with a GPU"; cat "$tmp/$b.out"; status=1
  fi
done
if [[ $ran -eq 0 ]]; then echo "no GPU benchmark is built"; exit 77; fi
exit $status
