#!/usr/bin/env bash
# Every GPU benchmark binary, on a machine without a usable GPU, exits 77 and says why on a
# "SKIP: " line; with a GPU it must not fail (0, or 77 where its library lacks CUDA). On a machine
# of 2 cores or more, each also runs on one core (taskset -c 0): no case may skip for want of cores
# (the host threads of a GPU case are the usable cores, not the physical ones).
# usage: gpu_skip.sh BIN_DIR [BINARY...]   (default: gpu_gemm gpu_transfer gpu_model_memory gpu_torch_peer)
set -u
bin=$1
shift
binaries=("$@")
[[ ${#binaries[@]} -gt 0 ]] || binaries=(gpu_gemm gpu_transfer gpu_model_memory gpu_torch_peer)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gpu=no
if [[ -e /dev/nvidia0 || -e /dev/nvidiactl ]]; then gpu=yes; fi
driver=no  # libcuda.so.1 where the loader finds it
ldconfig -p 2>/dev/null | grep -q "libcuda\.so\.1 " && driver=yes
one_core=()
if [[ $(nproc --all 2>/dev/null || echo 1) -ge 2 ]] && command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
  one_core=(taskset -c 0)
fi
status=0
ran=0
for b in "${binaries[@]}"; do
  if [[ ! -x $bin/$b ]]; then
    echo "$b: not built: $(cat "$bin/$b.not-built" 2>/dev/null || echo unknown reason)"
    continue
  fi
  ran=$((ran + 1))
  for how in all one; do
    wrap=()
    if [[ $how == one ]]; then
      [[ ${#one_core[@]} -gt 0 ]] || continue
      wrap=("${one_core[@]}")
    fi
    out=$tmp/$b-$how
    mkdir -p "$out"
    "${wrap[@]}" "$bin/$b" --profile tiny --out "$out" >"$out.log" 2>&1
    rc=$?
    why=$(grep -m1 '^SKIP: ' "$out.log")
    echo "$b ($([[ $how == one ]] && echo "taskset -c 0" || echo "all cores")): exit $rc ${why}"
    if grep -q 'usable cores' "$out/$b.csv" 2>/dev/null; then
      echo "  FAIL: a case skipped for want of cores:"; grep 'usable cores' "$out/$b.csv" | head -3; status=1
    fi
    if [[ $gpu == no ]]; then
      if [[ $rc -ne 77 || -z $why ]]; then
        echo "  FAIL: expected exit 77 with a SKIP reason on a machine without a GPU"; cat "$out.log"; status=1
      fi
      if [[ ! -s $out/$b.csv ]] || ! grep -q ',skipped,' "$out/$b.csv"; then
        echo "  FAIL: no skipped rows in $out/$b.csv"; status=1
      fi
      # The CUDA-runtime binaries name the missing driver as the inventory does, not the runtime's
      # "driver version is insufficient" (cudaGetDeviceCount's status without any driver).
      if [[ $b == gpu_gemm || $b == gpu_transfer ]] && [[ $driver == no && $why != *"libcuda.so.1 not found: no NVIDIA driver"* ]]; then
        echo "  FAIL: the SKIP reason does not name the missing driver (libcuda.so.1 not found: no NVIDIA driver): $why"; status=1
      fi
    elif [[ $rc -ne 0 && $rc -ne 77 ]]; then
      echo "  FAIL: exit $rc on a machine with a GPU"; cat "$out.log"; status=1
    fi
  done
done
if [[ $ran -eq 0 ]]; then echo "no GPU benchmark is built"; exit 77; fi
exit $status
