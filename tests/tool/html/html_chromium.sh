#!/usr/bin/env bash
# report.html and compare.html opened in headless Chromium (Debian's chromium): every plot
# rendered (the page marks each <figure class="plot"> whose SVG has a laid-out box and drawn
# paths), no console message, and a screenshot kept in the test's output folder ($3).
# Skips (exit 77) with the reason where Chromium or gnuplot is absent.
set -uo pipefail
rigcheck="$1"
runs="$2/runs"
out="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
[[ -n $browser ]] || { echo "SKIP: Chromium is not installed (Debian package chromium): report.html not opened in a browser"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || command -v "${RIGCHECK_GNUPLOT:-gnuplot}" >/dev/null 2>&1 ||
  { echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox): the pages have no plots to check"; exit 77; }
rm -rf "$out" && mkdir -p "$out"

cp -r "$runs/compare_a" "$out/run"
"$rigcheck" report "$out/run" --quiet >"$out/report.log" 2>&1 || fail "report: $(cat "$out/report.log")"
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --out "$out/compare" >"$out/compare.log" 2>&1 ||
  fail "compare: $(tail -3 "$out/compare.log")"
"$rigcheck" history "$runs/compare_a" "$runs/compare_a2" "$runs/history_onednn" --out "$out/history" >"$out/history.log" 2>&1 ||
  fail "history: $(tail -3 "$out/history.log")"

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$out/profile" \
    --enable-logging=stderr --v=0 "$@"
}
check() {  # page, name
  local page="$1" name="$2"
  local figures
  figures=$(grep -c '<figure class="plot"' "$page")
  [[ $figures -ge 1 ]] || fail "$name: no plot in the page"
  grep -q 'src="http\|href="http\|<link ' "$page" && fail "$name: the page refers to something outside itself"
  chrome --dump-dom "file://$page" >"$out/$name.dom" 2>"$out/$name.console" || fail "$name: chromium failed: $(tail -3 "$out/$name.console")"
  local rendered
  rendered=$(grep -o 'data-plots-rendered="[0-9]*"' "$out/$name.dom" | grep -o '[0-9]*')
  [[ $rendered == "$figures" ]] || fail "$name: $rendered of $figures plots rendered"
  grep -q 'data-rendered="no"' "$out/$name.dom" && fail "$name: a plot did not render"
  if grep -i 'CONSOLE' "$out/$name.console"; then fail "$name: console messages (above)"; fi
  chrome --hide-scrollbars --window-size=1280,2400 --screenshot="$out/$name.png" "file://$page" >/dev/null 2>"$out/$name.shot.log"
  [[ -s "$out/$name.png" ]] || fail "$name: no screenshot: $(tail -3 "$out/$name.shot.log")"
  echo "ok: $name: $rendered of $figures plots rendered, no console message, screenshot $out/$name.png"
}
# Control: a page that logs an error must show in the console log, or the check above is blind.
printf '<!DOCTYPE html><html><body><script>console.error("control-error")</script></body></html>\n' >"$out/control.html"
chrome --dump-dom "file://$out/control.html" >/dev/null 2>"$out/control.console"
grep -q "CONSOLE.*control-error" "$out/control.console" ||
  fail "this Chromium does not log console messages on stderr: the console check would see nothing"
check "$out/run/report.html" report
check "$out/compare/compare.html" compare
check "$out/history/history.html" history
echo "html_chromium ok"
