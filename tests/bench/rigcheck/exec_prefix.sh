#!/usr/bin/env bash
# rigcheck run --exec-prefix (docs/arm.md): every benchmark binary is started through
# the given command (an emulator such as qemu-aarch64 in real use; here a wrapper script that logs
# its arguments and runs them). Checks: the wrapper started the benchmark with the benchmark's own
# arguments after it, the run is ok and the manifest's command shows the prefix; a benchmark started
# by a launcher (@launcher) gets the launcher first, then the prefix, then itself; without the option
# the wrapper is never called; a prefix that does not exist fails that benchmark with the cause
# named, and the run still ends with its folder; a benchmark that starts itself again (a thread cap in
# its environment) does so through the prefix too. Usage: exec_prefix.sh RIGCHECK BIN_DIR
set -euo pipefail
rigcheck="$1"
bindir="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export RIGCHECK_LOCK_DIR="$out/locks"
fail() { echo "FAIL: $*" >&2; exit 1; }
printf '%s\n' 'name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description' \
  'fake_ok,cpu,fake_bench,--reps 1 --min-time 0.01,,,60,60,60,ok' \
  'fake_launched,cpu,fake_bench,@launcher --reps 1 --min-time 0.01,,,60,60,60,launched' \
  'fake_reexec,cpu,fake_bench,--reps 1 --min-time 0.01,OMP_NUM_THREADS=1,,60,60,60,starts itself again' >"$out/registry.csv"
for w in wrap launch; do  # wrap: the prefix; launch: the launcher (mpirun in real use); each logs its call
  printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$*" >>"%s"\nexec "$@"\n' "$out/$w.log" >"$out/$w.sh"
  chmod +x "$out/$w.sh"
done
WRAP_LOG="$out/wrap.log"
run() {
  "$rigcheck" run --profile tiny --bin-dir "$bindir" --benchmarks "$out/registry.csv" --out "$out/results" \
    --launcher "$out/launch.sh" "$@"
}

run >"$out/plain.log" 2>&1 || { cat "$out/plain.log"; fail "the run without --exec-prefix exited $?"; }
[[ ! -e $WRAP_LOG ]] || fail "the wrapper ran without --exec-prefix"

run --exec-prefix "$out/wrap.sh" >"$out/wrapped.log" 2>&1 || { cat "$out/wrapped.log"; fail "the run with --exec-prefix exited $?"; }
[[ -s $WRAP_LOG ]] || fail "--exec-prefix: the wrapper never ran"
grep -q "^$bindir/fake_bench --profile tiny .*--stem fake_ok" "$WRAP_LOG" ||
  { cat "$WRAP_LOG"; fail "the wrapper was not given the benchmark's command"; }
dir="$(ls -td "$out"/results/*/ | head -1)"
grep -q "^fake_ok,cpu,$out/wrap.sh $bindir/fake_bench .*,0,ok," "$dir/manifest.csv" ||
  { cat "$dir/manifest.csv"; fail "the manifest does not show the prefixed command with status ok"; }
grep -q "^$out/wrap.sh $bindir/fake_bench --profile tiny .*--stem fake_launched" "$out/launch.log" ||
  { cat "$out/launch.log"; fail "the launcher was not given the prefix, then the benchmark"; }
grep -q "^fake_launched,cpu,$out/launch.sh $out/wrap.sh $bindir/fake_bench .*,0,ok," "$dir/manifest.csv" ||
  { cat "$dir/manifest.csv"; fail "the manifest does not show launcher, prefix, benchmark with status ok"; }
echo "exec_prefix: the wrapper started fake_bench ($(wc -l <"$WRAP_LOG") calls), after the launcher where one starts it; ok"
# A benchmark that starts itself again (the harness clears OMP_NUM_THREADS and re-executes: startup.cpp)
# does so through the prefix too (RIGCHECK_EXEC_PREFIX in its environment, emulation.hpp): the wrapper
# sees fake_reexec twice, the second time with the binary's resolved path.
[[ $(grep -c -- '--stem fake_reexec' "$WRAP_LOG") -eq 2 ]] ||
  { cat "$WRAP_LOG"; fail "the re-executed benchmark did not start again through the prefix"; }
grep -q "^fake_reexec,cpu,.*,0,ok," "$dir/manifest.csv" || { cat "$dir/manifest.csv"; fail "fake_reexec not ok"; }
echo "exec_prefix: a benchmark starting itself again goes through the prefix as well; ok"

if run --exec-prefix "$out/no-such-emulator" >"$out/missing.log" 2>&1; then fail "a missing prefix passed"; fi
dir="$(ls -td "$out"/results/*/ | head -1)"
grep -q '^fake_ok,.*failed' "$dir/manifest.csv" || { cat "$dir/manifest.csv"; fail "a missing prefix was not a failure"; }
grep -q 'no-such-emulator' "$dir/manifest.csv" "$dir/logs/fake_ok.log" 2>/dev/null ||
  { cat "$dir/manifest.csv"; fail "the failure does not name the missing program"; }
echo "exec_prefix: a missing prefix fails the benchmark, naming it; ok"
