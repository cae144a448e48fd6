#!/usr/bin/env bash
# scripts/verdict-stability.sh on run folders: three copies of the recorded quick run
# (tests/fixtures/runs/quick_vm, no verdicts.csv: the script runs `rigcheck report`) keep every
# verdict and figure -> exit 0, CPU-4's effective L3 read from its evidence; synthetic verdicts.csv
# files with quoted evidence (commas inside): one verdict changed -> VERDICT CHANGED and exit 1;
# two headline figures off by more than 15% -> both UNSTABLE with their spread, exit 0 (at most 2
# allowed); three -> exit 1; a figure missing from one run -> UNSTABLE; bad usage -> exit 2.
#   verdict_stability.sh SCRIPT RIGCHECK FIXTURES
source "$(dirname "$0")/../../support/lib.sh"
script="$1"
export RIGCHECK="$2" RIGCHECK_STABILITY_NO_COMPARE=1
runs="$3/runs"

# stability WANT LOG DIR...: the script on the run folders DIR under $tmp, its output in $tmp/LOG.log;
# fails unless it exits WANT.
stability() {
  local want="$1" log="$tmp/$2.log" rc=0
  shift 2
  bash "$script" "${@/#/$tmp/}" >"$log" 2>&1 || rc=$?
  [[ $rc == "$want" ]] || fail "$*: exit $rc, expected $want: $(tail -12 "$log")"
}

# 1. The same recorded run three times.
for i in 1 2 3; do cp -r "$runs/quick_vm" "$tmp/vm$i"; done
stability 0 same vm1 vm2 vm3
[[ -s "$tmp/vm1/verdicts.csv" ]] || fail "no verdicts.csv made by rigcheck report"
grep -q "VERDICT\|UNSTABLE" "$tmp/same.log" && fail "same run thrice: $(grep 'VERDICT\|UNSTABLE' "$tmp/same.log")"
grep -Eq "^figure CPU-4: ([0-9.]+), \1, \1; median [0-9.]+, within \+-0.0%$" "$tmp/same.log" ||
  fail "CPU-4's effective L3 not read: $(grep 'CPU-4' "$tmp/same.log")"
grep -q "^verdict-stability: 3 run(s); 0 verdict(s) changed; 0 of 8 headline figures unstable" "$tmp/same.log" ||
  fail "summary: $(tail -1 "$tmp/same.log")"
echo "ok: three copies of one run: every verdict and figure the same"

# 2. Synthetic verdicts: verdict_csv DIR CPU-1-verdict CPU-1 CPU-3 CPU-4(MiB) CPU-5 MEM-4 IO-2 IO-3 NET-1
verdict_csv() {
  local d="$tmp/$1" v1="$2"
  shift 2
  mkdir -p "$d"
  {
    echo "claim_id,section,claim,verdict,guide_value,measured_value,measured_low,measured_high,reps,predicted_value,unit,evidence,reason,guide_error,basis,summary"
    echo "CPU-1,cpu,\"scaling, to 8 threads\",$v1,70,$1,,,5,,%,\"E(2) per pair, 5 pairs\",,,measured,"
    echo "CPU-3,cpu,x,inconclusive,18,$2,,,5,,%,\"emulated, gain\",,,emulated,"
    echo "CPU-4,cpu,x,confirmed,25,32,,,1,,MiB,\"nominal L3 32 MiB; measured effective L3 16 MiB to 24 MiB, about $3 MiB (knee, robust)\",,,inventory,"
    echo "CPU-5,cpu,x,refuted,20,$4,,,5,,%,\"a, b\",,,measured,"
    echo "MEM-4,memory,x,refuted,30,$5,,,5,,%,,,,measured,"
    echo "IO-2,io,x,confirmed,1,$6,,,5,,GB/s,,,,measured,"
    echo "IO-3,io,x,confirmed,1,$7,,,5,,x,,,,measured,"
    echo "NET-1,comm,x,inconclusive,1,$8,,,5,,GB/s,,,,measured,"
    echo "MEM-1,memory,x,confirmed,1,,,,5,,GB,,,,measured,"
  } >"$d/verdicts.csv"
}
# three_runs NAME FIGURES-OF-THE-SECOND: NAME1 and NAME3 the base run, NAME2 with the figures given.
base=(confirmed 70 10 20 30 100 2 3 4)
three_runs() {
  verdict_csv "${1}1" "${base[@]}"
  verdict_csv "${1}2" "${@:2}"
  verdict_csv "${1}3" "${base[@]}"
}
three_runs a confirmed 72 10 21 30 100 2 3 4
verdict_csv a3 inconclusive 71 10 20 30 100 2 3 4
stability 1 changed a1 a2 a3
grep -q "^VERDICT CHANGED CPU-1: a1=confirmed a2=confirmed a3=inconclusive$" "$tmp/changed.log" ||
  fail "no VERDICT CHANGED line: $(cat "$tmp/changed.log")"
[[ $(grep -c "^VERDICT" "$tmp/changed.log") == 1 ]] || fail "other verdicts named: $(grep '^VERDICT' "$tmp/changed.log")"
grep -q "UNSTABLE" "$tmp/changed.log" && fail "figures within 3% called unstable: $(grep UNSTABLE "$tmp/changed.log")"
echo "ok: one changed verdict named, exit 1"

three_runs d confirmed 70 10 30 30 100 2 3 4.7
stability 0 two d1 d2 d3
grep -q "^UNSTABLE CPU-4: 20, 30, 20; median 20, spread +-50.0% (limit 15%)$" "$tmp/two.log" ||
  fail "CPU-4 not unstable: $(cat "$tmp/two.log")"
grep -q "^UNSTABLE NET-1: 4, 4.7, 4; median 4, spread +-17.5%" "$tmp/two.log" || fail "NET-1 not unstable: $(cat "$tmp/two.log")"
grep -q "^figure MEM-4: 100, 100, 100; median 100, within +-0.0%$" "$tmp/two.log" || fail "MEM-4: $(cat "$tmp/two.log")"
echo "ok: two unstable figures printed with their spread, exit 0"

three_runs g confirmed 70 10 30 30 100 2 3 4.7
sed -i 's/^IO-3,io,x,confirmed,1,3,/IO-3,io,x,confirmed,1,,/' "$tmp/g3/verdicts.csv"
stability 1 three g1 g2 g3
grep -q "^UNSTABLE IO-3: measured in 2 of 3 runs (3, 3, -)$" "$tmp/three.log" || fail "missing figure: $(cat "$tmp/three.log")"
grep -q "3 of 8 headline figures unstable (at most 2 allowed)" "$tmp/three.log" || fail "summary: $(tail -1 "$tmp/three.log")"
echo "ok: three unstable figures (one missing from a run), exit 1"

stability 2 one a1
stability 2 missing a1 nonexistent
echo "ok: bad usage refused"
