#!/usr/bin/env bash
# `rigcheck export --format junit` read by a JUnit reader from Debian, junitparser (package
# junitparser): `junitparser merge` parses the export and writes the totals it counts from the test
# cases themselves (not from the export's own attributes). For the fixture quick_vm (refuted,
# not_measurable, confirmed and inconclusive claims) the merged failures must equal the refuted
# verdicts and skipped the not_measurable and no_benchmark ones, as `rigcheck report` prints them
# for the same run; tests the number of claims. Skips (77) where junitparser is absent.
source "$(dirname "$0")/../../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
fixtures="$2"
command -v junitparser >/dev/null || { echo "SKIP: junitparser absent (Debian junitparser; scripts/setup.sh --tests)"; exit 77; }

cp -r "$fixtures/runs/quick_vm" "$tmp/run"
"$rigcheck" export --format junit "$tmp/run" --out "$tmp/export.xml" || fail "export failed"
[[ ! -e $tmp/run/verdicts.csv ]] || fail "the export wrote into the run folder"
junitparser merge "$tmp/export.xml" "$tmp/merged.xml" || fail "junitparser could not read the export"

# The verdicts as `rigcheck report` prints them (claim, verdict, ...), one line per claim.
"$rigcheck" report "$tmp/run" >"$tmp/report.out" || fail "report failed"
verdicts() { awk '$1 ~ /^[A-Z]+-[0-9]+$/ { print $2 }' "$tmp/report.out"; }
claims=$(verdicts | wc -l)
refuted=$(verdicts | grep -c '^refuted$' || true)
skipped=$(verdicts | grep -Ec '^(not_measurable|no_benchmark)$' || true)
((claims >= 20 && refuted >= 1 && skipped >= 1)) || fail "the report lists $claims claims, $refuted refuted, $skipped skipped"

# The merged file's totals (the root element's attributes).
total() { grep -o "<testsuites [^>]*" "$tmp/merged.xml" | grep -o " $1=\"[0-9]*\"" | grep -o '[0-9]*'; }
[[ $(total failures) == "$refuted" ]] || fail "junitparser counts $(total failures) failures, the run has $refuted refuted claims"
[[ $(total skipped) == "$skipped" ]] || fail "junitparser counts $(total skipped) skipped, the run has $skipped not measurable"
[[ $(total tests) == "$claims" ]] || fail "junitparser counts $(total tests) tests, the run has $claims claims"
[[ $(total errors) == 0 ]] || fail "junitparser counts $(total errors) errors"
grep -q '对于中等规模模型' "$tmp/merged.xml" || fail "the guide's Chinese text did not survive the reader"
echo "export_junit ok: $claims claims, $refuted failures, $skipped skipped, as junitparser counts them"
