#!/usr/bin/env bash
# `rigcheck report` on broken copies of a fixture run: non-zero exit, a message naming file,
# line and reason, and the earlier report left untouched.
source "$(dirname "$0")/../../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
fixtures="$2"

check() {  # name, awk program run on cpu_gemm.csv (breaks line 5), expected reason
  local dir="$tmp/$1"
  cp -r "$fixtures/runs/good" "$dir"
  echo "EARLIER REPORT" >"$dir/report.md"
  awk -F, -v OFS=, "$2" "$dir/cpu_gemm.csv" >"$dir/t" && mv "$dir/t" "$dir/cpu_gemm.csv"
  if "$rigcheck" report "$dir" >"$dir/out" 2>"$dir/err"; then fail "$1: report accepted a broken file"; fi
  grep -q "$dir/cpu_gemm.csv:5: .*$3" "$dir/err" || fail "$1: message lacks file:line and reason: $(cat "$dir/err")"
  [[ $(cat "$dir/report.md") == "EARLIER REPORT" ]] || fail "$1: the earlier report was overwritten"
  [[ ! -e "$dir/verdicts.csv" ]] || fail "$1: verdicts.csv written from a broken run"
  echo "ok: $1: $(cat "$dir/err")"
}
check columns 'NR==5{$0=$0",extra"}1' "too many columns"
check number 'NR==5{$7="fast"}1' "not a finite number"
check version 'NR==5{$1="2"}1' "unknown schema_version 2"

# A good copy reports fine and says so.
cp -r "$fixtures/runs/good" "$tmp/good"
"$rigcheck" report "$tmp/good" >"$tmp/good.out" || fail "good fixture refused"
[[ $(tail -n +2 "$tmp/good/verdicts.csv" | wc -l) -ge 25 ]] || fail "too few verdicts"
echo "report_cli ok"
