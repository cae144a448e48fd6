#!/usr/bin/env bash
# compare_cross_arch (docs/arm.md): the fixture pair quick_vm (an x86-64 quick run) and
# arm64_qemu_tiny (the aarch64 build's tiny run under qemu-user) through `rigcheck compare`: no crash;
# the runs' architectures named; STREAM paired at each run's widest kernel (AVX-512 against NEON), the
# ISAs in the note; the FMA peak and oneDNN's ISA-capped cases (cpu_isa on x86-64, cpu_isa_sve on
# aarch64) one-sided on both sides with the reason, never paired; any other case of one side only
# saying the sides are of different architectures; no case paired across different experiments.
#   compare_cross_arch.sh RIGCHECK FIXTURES_DIR
source "$(dirname "$0")/../../support/lib.sh"
rigcheck=$1 fixtures=$2
fail_log=$tmp/log
"$rigcheck" compare "$fixtures/runs/quick_vm" "$fixtures/runs/arm64_qemu_tiny" --out "$tmp/cmp" >"$fail_log" 2>&1 ||
  fail "compare exited $?"
fail_log=
csv=$tmp/cmp/compare.csv
grep -q 'Runs of 2 processor architectures (x86_64, aarch64)' "$tmp/cmp/compare.md" || fail "compare.md does not name the architectures"
rows() { grep "^$1," "$csv" || true; }  # the findings of one benchmark

# STREAM: 4 kernels x 2 store kinds x 2 thread counts, each paired as widest
n=$(rows memory_bandwidth | grep -c '^memory_bandwidth,[a-z]*/[a-z]*/widest/t[12],memory_bandwidth,stopped_working,') || true
[[ $n -eq 16 ]] || fail "STREAM: $n of 16 cases paired at the widest kernel: $(rows memory_bandwidth | cut -c1-120 | head -4)"
if rows memory_bandwidth | grep -q '/avx512/\|/neon/\|/avx2/'; then fail "a STREAM case left unpaired by its ISA: $(rows memory_bandwidth | grep '/avx512/\|/neon/' | head -2)"; fi
rows memory_bandwidth | grep -v -q "each run's widest kernel: avx512 in quick_vm, neon in arm64_qemu_tiny" &&
  fail "a STREAM case without the ISAs that ran: $(rows memory_bandwidth | head -1)"

# ISA-specific: one-sided on both sides, with the reason, never paired
for b in fma_peak_f32 isa_primitives; do
  [[ -n $(rows $b) ]] || fail "no $b findings"
  if rows $b | grep -v -q 'one-sided: '; then fail "$b: a case without its one-sided reason: $(rows $b | grep -v 'one-sided: ' | head -1)"; fi
  # benchmark,case,source,flag: a flag of a case both sides have is a pairing across architectures;
  # cannot_judge too unless the case is keyed by its architecture (arch= in its params)
  paired_flags='stopped_working\|started_working\|no_change\|regression\|improvement\|unstable'
  if rows $b | grep -q "^$b,[^,]*,[^,]*,\($paired_flags\),"; then
    fail "$b: a case paired across architectures: $(rows $b | grep "^$b,[^,]*,[^,]*,\($paired_flags\)," | head -1)"
  fi
  if rows $b | grep "^$b,[^,]*,[^,]*,cannot_judge," | grep -v -q 'arch=\(x86_64\|aarch64\)'; then
    fail "$b: a case judged across architectures: $(rows $b | grep ',cannot_judge,' | head -1)"
  fi
  rows $b | grep -q ',only_in_base,' || fail "$b: no x86-64 case listed"
  rows $b | grep -q ',only_in_run,' || fail "$b: no aarch64 case listed"
done
rows fma_peak_f32 | grep -q '^fma_peak_f32,sve/t1,cpu_peak,only_in_run,' || fail "the SVE peak not listed one-sided"

# another experiment on one side only says the architectures differ (GEMM: quick's 2048 against tiny's 256)
rows gemm_matmul_f32 | grep -q 'only_in_base,.*the sides are of different architectures (A x86_64, B aarch64)' ||
  fail "a one-sided GEMM case does not say the architectures differ: $(rows gemm_matmul_f32 | head -1)"
# a list of runs mixing architectures is refused: a same-architecture pair in it would be renamed too
if "$rigcheck" compare "$fixtures/runs/quick_vm" "$fixtures/runs/compare_a" "$fixtures/runs/arm64_qemu_tiny" \
  --out "$tmp/mixed" >"$tmp/mixed.log" 2>&1; then
  fail "a list of three runs of two architectures was compared"
fi
grep -q 'runs of several processor architectures (x86_64, aarch64): compare them as two sides' "$tmp/mixed.log" ||
  { cat "$tmp/mixed.log"; fail "the refusal does not say why"; }
echo "compare_cross_arch: STREAM paired at the widest kernels, ISA-specific cases one-sided on both sides; ok"
