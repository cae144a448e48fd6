#!/usr/bin/env bash
# `rigcheck export --format openmetrics` read by Prometheus's own checker, `promtool check metrics`
# (Debian prometheus): the exports of the fixtures good and quick_vm, and of a copy of good whose
# hostname and CPU model hold quotes, a backslash and Chinese text (label values to escape), are
# accepted with exit 0 and no lint warning (promtool exits 3 with a warning; any output fails here).
# Each holds the run's series, one headline series per case, and one verdict series per claim and
# verdict of which exactly one per claim is 1. Skips (77) where promtool is absent.
source "$(dirname "$0")/../../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
fixtures="$2"
command -v promtool >/dev/null || { echo "SKIP: promtool absent (Debian prometheus; scripts/setup.sh --tests)"; exit 77; }

cp -r "$fixtures/runs/good" "$tmp/quoted"
sed -i -e 's/^hostname,.*/hostname,"机器 ""a"" \\b"/' -e 's/^cpu_model,.*/cpu_model,"CPU ""X"" 中文"/' "$tmp/quoted/inventory.csv"

for run in "$fixtures/runs/good" "$fixtures/runs/quick_vm" "$tmp/quoted"; do
  name=$(basename "$run")
  "$rigcheck" export --format openmetrics "$run" --out "$tmp/$name.prom" || fail "$name: export failed"
  if ! promtool check metrics <"$tmp/$name.prom" >"$tmp/$name.check" 2>&1; then
    fail "$name: promtool refused the export: $(cat "$tmp/$name.check")"
  fi
  [[ ! -s $tmp/$name.check ]] || fail "$name: promtool warns: $(cat "$tmp/$name.check")"
  grep -q '^rigcheck_run_info{' "$tmp/$name.prom" || fail "$name: no rigcheck_run_info"
  cases=$(grep -c '^rigcheck_case_median{' "$tmp/$name.prom" || true)
  ((cases > 0)) || fail "$name: no case medians"
  claims=$(grep -c '^rigcheck_claim_verdict{.*verdict="confirmed"}' "$tmp/$name.prom" || true)
  current=$(grep -c '^rigcheck_claim_verdict{.*} 1$' "$tmp/$name.prom" || true)
  ((claims >= 20 && current == claims)) || fail "$name: $claims claims but $current current verdicts"
  echo "ok: $name: promtool accepts it: $cases case medians, $claims claims"
done
grep -q 'host="机器 \\"a\\" \\\\b",cpu_model="CPU \\"X\\" 中文"' "$tmp/quoted.prom" ||
  fail "the quoted labels are not escaped as expected: $(grep -m1 '^rigcheck_run_info' "$tmp/quoted.prom")"
echo "export_openmetrics ok"
