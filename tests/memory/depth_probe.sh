#!/bin/bash
# Depth probes (rigcheck capacity's line near the limit for transformers): memory_train_step
# --layers N builds the model with N of its layers and nothing else changed (BERT-base cut to 1 and
# 2 layers differ by exactly one layer's 7,087,872 parameters); a model without transformer layers
# is refused; memory_host runs RIGCHECK_CAPACITY_PROBE=model:batch:seq as one child per depth
# (kProbeLayers: 1 and 2) whose peak rows carry layers and model_layers and no step_time (a cut
# model's step is not the model's); a probe of a CNN is refused naming the variable.
# Usage: depth_probe.sh MEMORY_HOST
set -u
source "$(dirname "$0")/needs_host.sh" "$1" 4000000
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
get() { awk -F= -v k="$2" '$1==k{print $2}' "$1"; }
for l in 1 2; do
  "$train" --model bert_base --batch 1 --seq 16 --threads 1 --layers $l >"$out/l$l" 2>&1 || { cat "$out/l$l"; echo "FAIL: --layers $l"; exit 1; }
  [ "$(get "$out/l$l" check)" = ok ] || { cat "$out/l$l"; echo "FAIL: the step's own check at --layers $l"; exit 1; }
done
d=$(( $(get "$out/l2" params) - $(get "$out/l1" params) ))
[ "$d" = 7087872 ] || { echo "FAIL: 2 layers minus 1 layer = $d parameters, expected one BERT-base layer's 7087872"; exit 1; }
if "$train" --model light_cnn --batch 1 --layers 1 >"$out/cnn" 2>&1; then echo "FAIL: --layers accepted for light_cnn"; exit 1; fi
grep -q "no transformer layers to cut" "$out/cnn" || { cat "$out/cnn"; echo "FAIL: no reason for the refused --layers"; exit 1; }

RIGCHECK_CAPACITY_PROBE=bert_base:2:16 "$exe" --profile tiny --reps 1 --filter layers --out "$out" --stem mh --run-id probe \
  >"$out/log" 2>&1 || { cat "$out/log"; echo "FAIL: memory_host with RIGCHECK_CAPACITY_PROBE"; exit 1; }
cat "$out/mh.csv"
for l in 1 2; do
  grep -q ",bert_base/b2/s16/layers$l,\"\\?model=bert_base;batch=2;seq=16;layers=$l;model_layers=12;.*,peak_rss_bytes,[0-9.e+]*,B,0,ok," "$out/mh.csv" ||
    { echo "FAIL: no peak row of the $l-layer probe with layers=$l;model_layers=12"; exit 1; }
done
grep -q ',bert_base/b2/s16/layers[12],.*,step_time,' "$out/mh.csv" && { echo "FAIL: a probe wrote a step_time row"; exit 1; }
grep -q ',light_cnn/' "$out/mh.csv" && { echo "FAIL: --filter layers ran light_cnn"; exit 1; }
if RIGCHECK_CAPACITY_PROBE=light_cnn:8 "$exe" --profile tiny --reps 1 --filter layers --out "$out" --stem cnn --run-id p2 >"$out/log2" 2>&1; then
  echo "FAIL: a probe of light_cnn was accepted"; exit 1
fi
grep -q "RIGCHECK_CAPACITY_PROBE: 'light_cnn:8': only a transformer's layers can be probed" "$out/log2" ||
  { cat "$out/log2"; echo "FAIL: the refusal does not name the variable and the item"; exit 1; }
echo "PASS: --layers cuts the model by whole layers; memory_host's probes write their rows as capacity reads them"
