#!/usr/bin/env bash
# report.html, compare.html and history.html opened in headless Chromium (Debian's chromium,
# installed by scripts/setup.sh --tests): every plot rendered (the page marks each
# <figure class="plot"> whose SVG has a laid-out box and drawn paths), no console message, and
# screenshots kept in the test's output folder ($3). For report.html of a quick run of this suite's
# 2-core test machine (fixtures/runs/quick_vm), measured in the page at a 1400 x 900 viewport:
#   - the verdict table is at most 1800 px tall (one line per claim);
#   - every claim's evidence is one click away (its id links to a <details> that the click opens);
#   - the guide's Chinese quotes render with a real CJK font, not boxes: each quote's Han characters,
#     drawn in the quote's own computed font, give distinct glyphs with ink (missing glyphs all
#     draw the same box, as the control of unassigned code points shows), and the font that draws
#     them is named (the first family of the quote's font list that is installed and draws them).
# Skips (exit 77) with the reason only where Chromium or gnuplot is absent (scripts/test.sh
# installs both).
source "$(dirname "$0")/../../../support/lib.sh"
set +e  # each step's exit status is checked where it matters
rigcheck="$1"
runs="$2/runs"
out="$3"
max_table_px=1800
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
[[ -n $browser ]] || { echo "SKIP: Chromium is not installed (Debian package chromium; scripts/setup.sh --tests installs it): report.html not opened in a browser"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || command -v "${RIGCHECK_GNUPLOT:-gnuplot}" >/dev/null 2>&1 ||
  { echo "SKIP: gnuplot is not installed (Debian package gnuplot-nox): the pages have no plots to check"; exit 77; }
rm -rf "$out" && mkdir -p "$out"

cp -r "$runs/quick_vm" "$out/run"
"$rigcheck" report "$out/run" --quiet >"$out/report.log" 2>&1 || fail "report: $(cat "$out/report.log")"
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --out "$out/compare" >"$out/compare.log" 2>&1 ||
  fail "compare: $(tail -3 "$out/compare.log")"
"$rigcheck" history "$runs"/compare_a{,2,3,4} "$runs"/history_onednn{,2,3} --out "$out/history" >"$out/history.log" 2>&1 ||
  fail "history: $(tail -3 "$out/history.log")"

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$out/profile" \
    --enable-logging=stderr --v=0 "$@"
}
attr() { grep -o " $1=\"[^\"]*\"" "$2" | head -1 | sed 's/^[^"]*"//; s/"$//'; }
check() {  # page, name
  local page="$1" name="$2"
  local figures
  figures=$(grep -c '<figure class="plot[" ]' "$page")
  [[ $figures -ge 1 ]] || fail "$name: no plot in the page"
  grep -q 'src="http\|href="http\|<link ' "$page" && fail "$name: the page refers to something outside itself"
  chrome --dump-dom "file://$page" >"$out/$name.dom" 2>"$out/$name.console" || fail "$name: chromium failed: $(tail -3 "$out/$name.console")"
  local rendered
  rendered=$(attr data-plots-rendered "$out/$name.dom")
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

# ---- report.html at 1400 x 900: measured in the page by a script added to a copy of it (the
# report itself carries no test code). Results go to attributes of <body>, read from the DOM.
cat >"$out/measure.js" <<'EOF'
(function(){
var b=document.body;function put(k,v){b.setAttribute('data-t-'+k,String(v));}
put('viewport',window.innerWidth+'x'+window.innerHeight);
var t=document.querySelector('#verdicts table');
put('table-px',t?Math.round(t.getBoundingClientRect().height):-1);
// Every claim's evidence one click away: the row's link opens its <details>, which then shows its text.
var rows=t?t.querySelectorAll('tbody tr'):[],bad=[];
for(var i=0;i<rows.length;i++){var a=rows[i].querySelector('a.ev'),id=a?a.getAttribute('href').slice(1):'',d=document.getElementById(id);
 if(!d||d.tagName!=='DETAILS'){bad.push(rows[i].id+':no-details');continue;}
 d.open=false;a.click();var dl=d.querySelector('dl');
 if(!d.open||!dl||dl.getBoundingClientRect().height<=0)bad.push(rows[i].id+':not-opened');d.open=false;}
put('claims',rows.length);put('evidence-bad',bad.join(' '));
// Glyphs: a character drawn alone on a canvas in a font, as a fingerprint of its pixels ('' if no ink).
function glyph(ch,font){var c=document.createElement('canvas');c.width=72;c.height=72;var x=c.getContext('2d');
 x.font=font;x.textBaseline='top';x.fillStyle='#000';x.fillText(ch,4,4);var p=x.getImageData(0,0,72,72).data,h=0,ink=0;
 for(var k=3;k<p.length;k+=4){h=(h*31+p[k])|0;if(p[k])ink++;}return ink?h+'/'+ink:'';}
function distinct(chars,font){var s={},n=0,empty=0;for(var k=0;k<chars.length;k++){var g=glyph(chars[k],font);if(!g){empty++;continue;}if(!s[g]){s[g]=1;n++;}}return {n:n,empty:empty};}
function families(ff){return ff.split(',').map(function(f){return f.trim().replace(/^["']|["']$/g,'');});}
var generic={'serif':1,'sans-serif':1,'monospace':1,'cursive':1,'fantasy':1,'system-ui':1,'-apple-system':1};
function installed(f){if(generic[f])return false;var probe='mmmmmmmmwwwwwwwiiiiiil1|MW';
 return glyph(probe,'32px "'+f+'", monospace')!==glyph(probe,'32px monospace')||glyph(probe,'32px "'+f+'", serif')!==glyph(probe,'32px serif');}
// Control: unassigned code points draw as one and the same box (or nothing): what the check calls boxes.
var none=['\u0378','\u0379','\u0380','\u0381','\u0382','\u0383','\u038B','\u038D'],cs=getComputedStyle(document.querySelector('.zh')||b);
put('control-distinct',distinct(none,'32px '+cs.fontFamily).n);
var q=document.querySelectorAll('#verdicts .zh'),worst='',used={},boxes=[];
for(var i=0;i<q.length;i++){var f=getComputedStyle(q[i]).fontFamily,font='32px '+f,chars=[],seen={};
 var hs=q[i].textContent.match(/[\u4e00-\u9fff]/g)||[];for(var k=0;k<hs.length&&chars.length<8;k++)if(!seen[hs[k]]){seen[hs[k]]=1;chars.push(hs[k]);}
 if(chars.length<2)continue;var d=distinct(chars,font);if(d.n<chars.length||d.empty)boxes.push(i+':'+d.n+'/'+chars.length);
 var fam=families(f),name='';for(var k=0;k<fam.length&&!name;k++){if(!installed(fam[k]))continue;var same=true;
  for(var m=0;m<chars.length&&same;m++)same=glyph(chars[m],'32px "'+fam[k]+'", monospace')===glyph(chars[m],font);if(same)name=fam[k];}
 used[name||'(unnamed)']=1;}
put('zh-quotes',q.length);put('zh-boxes',boxes.join(' '));put('zh-fonts',Object.keys(used).join(','));
})();
EOF
{ head -n -1 "$out/run/report.html"; printf '<script>\n'; cat "$out/measure.js"; printf '</script>\n</body></html>\n'; } >"$out/run/report.measure.html"
tail -n 1 "$out/run/report.html" | grep -q '^</body></html>$' || fail "report.html does not end with </body></html>: the measuring script cannot be added"
chrome --window-size=1400,900 --dump-dom "file://$out/run/report.measure.html" >"$out/measure.dom" 2>"$out/measure.console" ||
  fail "measure: chromium failed: $(tail -3 "$out/measure.console")"
if grep -i 'CONSOLE' "$out/measure.console"; then fail "measure: console messages (above)"; fi
viewport=$(attr data-t-viewport "$out/measure.dom")
table_px=$(attr data-t-table-px "$out/measure.dom")
claims=$(attr data-t-claims "$out/measure.dom")
evidence_bad=$(attr data-t-evidence-bad "$out/measure.dom")
control=$(attr data-t-control-distinct "$out/measure.dom")
quotes=$(attr data-t-zh-quotes "$out/measure.dom")
boxes=$(attr data-t-zh-boxes "$out/measure.dom")
fonts=$(attr data-t-zh-fonts "$out/measure.dom")
echo "measured in report.html (viewport $viewport): verdict table $table_px px for $claims claims; quotes $quotes in $fonts; control $control"
# The width decides the layout (the page has no height-dependent style); headless Chromium's
# --dump-dom keeps some of the window's 900 px for itself, its screenshot does not.
[[ $viewport == 1400x* ]] || fail "the page was measured in a $viewport viewport, not 1400 px wide"
[[ -n $claims && $claims -ge 25 ]] || fail "the verdict table has ${claims:-no} claim rows"
[[ -n $table_px && $table_px -gt 0 && $table_px -le $max_table_px ]] || fail "the verdict table is ${table_px} px tall at 1400x900 (at most $max_table_px)"
[[ -z $evidence_bad ]] || fail "evidence not one click away: $evidence_bad"
[[ $control == 0 || $control == 1 ]] || fail "unassigned code points drew $control different glyphs: the box check would not see boxes"
[[ -n $quotes && $quotes -ge 25 ]] || fail "${quotes:-no} Chinese quotes in the verdict table"
[[ -z $boxes ]] || fail "Chinese quotes drawn as boxes (quote:distinct glyphs/characters): $boxes; fonts: $fonts (fc-list :lang=zh: $(fc-list :lang=zh family 2>/dev/null | head -3 | tr '\n' ';'))"
[[ -n $fonts && $fonts != *"(unnamed)"* ]] || fail "the Chinese quotes are drawn by a font the page does not name ($fonts)"
chrome --hide-scrollbars --window-size=1400,900 --screenshot="$out/report-1400x900.png" "file://$out/run/report.html" >/dev/null 2>"$out/report-shot.log"
[[ -s "$out/report-1400x900.png" ]] || fail "no 1400x900 screenshot: $(tail -3 "$out/report-shot.log")"
chrome --hide-scrollbars --window-size=1400,$((table_px + 700)) --screenshot="$out/report-verdicts.png" "file://$out/run/report.html" >/dev/null 2>>"$out/report-shot.log"
echo "ok: report: verdict table $table_px px tall at 1400x900 (<= $max_table_px), $claims claims each with its evidence one click away, $quotes quotes drawn in $fonts; screenshots $out/report-1400x900.png, $out/report-verdicts.png"
echo "html_chromium ok"
