#!/usr/bin/env bash
# ctest arm64_tiny_run (label arm64; docs/arm.md): `rigcheck run --profile tiny` of the
# aarch64 build (preset arm64-cross) under qemu-user, every benchmark started through the same
# emulator (--exec-prefix, which also reaches the processes a benchmark starts itself), and its run
# folder read:
#  - built: every benchmark binary of the x86-64 build exists for aarch64, or its .not-built says why;
#  - complete: every registry entry ended (ok, skipped, not_built with why), none failed, the report
#    and verdicts written, every result file verified;
#  - the inventory sees aarch64 run emulated; the report says so in its warnings;
#  - the suite's own kernels passed their checks (cpu_peak NEON, memory_bandwidth NEON and STNP, the
#    oneDNN kernels of cpu_gemm), every row they timed mistrusted as emulated;
#  - CPU-5 and CPU-6 not_measurable, "an x86 claim; this machine is aarch64", CPU-5's evidence saying
#    what was measured in its place (SVE against Advanced SIMD: cpu_isa_sve, whose two processes take
#    turns through the emulator); no verdict rests on an emulated timing;
#  - the x86-64 rigcheck compares it with an x86-64 quick run (tests/fixtures/runs/quick_vm): no
#    crash, STREAM paired at each run's widest kernel, the ISA-specific cases one-sided with why.
# Skipped (77) with the reason without qemu-aarch64, the arm64 sysroot or the arm64 rigcheck.
#   arm64_tiny_run.sh ARM64_BUILD_DIR X86_RIGCHECK FIXTURES_DIR
source "$(dirname "$0")/../../support/lib.sh"
build=$1 x86=$2 fixtures=$3
sysroot=$build/sysroot
skip() {
  echo "SKIP: $*"
  exit 77
}
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (scripts/setup.sh --arch arm64 installs qemu-user)"
[[ -d $sysroot/usr/lib/aarch64-linux-gnu ]] || skip "no arm64 sysroot at $sysroot (scripts/arm64-sysroot.sh)"
[[ -x $build/bin/rigcheck ]] || skip "no arm64 rigcheck in $build/bin (scripts/test-arm64.sh builds it)"
qemu="qemu-aarch64 -L $sysroot"

# every benchmark binary of the x86-64 build is built for aarch64 too, or its .not-built says why
x86bin=$(dirname "$x86")
for b in $(cut -d, -f3 "$(dirname "$0")/../../../data/benchmarks.csv" | tail -n +2 | sort -u); do
  [[ -x $x86bin/$b || -s $x86bin/$b.not-built ]] || fail "the x86-64 build has neither $b nor its .not-built"
  [[ -x $x86bin/$b ]] || continue
  [[ -x $build/bin/$b ]] || [[ -s $build/bin/$b.not-built ]] || fail "the arm64 build has neither $b nor its .not-built"
  [[ ! -x $build/bin/$b ]] || aarch64_elf "$build/bin/$b"
done
export RIGCHECK_LOCK_DIR=$tmp/locks

log=$tmp/run.log
fail_log=$log
t0=$SECONDS
$qemu "$build/bin/rigcheck" run --profile tiny --out "$tmp/runs" --exec-prefix "$qemu" >"$log" 2>&1 ||
  fail "the arm64 rigcheck run under qemu exited $?"
run=$(ls -d "$tmp"/runs/*/)
echo "arm64_tiny_run: the run took $((SECONDS - t0)) s under qemu: $run"
for f in manifest.csv inventory.csv report.md report.html verdicts.csv; do [[ -s $run/$f ]] || fail "no $f in the run folder"; done

# every entry ended, none failed; the not-built ones say why (LibTorch, MPI, CUDA left out by the cross build)
if grep -E ',(pending|running|failed|interrupted|timeout|not_run),' "$run/manifest.csv"; then fail "entries that did not end well"; fi
for b in cpu_peak cpu_gemm cpu_cache_fc memory_bandwidth memory_latency memory_thp io_fio_disk io_dataloader; do
  grep -q "^$b,[a-z]*,.*,0,ok," "$run/manifest.csv" || fail "$b is not ok: $(grep "^$b," "$run/manifest.csv")"
done
grep -q '^cpu_resnet,.*,not_built,.*the arm64-cross build leaves LibTorch out' "$run/manifest.csv" ||
  fail "cpu_resnet's not_built does not say why the cross build leaves LibTorch out: $(grep '^cpu_resnet,' "$run/manifest.csv")"
grep -q '^comm_allreduce_mpi,.*,not_built,.*cannot start aarch64 ranks' "$run/manifest.csv" ||
  fail "comm_allreduce_mpi's not_built does not say why: $(grep '^comm_allreduce_mpi,' "$run/manifest.csv")"
grep -q '^cpu_isa,.*,skipped,.*needs isa_avx512f=yes (this machine: unknown: an x86 feature' "$run/manifest.csv" ||
  fail "cpu_isa (AVX-512 against AVX2) not skipped as x86-only: $(grep '^cpu_isa,' "$run/manifest.csv")"
grep -qE 'result files: ([0-9]+) of \1 result files verified' "$log" || fail "the result files were not all verified"
fail_log=

grep -q '^cpu_arch,aarch64$' "$run/inventory.csv" || fail "inventory: cpu_arch is not aarch64"
grep -q '^emulated,"*yes: this aarch64 binary runs emulated on an x86_64 kernel' "$run/inventory.csv" ||
  fail "inventory: the emulation not seen: $(grep '^emulated,' "$run/inventory.csv")"
grep -q 'the run ran emulated' "$run/report.md" || fail "the report does not say the run ran emulated"
grep -q '^Architecture: aarch64' "$run/report.md" || fail "the report does not name the architecture"

# the kernels' checks passed under qemu, their timed rows mistrusted
checked() {  # CSV CASE: CASE's check row passed
  grep -q "^[^,]*,[^,]*,[^,]*,$2,[^,]*,check_wrong,0,count,-1,ok," "$run/$1" || fail "$1: $2 did not pass its check"
}
checked cpu_peak.csv neon/t1
for k in copy triad; do checked memory_bandwidth.csv "$k/nt/neon/t1"; done
grep -q ',check_wrong,0,count,-1,ok,' "$run/cpu_gemm.csv" || fail "cpu_gemm: no oneDNN kernel passed its check"
for f in cpu_peak.csv memory_bandwidth.csv cpu_gemm.csv io_dataloader.csv; do
  n=$(grep -c ',\(time_per_iter\|gflops\|gbps\|step_time\),' "$run/$f") || true
  [[ $n -gt 0 ]] || fail "$f has no timed rows"
  if grep ',\(time_per_iter\|gflops\|gbps\|step_time\),' "$run/$f" | grep -v ',mistrusted,"*timed under emulation' | grep -q .; then
    fail "$f: timed rows not mistrusted as emulated: $(grep ',\(time_per_iter\|gflops\|gbps\|step_time\),' "$run/$f" | grep -v ',mistrusted,' | head -2)"
  fi
done

# the verdicts: the x86 claims not measurable with the reason; no verdict measured from an emulated timing
verdict() {  # CLAIM VERDICTS: CLAIM's verdict (verdicts.csv: claim_id,section,claim,verdict,...) is one of VERDICTS
  grep -q "^$1,[^,]*,\(\"[^\"]*\"\|[^,]*\),\($2\)," "$run/verdicts.csv"
}
for c in CPU-5 CPU-6; do
  verdict $c not_measurable && grep -q "^$c,.*an x86 claim; this machine is aarch64" "$run/verdicts.csv" ||
    fail "$c: $(grep "^$c," "$run/verdicts.csv")"
done
grep -q "measured instead on this aarch64 machine (not the guide's claim)" "$run/report.md" ||
  fail "CPU-5's evidence does not say what the aarch64 machine measured in its place"
grep -q '^cpu_isa_sve,cpu,.*,0,ok,' "$run/manifest.csv" || fail "cpu_isa_sve did not run: $(grep '^cpu_isa_sve,' "$run/manifest.csv")"
grep -q "measured instead on this aarch64 machine (not the guide's claim): nothing, no trusted isa_primitives results under both caps (cpu_isa_sve: ok; the run was emulated" "$run/report.md" ||
  fail "CPU-5's evidence does not say cpu_isa_sve ran and why nothing of it counts"
# a verdict measured (or predicted from measurements) rests on fio's figures only (IO-1, IO-2: fio is the
# host's program and ran natively); the basis is verdicts.csv's next-to-last column
judged=$(grep -E ',(measured|predicted|emulated),("([^"]|"")*"|[^,"]*)$' "$run/verdicts.csv" | cut -d, -f1 |
  grep -v -x -e IO-1 -e IO-2) || true
[[ -z $judged ]] || fail "verdicts judged from emulated timings: $(echo $judged)"
echo "arm64_tiny_run: complete run folder, emulation seen and said, kernels checked, x86 claims not measurable; ok"

# the vendor comparison: an x86-64 quick run against this one
fail_log=$tmp/compare.log
"$x86" compare "$fixtures/runs/quick_vm" "$run" --out "$tmp/compare" >"$fail_log" 2>&1 || fail "compare exited $?"
grep -q 'Runs of 2 processor architectures (x86_64, aarch64)' "$tmp/compare/compare.md" || fail "compare does not say the runs' architectures differ"
grep -q '^memory_bandwidth,copy/plain/widest/t1,memory_bandwidth,stopped_working,.*avx512 in quick_vm, neon in ' "$tmp/compare/compare.csv" ||
  fail "STREAM copy not paired at the widest kernels: $(grep '^memory_bandwidth,copy/plain' "$tmp/compare/compare.csv")"
grep -q '^fma_peak_f32,neon/t1,cpu_peak,only_in_run,.*one-sided: the FMA peak of one ISA' "$tmp/compare/compare.csv" ||
  fail "cpu_peak's NEON case not one-sided with why: $(grep '^fma_peak_f32,neon/t1' "$tmp/compare/compare.csv")"
echo "arm64_tiny_run: compared with an x86-64 quick run; ok"
