#!/usr/bin/env bash
# A benchmark cannot include a tool header: building layout_probe_tool (a benchmark that includes
# rigcheck/report/report.hpp) must fail on that include, while layout_probe_harness (harness and
# inventory headers) builds. Both targets are EXCLUDE_FROM_ALL; this test builds them.
set -uo pipefail
build=$1
out=$(cmake --build "$build" --target layout_probe_harness 2>&1) || { echo "$out"; echo "FAIL: a benchmark could not include harness headers"; exit 1; }
out=$(cmake --build "$build" --target layout_probe_tool 2>&1)
rc=$?
if [[ $rc -eq 0 ]]; then
  echo "FAIL: a benchmark compiled with #include \"rigcheck/report/report.hpp\": the tool's headers are visible to benchmarks"
  exit 1
fi
if ! grep -q 'rigcheck/report/report.hpp: No such file or directory' <<<"$out"; then
  echo "$out" | tail -20
  echo "FAIL: the probe failed, but not on the tool header"
  exit 1
fi
echo "ok: the tool's headers are invisible to benchmarks; the harness's are visible"
