#!/usr/bin/env bash
# Behaviour kept across refactors: `rigcheck report` on every fixture run that reports gives the same
# report.md and verdicts.csv, byte for byte, as the outputs kept in tests/fixtures/golden/ (made by
# the suite at the commit their README names; nothing in them depends on the time or the path);
# `rigcheck compare` and `history` on fixture runs the same compare.md/history.md (their `Written`
# timestamps and the temporary paths masked). A change of output on purpose regenerates them:
#   golden.sh RIGCHECK FIXTURES GOLDEN --update     (then say why in the commit)
#   golden.sh RIGCHECK FIXTURES GOLDEN              (the test)
source "$(dirname "$0")/../../support/lib.sh"
rigcheck="$1" fixtures="$2" golden="$3" update="${4:-}"
runs="$fixtures/runs"
mask() { sed -E "s#$tmp#TMP#g; s#$runs#RUNS#g; s/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:]{8}Z?( UTC)?/TIME/g" "$1"; }
check() {  # NAME FILE: FILE's masked text against golden/NAME
  local want="$golden/$1"
  if [[ $update == --update ]]; then mkdir -p "$(dirname "$want")"; mask "$2" >"$want"; return; fi
  [[ -f $want ]] || fail "no golden $want (make it with --update)"
  diff -u "$want" <(mask "$2") >"$tmp/diff" || { head -40 "$tmp/diff"; fail "$1 differs from the golden copy"; }
}
n=0
for d in "$runs"/*/; do
  name=$(basename "$d")
  [[ -f $d/manifest.csv ]] || continue
  cp -r "$d" "$tmp/$name"
  "$rigcheck" report "$tmp/$name" >/dev/null 2>&1 || fail "rigcheck report $name: exit $?"
  check "$name/report.md" "$tmp/$name/report.md"
  check "$name/verdicts.csv" "$tmp/$name/verdicts.csv"
  n=$((n + 1))
done
((n >= 10)) || fail "only $n fixture runs reported"
rc=0
"$rigcheck" compare --a "$runs/compare_a" "$runs/compare_a2" --b "$runs/compare_slowed" "$runs/compare_slowed2" \
  --out "$tmp/cmp" >/dev/null 2>&1 || rc=$?
((rc == 0)) || fail "compare: exit $rc"
check compare/compare.md "$tmp/cmp/compare.md"
"$rigcheck" history "$runs/history_onednn" "$runs/history_onednn2" "$runs/history_onednn3" --out "$tmp/hist" \
  >/dev/null 2>&1 || fail "history: exit $?"
check history/history.md "$tmp/hist/history.md"
echo "$n fixture reports, compare and history: $([[ $update == --update ]] && echo written || echo as the golden copies)"
