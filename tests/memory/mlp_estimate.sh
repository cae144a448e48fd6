#!/bin/bash
# The user-model path of rigcheck capacity (--model-csv, a model known by its shape alone) checked
# on a model outside the zoo: memory_train_step --model mlp (a plain MLP built only for this) runs
# two SGD-momentum steps and prints its own shape (shape_params, shape_activation_bytes_per_sample)
# and its measured peak RSS. The estimate capacity.cpp's user_model() makes from that shape:
#   peak = baseline RSS (LibTorch loaded) + 12 B x params + activation bytes per sample x batch
# must be within 15% of the measured peak. Memory only: the step time is checked as a recorded
# measurement (docs/performance.md "capacity"), never as a ctest (it depends on the machine's load).
# Usage: mlp_estimate.sh MEMORY_TRAIN_STEP
set -u
exe=$1
if [ ! -x "$exe" ]; then
  echo "memory_train_step not built: $(cat "$exe.not-built" 2>/dev/null)"; exit 77
fi
avail_kb=$(awk '/^MemAvailable:/{print $2}' /proc/meminfo)
if [ "${avail_kb:-0}" -lt 2000000 ]; then echo "MemAvailable ${avail_kb} kB < 2 GB: skipped"; exit 77; fi
width=2048 depth=8 batch=4096  # 0.4 GB of parameters x 3, 0.3 GB of activations. Not a 1024-wide MLP: its 8 MB
# tensors stay under glibc's dynamic mmap threshold and freed ones stay resident in the heap (+64-70%
# over the live tensors; with MALLOC_MMAP_THRESHOLD_ fixed, +9%: docs/performance.md "capacity")
out=$("$exe" --model mlp --width $width --depth $depth --batch $batch --threads 2) || { echo "$out"; echo "FAIL: memory_train_step failed"; exit 1; }
echo "$out"
get() { echo "$out" | awk -F= -v k="$1" '$1==k{print $2}'; }
[ "$(get check)" = ok ] || { echo "FAIL: the step's own check: $(get check)"; exit 1; }
params=$(get shape_params) act=$(get shape_activation_bytes_per_sample) base=$(get baseline_rss_bytes) hwm=$(get vmhwm_bytes)
# The shape printed is the MLP's: depth x (w^2 + w) + 10 w + 10 parameters.
want_params=$((depth * (width * width + width) + 10 * width + 10))
[ "$params" = "$want_params" ] || { echo "FAIL: shape_params $params, expected $want_params"; exit 1; }
awk -v b="$base" -v p="$params" -v a="$act" -v n=$batch -v m="$hwm" 'BEGIN {
  est = b + 12 * p + a * n; err = (m - est) / est
  printf "estimate %.0f B (baseline %.0f + 12 x %d params + %d B x %d samples), measured %.0f B: %+.1f%%\n", est, b, p, a, n, m, 100 * err
  if (err > 0.15 || err < -0.15) { print "FAIL: outside 15%"; exit 1 }
  print "PASS: within 15%" }'
