#!/usr/bin/env bash
# Acceptance of the run-level comparisons on this machine (docs/methodology.md,
# "Comparing runs: the statistics"). Too slow for ctest: about an hour on 2 cores.
#   A/A      five back-to-back quick runs of one commit (`rigcheck run --repeat 5`): the noise
#            profile of the first three; runs 4 and 5 compared with each other and with the first
#            three using it: at most 1% of the cases judged flagged, --fail-on-regression 10
#            exits 0, the flags expected by chance printed; runs 4 and 5 without a profile: exit
#            0, and the output says why it cannot judge.
#   splits   every split of the five into 2 or 3 baseline runs against 1 other (50 comparisons):
#            --fail-on-regression 10 exits 0 on each; the table in splits.txt.
#   change   three quick runs with oneDNN capped at AVX2 (ONEDNN_MAX_CPU_ISA=AVX2 exported, recorded
#            in the inventory) against the five, with their noise profile: the oneDNN cases
#            flagged, the ISA cap named, no memory, io or comm case flagged.
#   history  the five and the three in time order: the change points lie between the last run
#            before the cap and the first after it, attributed to the cap, one per case.
#   ab       interleaved A/B, 10 rounds of one short benchmark (cpu_gemm's two OpenBLAS SGEMM
#            cases): OPENBLAS_CORETYPE=Haswell against OPENBLAS_CORETYPE=Sandybridge (OpenBLAS's
#            FMA kernel against its AVX kernel without FMA: about 10% apart at one thread on the
#            Zen 5 VM, docs/performance.md) is found with its interval; an A/A interleaved run
#            (Haswell against Haswell) finds nothing.
# Give existing folders to skip the runs: --aa DIR (a `run --repeat 5` folder, or five run
# folders' parent), --changed DIR (three AVX2 runs' parent). --steps aa,splits,change,history,ab chooses
# steps; --out DIR keeps the outputs (default results/noise-check-<time>). --profile P and
# --select LIST (registry entries) make the runs smaller, to try the script itself (the figures
# of docs/performance.md are of whole quick runs). Heavy commands run behind $NOISE_CHECK_LOCK when
# it is set (e.g. "flock /tmp/rigcheck-heavy.lock").
set -uo pipefail
cd "$(dirname "$0")/.."
rigcheck=${RIGCHECK:-build/bin/rigcheck}
lock=${NOISE_CHECK_LOCK:-}
aa="" changed="" steps="aa,splits,change,history,ab" out="results/noise-check-$(date -u +%Y%m%dT%H%M%SZ)"
profile=quick select=()
ab_select=cpu_gemm ab_filter='sgemm_openblas' ab_rounds=10
ab_a="OPENBLAS_CORETYPE=Haswell" ab_b="OPENBLAS_CORETYPE=Sandybridge"
while (($#)); do
  case "$1" in
    --aa) aa="$2"; shift 2 ;;
    --changed) changed="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --rounds) ab_rounds="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --select) select=(--select "$2"); shift 2 ;;
    -h|--help) sed -n 2,25p "$0"; exit 0 ;;
    *) echo "noise-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*" | tee -a "$out/summary.txt" >&2; failures=$((failures + 1)); }
say() { echo "$*" | tee -a "$out/summary.txt"; }
step() { [[ ",$steps," == *",$1,"* ]]; }
heavy() { $lock "$@"; }
runs_in() { find "$1" -mindepth 1 -maxdepth 1 -type d -name '*-20*' | sort; }
# The counts line of a compare/ab log: "Flagged N of M cases judged (...); expected by chance ...".
counts() { grep -m1 "^Flagged" "$1" | tr -d '*'; }
flagged_of() { counts "$1" | awk '{print $2}'; }
judged_of() { counts "$1" | awk '{print $4}'; }

# N quick runs back to back (rigcheck run --repeat N) with the environment the caller gives, the log
# in $out/LOG; prints the noise-* folder they went to.
repeat_runs() {
  local n=$1 log=$2 before
  before=$(ls -d results/noise-* 2>/dev/null | sort)
  heavy "$rigcheck" run --profile "$profile" "${select[@]}" --repeat "$n" --out results >"$out/$log" 2>&1 ||
    say "(a run exited non-zero: see $out/$log)" >&2
  comm -13 <(echo "$before") <(ls -d results/noise-* | sort) | tail -1
}

# ---------------------------------------------------------------- A/A
if [[ -z "$aa" ]] && (step aa || step splits || step change || step history); then
  say "A/A: five quick runs back to back (rigcheck run --profile quick --repeat 5)"
  aa=$(repeat_runs 5 aa-runs.log)
fi
R=()
[[ -n "$aa" ]] && mapfile -t R < <(runs_in "$aa")
if step aa; then
  ((${#R[@]} >= 5)) || { fail "A/A needs five runs in '$aa', found ${#R[@]}"; exit 1; }
  say "A/A runs: ${R[*]:0:5}"
  "$rigcheck" noise "${R[@]:0:3}" --out "$out/noise3.csv" >"$out/noise3.log" 2>&1 || fail "noise of runs 1-3: $(tail -2 "$out/noise3.log")"
  say "  $(grep -m1 "Noise profile" "$out/noise3.log")"
  check_aa() {  # name, compare arguments...
    local name="$1" rc=0
    shift
    "$rigcheck" compare "$@" --noise "$out/noise3.csv" --fail-on-regression 10 --out "$out/$name" >"$out/$name.log" 2>&1 || rc=$?
    local f j
    f=$(flagged_of "$out/$name.log") j=$(judged_of "$out/$name.log")
    say "  $name: exit $rc; $(counts "$out/$name.log")"
    [[ $rc == 0 ]] || fail "$name: --fail-on-regression 10 exited $rc"
    [[ -n "$j" ]] || { fail "$name: no counts line"; return; }
    ((f * 100 <= j)) || fail "$name: $f of $j cases judged flagged (more than 1%)"
    grep -q "expected by chance" "$out/$name.log" || fail "$name: the flags expected by chance are not printed"
  }
  check_aa aa_r4_r5 "${R[3]}" "${R[4]}"
  check_aa aa_r123_r4 --a "${R[@]:0:3}" --b "${R[3]}"
  check_aa aa_r123_r5 --a "${R[@]:0:3}" --b "${R[4]}"
  check_aa aa_r123_r45 --a "${R[@]:0:3}" --b "${R[3]}" "${R[4]}"
  rc=0
  "$rigcheck" compare "${R[3]}" "${R[4]}" --fail-on-regression 10 --out "$out/aa_bare" >"$out/aa_bare.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || fail "one run per side, no profile: exit $rc"
  grep -q "Cannot judge significance" "$out/aa_bare.log" || fail "one run per side, no profile: the reason is not said"
  say "  aa_bare (runs 4, 5, no profile): exit $rc; $(grep -m1 -o 'Cannot judge significance[^.]*' "$out/aa_bare.log")"
fi

# ---------------------------------------------------------------- the gate on every split
# Every split of the five runs into 2 or 3 baseline runs against 1 other (50 comparisons, no noise
# profile): --fail-on-regression 10 must exit 0 on each; the table of splits and exit codes is
# $out/splits.txt.
if step splits; then
  ((${#R[@]} >= 5)) || { fail "splits need five runs in '$aa', found ${#R[@]}"; exit 1; }
  say "splits: every 2 or 3 of runs 1-5 against 1 other, --fail-on-regression 10"
  : >"$out/splits.txt"
  bad=0 total=0
  for mask in $(seq 1 31); do
    base=() rest=()
    for i in 0 1 2 3 4; do if (((mask >> i) & 1)); then base+=("$i"); else rest+=("$i"); fi; done
    ((${#base[@]} == 2 || ${#base[@]} == 3)) || continue
    for j in "${rest[@]}"; do
      a_runs=()
      for i in "${base[@]}"; do a_runs+=("${R[$i]}"); done
      rc=0
      "$rigcheck" compare --a "${a_runs[@]}" --b "${R[$j]}" --fail-on-regression 10 --out "$out/split" >"$out/split.log" 2>&1 || rc=$?
      names="$(for i in "${base[@]}"; do printf '%d,' $((i + 1)); done | sed 's/,$//') vs $((j + 1))"
      echo "$names: exit $rc; $(counts "$out/split.log"); $(grep -m1 '^GATE' "$out/split.log" | cut -c1-160)" >>"$out/splits.txt"
      rm -rf "$out/split"
      total=$((total + 1))
      ((rc == 0)) || bad=$((bad + 1))
    done
  done
  say "  $total splits, $bad exited non-zero (each: $out/splits.txt)"
  ((bad == 0)) || fail "splits: $bad of $total comparisons failed the gate"
fi

# ---------------------------------------------------------------- a real change
if [[ -z "$changed" ]] && (step change || step history); then
  say "change: three quick runs with ONEDNN_MAX_CPU_ISA=AVX2 exported"
  changed=$(ONEDNN_MAX_CPU_ISA=AVX2 repeat_runs 3 avx2-runs.log)
fi
C=()
[[ -n "$changed" ]] && mapfile -t C < <(runs_in "$changed")
if step change; then
  ((${#C[@]} >= 2)) || { fail "change needs two or more runs in '$changed'"; exit 1; }
  [[ -s "$aa/noise.csv" ]] && prof="$aa/noise.csv" || {
    "$rigcheck" noise "${R[@]:0:5}" --out "$out/noise5.csv" >/dev/null && prof="$out/noise5.csv"
  }
  rc=0
  "$rigcheck" compare --a "${R[@]:0:5}" --b "${C[@]}" --noise "$prof" --fail-on-regression 10 --out "$out/change" \
    >"$out/change.log" 2>&1 || rc=$?
  say "  change (5 runs against ${#C[@]}, profile $prof): exit $rc; $(counts "$out/change.log")"
  grep -q "ISA cap (ONEDNN_MAX_CPU_ISA): unset -> AVX2" "$out/change/compare.md" || fail "change: the ISA cap is not named"
  # compare.csv: column 1 benchmark, 4 flag, 27 area (the first columns hold no comma)
  awk -F, 'NR>1 && ($4=="regression" || $4=="improvement") {print $27, $1, $4}' "$out/change/compare.csv" | sort | uniq -c \
    >"$out/change-flagged.txt"
  say "  flagged by area, benchmark, flag: $(tr -s ' ' <"$out/change-flagged.txt" | tr '\n' ';')"
  grep -qE " (memory|io|comm) " "$out/change-flagged.txt" && fail "change: memory, io or comm cases flagged"
  grep -qE " cpu (gemm_matmul_f32|gemm_sgemm_onednn|fc_inner_product_f32|isa_primitives|fc_working_set_f32) regression" \
    "$out/change-flagged.txt" || fail "change: no oneDNN case flagged"
  grep "^REGRESSION" "$out/change.log" | head -3 | while read -r l; do say "    $l"; done
fi

# ---------------------------------------------------------------- history
if step history; then
  rc=0
  "$rigcheck" history "${R[@]:0:5}" "${C[@]}" --fail-on-regression 10 --out "$out/history" >"$out/history.log" 2>&1 || rc=$?
  n=$(grep -c "^REGRESSION\|^IMPROVEMENT" "$out/history.log")
  say "  history of $((5 + ${#C[@]})) runs: exit $rc; $n change points; $(grep -m1 -o '[0-9]* change points in [0-9]* series[^;]*; expected by chance[^)]*)' "$out/history.log")"
  first_changed=$(basename "${C[0]}") last_before=$(basename "${R[4]}")
  # A case missing from the last run before the cap (all its repetitions mistrusted there) has its
  # change point after its own last run: the change point must end at the first capped run.
  wrong=$(grep "^REGRESSION\|^IMPROVEMENT" "$out/history.log" | grep -v " and $first_changed " | wc -l)
  ((n > 0)) || fail "history: no change point"
  ((wrong == 0)) || fail "history: $wrong change points elsewhere: $(grep "^REGRESSION\|^IMPROVEMENT" "$out/history.log" | grep -v " and $first_changed " | head -3)"
  grep "^REGRESSION\|^IMPROVEMENT" "$out/history.log" | grep -v "changed: .*ONEDNN_MAX_CPU_ISA" | grep -q . &&
    fail "history: a change point not attributed to the ISA cap"
  dup=$(tail -n +2 "$out/history/history.csv" | cut -d, -f1-3 | sort | uniq -d | head -3)
  [[ -z "$dup" ]] || fail "history: more than one change point for $dup"
  grep -m2 "^REGRESSION" "$out/history.log" | while read -r l; do say "    $l"; done
fi

# ---------------------------------------------------------------- interleaved A/B
if step ab; then
  for pair in "ab|$ab_a|$ab_b" "aa_interleaved|$ab_a|$ab_a"; do
    IFS='|' read -r name a b <<<"$pair"
    rc=0
    heavy "$rigcheck" ab --a "$a" --b "$b" --rounds "$ab_rounds" --select "$ab_select" --filter "$ab_filter" \
      --profile "$profile" --out "$out/$name" >"$out/$name.log" 2>&1 || rc=$?
    d=$(find "$out/$name" -mindepth 1 -maxdepth 1 -type d | head -1)
    say "  $name ($a vs $b, $ab_rounds rounds of $ab_select $ab_filter): exit $rc; $(counts "$out/$name.log")"
    grep "^REGRESSION\|^IMPROVEMENT" "$out/$name.log" | while read -r l; do say "    $l"; done
    f=$(flagged_of "$out/$name.log")
    if [[ $name == ab ]]; then ((f > 0)) || fail "ab: the difference was not found"; else ((f == 0)) || fail "A/A interleaved: $f flagged"; fi
    [[ -s "$d/order.csv" ]] && say "    order: $(tail -n +2 "$d/order.csv" | cut -d, -f1,3 | paste -sd' ')"
  done
fi

say "noise-check: $failures failures; outputs in $out"
exit $((failures > 0))
