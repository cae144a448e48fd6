#!/usr/bin/env bash
# The history page (history.html) of a store of 200 synthetic runs of two machines
# (make_history_runs.sh from fixtures/runs/compare_a: an NVIDIA driver change and a oneDNN change on
# both machines, a 15% regression of one case on machine A), by `rigcheck history --db --group-by
# machine`, opened in headless Chromium:
#   - the page loads with no console message and is under 5 MB, with nothing from outside it;
#   - the claims strip is drawn (a row per claim and machine, its cells laid out), and every open
#     timeline rendered (the page's own mark, data-rendered);
#   - exactly one change point, on the regressed case, at the run where the regression starts;
#   - the driver and library marks on each machine's run where the version changed, each named, in
#     every open timeline, and no mark elsewhere.
# The page and its screenshot stay in the output folder ($3). Skips (77) without Chromium.
#   history_page.sh RIGCHECK FIXTURES OUT
source "$(dirname "$0")/../../support/lib.sh"
rigcheck="$1" runs="$2/runs" out="$3"
max_bytes=$((5 * 1000 * 1000))
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
rm -rf "$out" && mkdir -p "$out"

bash "$(dirname "$0")/make_history_runs.sh" "$runs/compare_a" "$tmp/runs" 200 "$rigcheck" >/dev/null
read -r _ regress_run regress_case <<<"$(grep '^regression ' "$tmp/runs/expected.txt")"
read -r _ driver_a driver_b <<<"$(grep '^driver ' "$tmp/runs/expected.txt")"
read -r _ lib_a lib_b <<<"$(grep '^library ' "$tmp/runs/expected.txt")"
fail_log="$out/add.log"
"$rigcheck" store add --db "$tmp/s.db" "$tmp"/runs/vm-* >"$out/add.log" 2>&1 || fail "store add failed"
[[ $(grep -c ': stored as run ' "$out/add.log") == 200 ]] || fail "store add did not store 200 runs"
fail_log="$out/history.log"
"$rigcheck" history --db "$tmp/s.db" --since 2026-01-01 --group-by machine --out "$out/history" \
  >"$out/history.log" 2>&1 || fail "history failed"
fail_log=""
page="$out/history/history.html"
bytes=$(stat -c %s "$page")
[[ $bytes -lt $max_bytes ]] || fail "history.html is $bytes bytes (at most $max_bytes)"
grep -q 'src="http\|href="http\|<link ' "$page" && fail "the page refers to something outside itself"
if [[ -z $browser ]]; then
  echo "SKIP: Chromium is not installed (Debian package chromium; scripts/setup.sh --tests installs it)"
  exit 77
fi

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$out/profile" \
    --enable-logging=stderr --v=0 "$@"
}
attr() { grep -o " $1=\"[^\"]*\"" "$2" | head -1 | sed 's/^[^"]*"//; s/"$//'; }
# Measured in the page by a script added to a copy of it; results as attributes of <body>. A line is
# drawn when its path has a laid-out height inside its plot's box.
cat >"$out/measure.js" <<'EOF'
(function(){
var b=document.body;function put(k,v){b.setAttribute('data-t-'+k,String(v));}
function drawn(e){var r=e.getBoundingClientRect();return r.width>0&&r.height>0;}
function upright(e){var r=e.getBoundingClientRect(),s=e.ownerSVGElement.getBoundingClientRect();
 return r.height>0&&r.left>=s.left&&r.right<=s.right;}
var rows=document.querySelectorAll('#claims-strip g.strip-row'),cells=0,empty=0;
for(var i=0;i<rows.length;i++){var rs=rows[i].querySelectorAll('rect');
 for(var k=0;k<rs.length;k++)drawn(rs[k])?cells++:empty++;}
put('strip-rows',rows.length);put('strip-cells',cells);put('strip-empty',empty);
function lines(sel){var g=document.querySelectorAll(sel),out=[];
 for(var i=0;i<g.length;i++){var f=g[i].closest('figure'),p=g[i].querySelector('path');
  out.push((f?f.getAttribute('data-case'):'?')+'|'+g[i].getAttribute('data-run')+'|'+
   g[i].getAttribute('data-label')+'|'+(p&&upright(p)?'drawn':'not-drawn'));}
 return out.join(';');}
put('cps',lines('figure.plot g.cp'));put('marks',lines('figure.plot g.mark'));
})();
EOF
tail -n 1 "$page" | grep -q '^</body></html>$' || fail "history.html does not end with </body></html>"
{
  head -n -1 "$page"
  printf '<script>\n'
  cat "$out/measure.js"
  printf '</script>\n</body></html>\n'
} >"$out/measure.html"
chrome --window-size=1280,900 --dump-dom "file://$out/measure.html" >"$out/measure.dom" 2>"$out/measure.console" ||
  fail "chromium failed: $(tail -3 "$out/measure.console")"
if grep -i 'CONSOLE' "$out/measure.console"; then fail "console messages (above)"; fi
figures=$(grep -c '<figure class="plot' "$page")
rendered=$(attr data-plots-rendered "$out/measure.dom")
[[ $figures -ge 1 && $rendered == "$figures" ]] || fail "$rendered of $figures timelines rendered"
strip_rows=$(attr data-t-strip-rows "$out/measure.dom")
strip_cells=$(attr data-t-strip-cells "$out/measure.dom")
strip_empty=$(attr data-t-strip-empty "$out/measure.dom")
[[ $strip_rows -ge 2 && $strip_cells -ge $strip_rows && $strip_empty == 0 ]] ||
  fail "claims strip: $strip_rows rows, $strip_cells cells drawn, $strip_empty not"
cps=$(attr data-t-cps "$out/measure.dom")
marks=$(attr data-t-marks "$out/measure.dom")
label="${regress_case%%/*} ${regress_case#*/}"
[[ $cps == "$label|$regress_run|"*"|drawn" && $cps != *";"* ]] ||
  fail "change points: '$cps', expected one on '$label' at $regress_run"
for want in "$driver_a|NVIDIA driver" "$driver_b|NVIDIA driver" "$lib_a|oneDNN version" "$lib_b|oneDNN version"; do
  n=$(tr ';' '\n' <<<"$marks" | grep -c "^[^|]*|$want|drawn$" || true)
  [[ $n == "$figures" ]] || fail "mark $want drawn in $n of $figures timelines: $(tr ';' '\n' <<<"$marks" | head -5)"
done
others=$(tr ';' '\n' <<<"$marks" | grep -v "|\($driver_a\|$driver_b\|$lib_a\|$lib_b\)|" || true)
[[ -z $others ]] || fail "marks at other runs: $(head -3 <<<"$others")"
chrome --hide-scrollbars --window-size=1280,2000 --screenshot="$out/history.png" "file://$page" \
  >/dev/null 2>"$out/shot.log"
[[ -s "$out/history.png" ]] || fail "no screenshot: $(tail -3 "$out/shot.log")"
echo "ok: history.html of 200 stored runs: $bytes bytes, $strip_rows claim rows, $rendered timelines rendered;"
echo "  the change point at $regress_run, the driver and oneDNN marks at $driver_a/$driver_b and $lib_a/$lib_b;"
echo "  screenshot $out/history.png"
