#!/usr/bin/env bash
# The storage area's safety rules, end to end through the real binaries:
# refusals (block/char device, existing file, symlink out of the scratch directory, '..',
# absolute path outside), nothing written on a refusal, no scratch file left after SIGINT and
# SIGTERM mid-run, a missing fio and a fio printing broken JSON give a clear error.
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
bin="$1"            # build/bin
io_fio="$bin/io_fio"
io_dl="$bin/io_dataloader"
work="$tmp"
n=0

# expect_refusal NAME PATTERN ARGS...: exit 2, stderr names the path and the reason, no CSV
# written, the scratch directory unchanged.
expect_refusal() {
  local name="$1" pattern="$2"; shift 2
  local out="$work/out-$name"; mkdir -p "$out"
  local before; before="$(ls -la "$work/scr" | sort)"
  "$io_fio" --profile tiny --out "$out" "$@" >"$work/$name.log" 2>&1
  local rc=$?
  [[ $rc -eq 2 ]] || { cat "$work/$name.log"; fail "$name: exit $rc, expected 2"; }
  grep -qE "$pattern" "$work/$name.log" || { cat "$work/$name.log"; fail "$name: message lacks /$pattern/"; }
  grep -q "refused: " "$work/$name.log" || fail "$name: no 'refused:' in the message"
  [[ -z "$(ls -A "$out")" ]] || fail "$name: wrote $(ls "$out")"
  [[ "$before" == "$(ls -la "$work/scr" | sort)" ]] || fail "$name: the scratch directory changed"
  n=$((n + 1))
}

mkdir -p "$work/scr"
echo "precious" >"$work/scr/exists.dat"
ln -s /etc/passwd "$work/scr/link.dat"
ln -s /etc "$work/scr/etcdir"
mkdir -p "$work/dirlink-target" && ln -s "$work/dirlink-target" "$work/scr-link"

# A block device: /dev/vda here; else the first disk in /sys/block that has a /dev node.
blk=""
for d in /dev/vda /dev/nvme0n1 /dev/sda $(ls /sys/block 2>/dev/null | sed 's#^#/dev/#'); do
  [[ -b "$d" ]] && { blk="$d"; break; }
done
if [[ -n "$blk" ]]; then
  expect_refusal blockdev-scratch "$blk: is a block device" --scratch "$blk"
  expect_refusal blockdev-file "$blk: is a block device" --scratch "$work/scr" --file "$blk"
else
  echo "note: no block device node here; the block-device refusal is tested through /dev/null only"
fi
expect_refusal chardev-file "/dev/null: is a character device" --scratch "$work/scr" --file /dev/null
expect_refusal existing-file "exists.dat: already exists" --scratch "$work/scr" --file exists.dat
expect_refusal symlink-out "link.dat: is a symbolic link to /etc/passwd, outside the scratch directory" \
  --scratch "$work/scr" --file link.dat
expect_refusal symlink-dir-out "resolves to /etc/x.dat, outside the scratch directory" --scratch "$work/scr" --file etcdir/x.dat
expect_refusal dotdot-file "'\.\.' component" --scratch "$work/scr" --file ../x.dat
expect_refusal dotdot-scratch "'\.\.' component" --scratch "$work/scr/../scr"
expect_refusal absolute-out "outside the scratch directory" --scratch "$work/scr" --file "$work/elsewhere.dat"
expect_refusal symlink-scratch "is a symbolic link, not a directory" --scratch "$work/scr-link"
expect_refusal missing-scratch "does not exist" --scratch "$work/nope"
[[ "$(cat "$work/scr/exists.dat")" == precious ]] || fail "exists.dat was changed"
[[ ! -e "$work/elsewhere.dat" && ! -e /etc/x.dat && ! -e "$work/x.dat" ]] || fail "a refused file was created"
echo "ok: $n refusals"

# ---- cleanup after a signal mid-run
signal_test() {
  local sig="$1" what="$2"; shift 2
  local scr="$work/sig-$sig-$what"; mkdir -p "$scr"
  local out="$work/out-sig-$sig-$what"; mkdir -p "$out"
  "$@" --scratch "$scr" --out "$out" >"$work/sig-$sig-$what.log" 2>&1 &
  local pid=$!
  local t=0
  # Mid-run: fio is running (its JSON file exists) or the pipeline has its samples.
  until [[ -n "$(find "$scr" -name '*.json' -o -name 's000010.bin' 2>/dev/null | head -1)" ]]; do
    sleep 0.1; t=$((t + 1))
    ((t < 600)) || { kill -KILL $pid; fail "$what never started: $(cat "$work/sig-$sig-$what.log")"; }
    kill -0 $pid 2>/dev/null || fail "$what ended before the signal: $(cat "$work/sig-$sig-$what.log")"
  done
  sleep 0.5
  kill -"$sig" $pid
  wait $pid
  local rc=$?
  [[ $rc -ne 0 ]] || fail "$what exited 0 after SIG$sig"
  local left; left="$(find "$scr" -mindepth 1)"
  [[ -z "$left" ]] || fail "after SIG$sig $what left: $left"
  pgrep -f "$scr" >/dev/null && fail "a process on $scr is still running after SIG$sig"
  grep -q "scratch files removed" "$work/sig-$sig-$what.log" || fail "$what did not report the clean-up"
  echo "ok: SIG$sig mid-run of $what: exit $rc, nothing left in $scr"
}
if command -v fio >/dev/null; then
  signal_test INT io_fio "$io_fio" --profile tiny --runtime 30 --reps 1
  signal_test TERM io_fio "$io_fio" --profile tiny --runtime 30 --reps 1
else
  echo "note: no fio on PATH: the SIGINT/SIGTERM tests of io_fio need it (scripts/setup.sh installs it)"
fi
signal_test TERM io_dataloader "$io_dl" --profile tiny --samples 64 --steps 100000 --reps 1 --no-peer
signal_test INT io_dataloader "$io_dl" --profile tiny --samples 64 --steps 100000 --reps 1 --no-peer

# ---- fio missing
out="$work/out-missing"; mkdir -p "$out"
"$io_fio" --profile tiny --fio-binary "$work/no/such/fio" --out "$out" >"$work/missing.log" 2>&1
rc=$?
[[ $rc -eq 77 ]] || { cat "$work/missing.log"; fail "missing fio: exit $rc, expected 77 (skipped)"; }
grep -q "SKIP: fio not found: $work/no/such/fio" "$work/missing.log" || { cat "$work/missing.log"; fail "missing fio: unclear message"; }
grep -q ",skipped,fio not found" "$out/io_fio.csv" || fail "missing fio: no skipped rows"
out="$work/out-nopath"; mkdir -p "$out"
env PATH="$work/empty-path" "$io_fio" --profile tiny --out "$out" >"$work/nopath.log" 2>&1
rc=$?
[[ $rc -eq 77 ]] && grep -q "no executable 'fio' in PATH" "$work/nopath.log" || { cat "$work/nopath.log"; fail "fio absent from PATH: exit $rc"; }
echo "ok: missing fio is skipped with the reason"

# ---- fio printing broken JSON
mkdir -p "$work/fake"
cat >"$work/fake/fio" <<'FAKE'
#!/bin/sh
# A fio that knows its version but writes broken JSON.
for a in "$@"; do
  case "$a" in
    --version) echo "fio-3.33"; exit 0 ;;
    --output=*) printf '{ "fio version" : "fio-3.33", "jobs" : [ { "jobname" : ' >"${a#--output=}" ;;
  esac
done
exit 0
FAKE
chmod +x "$work/fake/fio"
scr="$work/scr-broken"; mkdir -p "$scr"; out="$work/out-broken"; mkdir -p "$out"
PATH="$work/fake:$PATH" "$io_fio" --profile tiny --scratch "$scr" --out "$out" >"$work/broken.log" 2>&1
rc=$?
[[ $rc -eq 1 ]] || { cat "$work/broken.log"; fail "broken JSON: exit $rc, expected 1"; }
grep -q "not valid JSON" "$work/broken.log" || { cat "$work/broken.log"; fail "broken JSON: unclear message"; }
grep -q ",failed,.*not valid JSON" "$out/io_fio.csv" || fail "broken JSON: no failed rows in the CSV"
[[ -z "$(find "$scr" -mindepth 1)" ]] || fail "broken JSON: scratch files left"
# The pipeline still measures when its fio peer is broken.
out="$work/out-broken-dl"; mkdir -p "$out"
PATH="$work/fake:$PATH" "$io_dl" --profile tiny --scratch "$scr" --out "$out" >"$work/broken-dl.log" 2>&1
grep -q "dataloader_io_wait,r1/w4p2,.*,io_wait_per_step,[0-9.e-]*,s,0,ok," "$out/io_dataloader.csv" ||
  { cat "$work/broken-dl.log"; fail "io_dataloader gave no pipeline rows with a broken fio"; }
grep -q "dataloader_vs_fio,fio/w2,.*,failed,.*not valid JSON" "$out/io_dataloader.csv" || fail "io_dataloader: peer failure not recorded"
echo "ok: broken JSON is a clear failure; the pipeline still runs"

# ---- fio's figures disagreeing with each other once: the repetition is run again, and says so;
# every time: the case fails, naming the figures
mkdir -p "$work/flaky" "$work/tries"
cat >"$work/flaky/fio" <<FAKE
#!/bin/sh
# The real fio, but the first run of each randread_4k_qd1 repetition (every run with FLAKY_ALWAYS=1)
# reports a bw_bytes that disagrees with its io_bytes and runtime.
"$(command -v fio)" "\$@"; rc=\$?
out=""; job=""
for a in "\$@"; do case "\$a" in --output=*) out="\${a#--output=}" ;; *randread_4k_qd1.fio) job="\$a" ;; esac; done
if [ -n "\$job" ] && [ -n "\$out" ]; then
  n=\$(ls "$work/tries" | wc -l); touch "$work/tries/\$n"
  if [ -n "\$FLAKY_ALWAYS" ] || [ \$((n % 2)) -eq 0 ]; then sed -i '0,/"bw_bytes" : [0-9]*/s//"bw_bytes" : 1/' "\$out"; fi
fi
exit \$rc
FAKE
chmod +x "$work/flaky/fio"
scr="$work/scr-flaky"; mkdir -p "$scr"; out="$work/out-flaky"; mkdir -p "$out"
rc=0
"$io_fio" --profile tiny --fio-binary "$work/flaky/fio" --scratch "$scr" --filter '^fio/randread_4k_qd1$' --out "$out" \
  >"$work/flaky.log" 2>&1 || rc=$?
[[ $rc -eq 0 ]] || { cat "$work/flaky.log"; fail "fio rejected once per repetition: exit $rc"; }
grep -q ',gbps,[0-9.e-]*,GB/s,[0-9],ok,.*a second try: the first was rejected (bw_bytes x runtime differs from io_bytes (1 B/s' \
  "$out/io_fio.csv" || { cat "$out/io_fio.csv"; fail "a second try is not said in the row"; }
grep -q ',check_wrong,0,count,-1,ok,' "$out/io_fio.csv" || fail "fio rejected once per repetition: the case did not pass"
out="$work/out-flaky2"; mkdir -p "$out"
FLAKY_ALWAYS=1 "$io_fio" --profile tiny --fio-binary "$work/flaky/fio" --scratch "$scr" --filter '^fio/randread_4k_qd1$' \
  --out "$out" >"$work/flaky2.log" 2>&1 && fail "fio rejected every time: exit 0"
grep -q ',gbps,,GB/s,0,failed,.*(a second try; the first: bw_bytes x runtime' "$out/io_fio.csv" ||
  { cat "$out/io_fio.csv"; fail "fio rejected every time: no failed row naming both tries"; }
[[ -z "$(find "$scr" -mindepth 1)" ]] || fail "flaky fio: scratch files left"
echo "ok: fio's figures rejected once are run again (and said); rejected twice, the case fails"

# ---- the suite goes on: a registry with a broken fio, the pipeline and cpu_peak
reg="$work/registry.csv"
cat >"$reg" <<REG
name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description
io_fio_disk,io,io_fio,--fio-binary $work/fake/fio,,,60,60,60,broken fio
io_dataloader,io,io_dataloader,--no-peer,,,60,60,60,pipeline
cpu_peak,cpu,cpu_peak,,,,60,60,60,peak
REG
"$bin/rigcheck" run --profile tiny --benchmarks "$reg" --out "$work/runs" >"$work/run.log" 2>&1
run="$(find "$work/runs" -mindepth 1 -maxdepth 1 -type d | head -1)"
grep -q '^io_fio_disk,io,.*,failed,.*not valid JSON' "$run/manifest.csv" || { cat "$run/manifest.csv"; fail "manifest: io_fio_disk not failed with the JSON reason"; }
grep -q '^io_dataloader,io,.*,0,ok,' "$run/manifest.csv" || { cat "$run/manifest.csv"; fail "manifest: io_dataloader did not run ok"; }
grep -q '^cpu_peak,cpu,.*,0,ok,' "$run/manifest.csv" || { cat "$run/manifest.csv"; fail "manifest: cpu_peak did not run ok"; }
grep -qE '^IO-3,.*,(confirmed|refuted|inconclusive),' "$run/verdicts.csv" || fail "IO-3 has no measured verdict"
echo "ok: the other benchmarks ran and the report was written"
echo "io safety: all passed"
