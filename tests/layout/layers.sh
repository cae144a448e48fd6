#!/usr/bin/env bash
# The tool's layers (bench/CMakeLists.txt, docs/architecture.md): no include runs back up.
# 1. scripts/check-layers.sh over the source tree finds no arrow up, and finds the one planted in a
#    copy of bench/ (so the script can fail);
# 2. the build enforces it: a probe of the runfolder layer that includes a report header does not
#    compile (the header is not on its include path), a probe of the claims layer that includes its
#    own and runfolder's headers does.
#   layers.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
build="$1" src="$2"
"$src/scripts/check-layers.sh" "$src" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "an include runs back up the layers"; }
tail -1 "$tmp/out"
mkdir -p "$tmp/copy"
cp -r "$src/bench" "$tmp/copy/"
sed -i '1i #include "rigcheck/compare/compare.hpp"' "$tmp/copy/bench/runfolder/src/needs.cpp"
if "$src/scripts/check-layers.sh" "$tmp/copy" >"$tmp/out" 2>&1; then fail "check-layers.sh missed a planted include up"; fi
grep -q 'UP: bench/runfolder/src/needs.cpp (runfolder) includes rigcheck/compare/' "$tmp/out" ||
  { cat "$tmp/out"; fail "check-layers.sh failed, but did not name the planted include"; }
out=$(cmake --build "$build" --target layer_probe_down 2>&1) || { echo "$out" | tail -20; fail "claims could not include its own and runfolder's headers"; }
if out=$(cmake --build "$build" --target layer_probe_up 2>&1); then
  fail "a runfolder file compiled with #include \"rigcheck/report/report.hpp\": a layer sees the one above"
fi
grep -q 'rigcheck/report/report.hpp: No such file or directory' <<<"$out" || { echo "$out" | tail -20; fail "the probe failed, but not on the header above"; }
echo "ok: no include runs up; the build refuses one"
