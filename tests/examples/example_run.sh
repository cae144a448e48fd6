#!/usr/bin/env bash
# The example of docs/adding-a-benchmark.md, as a newcomer would follow it:
# 1. the binary lists its cases and refuses a --filter that matches none (exit 2);
# 2. `rigcheck run --benchmarks examples/benchmarks.csv --profile tiny` runs it: the manifest says
#    ok, every case was checked (check_wrong 0 with the method), gbps rows are there with their
#    repetitions, the derived row (example_triad_best) is the highest ok repetition, the report is
#    written and says where each claim's data is missing;
# 3. every excerpt of the doc whose first line names a file (// examples/triad.cpp) is found
#    in that file, line for line (support/doc_excerpts.sh): the doc cannot drift from the code it quotes.
source "$(dirname "$0")/../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
triad="$2"
src="$3"
out="$tmp"

# the example's registry is what the binary declares (--describe; scripts/registry.sh writes it)
"$src/scripts/registry.sh" --registry "$src/examples/benchmarks.csv" --check "$(dirname "$(dirname "$triad")")" \
  example_triad || fail "examples/benchmarks.csv is not what example_triad --describe says"
# and it declares its row of a table of benchmarks (declare_doc), as a suite binary does for docs/benchmarks.md
"$triad" --describe >"$out/describe.txt" || fail "--describe exited $?"
grep -q '^# doc: | `example_triad` | .* | none |$' "$out/describe.txt" ||
  fail 'example_triad --describe prints no "# doc: | `example_triad` | ... |" line (declare_doc)'
"$triad" --profile tiny --list >"$out/list.txt" || fail "--list exited $?"
grep -q '^example_triad/n4096/t1' "$out/list.txt" || fail "--list lacks example_triad/n4096/t1: $(head -5 "$out/list.txt")"
rc=0
"$triad" --profile tiny --filter 'no_such_case' --out "$out/none" >"$out/none.log" 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "a --filter matching nothing gave exit $rc, not 2"

"$rigcheck" run --profile tiny --benchmarks "$src/examples/benchmarks.csv" --bin-dir "$(dirname "$triad")" \
  --out "$out/results" >"$out/run.log" 2>&1 || { cat "$out/run.log"; fail "rigcheck run exited $?"; }
run=$(find "$out/results" -mindepth 1 -maxdepth 1 -type d)
csv="$run/example_triad.csv"
[[ -s "$csv" ]] || fail "no $csv"
grep -q '^example_triad,cpu,.*,0,ok,' "$run/manifest.csv" || fail "manifest: $(cat "$run/manifest.csv")"
ncases=$(grep -c ',check_wrong,' "$csv")
((ncases >= 2)) || fail "$ncases cases checked, expected every case of the tiny profile (2 sizes at least)"
if grep ',check_wrong,' "$csv" | grep -v ',check_wrong,0,count,'; then fail "a case computed a wrong answer"; fi
grep ',check_wrong,' "$csv" | grep -q 'long double' || fail "the check's method is not recorded"
ok_gbps=$(grep -c ',gbps,.*,ok,' "$csv" || true)
mistrusted=$(grep -c ',gbps,.*,mistrusted,' "$csv" || true)
((ok_gbps + mistrusted >= 2 * 3)) || fail "expected repetitions of gbps per case, found $ok_gbps ok + $mistrusted mistrusted"
if ((ok_gbps > 0)); then
  # value is column 7; a quoted field (params with a CPU list "cpus=0,1", a note) holds commas: each
  # is replaced by one word first.
  unquote() { sed -E 's/"([^"]|"")*"/Q/g'; }
  best=$(grep '^[^,]*,[^,]*,example_triad_best,best,' "$csv" | unquote | cut -d, -f7)
  [[ -n "$best" ]] || fail "no derived row example_triad_best"
  top=$(grep ',gbps,.*,ok,' "$csv" | grep -v example_triad_best | unquote | cut -d, -f7 | sort -g | tail -1)
  awk -v a="$best" -v b="$top" 'BEGIN { exit !(a == b) }' || fail "derived best $best is not the highest ok repetition $top"
else
  echo "note: every repetition mistrusted (a busy machine): the derived row is rightly absent"
  ! grep -q 'example_triad_best' "$csv" || fail "a derived row made of mistrusted repetitions"
fi
[[ -s "$run/report.md" && -s "$run/verdicts.csv" ]] || fail "no report"

excerpts=$(bash "$(dirname "$0")/../support/doc_excerpts.sh" "$src/docs/adding-a-benchmark.md" "$src" 3) ||
  fail "an excerpt of docs/adding-a-benchmark.md is not in its file (above)"
echo "example benchmark ok: $ncases cases checked, $ok_gbps ok gbps repetitions; $excerpts"
