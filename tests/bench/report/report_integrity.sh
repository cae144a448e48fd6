#!/usr/bin/env bash
# `rigcheck report` on damaged copies of a checksummed run folder (a quick run of the 2-core test
# machine, fixtures/runs/quick_vm: its manifest records each result file's rows and SHA-256):
# a result CSV cut in the middle of its first data row, a row edited after the run, a deleted
# result file: each refused (exit 1) with the file and what differs, and nothing written; with
# --exclude-broken the file is left out and the report says why. The untouched folder reports with
# exit 0 and says its files were verified; a folder written before checksums reports with exit 0
# and says "not verifiable (written before checksums)".
source "$(dirname "$0")/../../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
fixtures="$2"
run="$fixtures/runs/quick_vm"
[[ -f $run/manifest.csv ]] && head -1 "$run/manifest.csv" | grep -q ',rows,sha256$' ||
  fail "$run has no checksummed manifest"

refused() {  # name, file, expected reason (grep -E), command that damages $dir
  local name="$1" file="$2" why="$3"
  local dir="$tmp/$name"
  cp -r "$run" "$dir"
  echo "EARLIER REPORT" >"$dir/report.md"
  rm -f "$dir/verdicts.csv"
  (cd "$dir" && eval "$4")
  if "$rigcheck" report "$dir" >"$dir.out" 2>"$dir.err"; then fail "$name: report accepted a damaged folder"; fi
  grep -Eq "^rigcheck: $dir/$file: $why" "$dir.err" || fail "$name: the message lacks the file and the reason: $(cat "$dir.err")"
  [[ $(cat "$dir/report.md") == "EARLIER REPORT" && ! -e $dir/verdicts.csv ]] || fail "$name: a report was written"
  echo "ok: $name refused: $(cat "$dir.err")"
}
# Cut in the middle of the first data row: the header and half a row, no newline at the end.
refused cut comm_allreduce_mpi.csv "cut: it ends in the middle of a row \(no newline at its end; 0 whole rows before it, the manifest recorded [0-9]+\)" \
  'head -1 comm_allreduce_mpi.csv >t && sed -n 2p comm_allreduce_mpi.csv | head -c 40 >>t && mv t comm_allreduce_mpi.csv'
# One measurement changed after the run (the 5th line's value: one digit more).
refused edited cpu_gemm.csv "edited after the run: the [0-9]+ rows the manifest recorded are there, but the content differs \(SHA-256 [0-9a-f]+\.\.\., the manifest recorded [0-9a-f]+\.\.\.\)" \
  "awk -F, -v OFS=, 'NR==5{\$7=\$7\"1\"}1' cpu_gemm.csv >t && mv t cpu_gemm.csv"
refused deleted memory_thp.csv "missing: the manifest says memory_thp wrote it \([0-9]+ rows, SHA-256 [0-9a-f]+\.\.\.\)" 'rm memory_thp.csv'

# --exclude-broken: judged without the cut file, which the report names with the reason.
dir="$tmp/cut"
"$rigcheck" report --exclude-broken "$dir" >"$dir.out2" 2>&1 || fail "--exclude-broken: $(cat "$dir.out2")"
grep -q "left out of every verdict (--exclude-broken): comm_allreduce_mpi.csv: cut:" "$dir/report.md" ||
  fail "--exclude-broken: report.md does not name the file left out"
echo "ok: --exclude-broken reports without comm_allreduce_mpi.csv and says why"

# Untouched: exit 0, every file verified.
cp -r "$run" "$tmp/untouched"
"$rigcheck" report "$tmp/untouched" --quiet >"$tmp/untouched.out" 2>&1 || fail "untouched folder refused: $(cat "$tmp/untouched.out")"
n=$(grep -c ',[0-9a-f]\{64\}$' "$run/manifest.csv")
grep -q "^Result files: $n of $n result files verified" "$tmp/untouched/report.md" ||
  fail "untouched: report.md does not say the $n files were verified: $(grep '^Result files' "$tmp/untouched/report.md")"
echo "ok: untouched folder reports with exit 0: $n of $n result files verified"

# Written before checksums: exit 0 and said.
cp -r "$fixtures/runs/good" "$tmp/old"
"$rigcheck" report "$tmp/old" --quiet >"$tmp/old.out" 2>&1 || fail "an old folder was refused: $(cat "$tmp/old.out")"
grep -q "^Result files: not verifiable (written before checksums): cpu_gemm.csv, cpu_peak.csv\.$" "$tmp/old/report.md" ||
  fail "old folder: $(grep '^Result files' "$tmp/old/report.md")"
echo "ok: a folder written before checksums reports with exit 0, not verifiable"
echo "report_integrity ok"
