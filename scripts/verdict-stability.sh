#!/usr/bin/env bash
# Verdict stability: do N back-to-back runs of this machine give every claim the same
# verdict, and the headline figures the same value?
#   scripts/verdict-stability.sh [-n N]          N quick runs now (default 3; about 6-10 minutes each on 2 cores)
#   scripts/verdict-stability.sh RUN RUN [RUN...]  run folders already made (2 or more)
# Every claim's verdict must be the same in all runs: each one that is not is printed
# (VERDICT CHANGED <claim>: run=verdict ...). The 8 headline figures (CPU-1's E(2), CPU-3's gain,
# CPU-4's measured effective L3, CPU-5's gain, MEM-4, IO-2, IO-3, NET-1) must each lie within
# +-15% of their median over the runs; each that does not (or is missing from some runs but not
# all) is printed as UNSTABLE with its values and spread. The figures are the verdict rows'
# measured_value (verdicts.csv, written by `rigcheck report`, which is run on a folder without
# one); CPU-4's is the effective L3 its evidence gives ("about N MiB"), since its measured_value
# is the inventory's nominal size. Exit 1 when a verdict changed or more than 2 of the 8 are
# unstable, 2 on bad usage, else 0. With two runs, `rigcheck compare` also writes its table
# (compare.md, "Verdicts of each run") into a new folder under results/.
# Too slow for ctest; the mechanism is tested on fixture run folders by
# tests/scripts/verdict_stability.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rigcheck="${RIGCHECK:-$here/build/bin/rigcheck}"
tolerance="${RIGCHECK_STABILITY_TOLERANCE:-0.15}"
max_unstable=2
n=3
usage() { echo "usage: $0 [-n N] | $0 RUN RUN [RUN...]" >&2; exit 2; }
if (($# >= 1)) && [[ "$1" == "-n" ]]; then
  (($# == 2)) && [[ "$2" =~ ^[0-9]+$ ]] && (($2 >= 2)) || usage
  n="$2"
  set --
fi
runs=()
if (($# == 0)); then
  cd "$here"
  ./scripts/setup.sh
  ./scripts/build.sh
  for ((i = 1; i <= n; i++)); do
    log=$(mktemp)
    "$rigcheck" run --profile quick 2>&1 | tee "$log" >&2
    runs+=("$(sed -n 's/^rigcheck run: profile [a-z]*, [0-9]* benchmarks -> //p' "$log" | head -1)")
    rm -f "$log"
  done
elif (($# >= 2)); then
  runs=("$@")
else
  usage
fi
for r in "${runs[@]}"; do [[ -d "$r" ]] || { echo "verdict-stability: no run folder '$r'" >&2; exit 2; }; done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# One line per claim of each run: run, claim_id, verdict, headline figure (empty when none).
for r in "${runs[@]}"; do
  if [[ ! -s "$r/verdicts.csv" ]]; then
    "$rigcheck" report --quiet "$r" >"$tmp/report.log" 2>&1 ||
      { cat "$tmp/report.log" >&2; echo "verdict-stability: rigcheck report $r failed" >&2; exit 2; }
  fi
  awk -v run="$(basename "$r")" '
    function csvsplit(line, f,    n, i, c, q, cur) {
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
          if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0 } else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else cur = cur c
      }
      f[++n] = cur
      return n
    }
    NR == 1 { m = csvsplit($0, h); for (i = 1; i <= m; i++) col[h[i]] = i; next }
    {
      csvsplit($0, f)
      id = f[col["claim_id"]]; v = f[col["verdict"]]; x = f[col["measured_value"]]; ev = f[col["evidence"]]
      if (id == "CPU-4") {
        x = ""
        if (match(ev, /measured effective L3 [^;]*about [0-9.]+ MiB/)) {
          s = substr(ev, RSTART, RLENGTH); sub(/.*about /, "", s); sub(/ MiB$/, "", s); x = s
        }
      }
      if (id !~ /^(CPU-1|CPU-3|CPU-4|CPU-5|MEM-4|IO-2|IO-3|NET-1)$/) x = ""
      printf "%s\t%s\t%s\t%s\n", run, id, v, x
    }' "$r/verdicts.csv" >>"$tmp/all.tsv"
done

rc=0
awk -F'\t' -v nruns="${#runs[@]}" -v tol="$tolerance" -v maxu="$max_unstable" '
  { key[$2] = 1; verdict[$2, $1] = $3; order[$1] = order[$1] ? order[$1] : ++nr; name[order[$1]] = $1
    if ($4 != "") { fig[$2, order[$1]] = $4 + 0; nfig[$2]++ } }
  END {
    changed = 0
    for (id in key) {
      same = 1; first = verdict[id, name[1]]; line = ""
      for (i = 1; i <= nr; i++) { v = verdict[id, name[i]]; if (v == "") v = "absent"; if (v != first) same = 0; line = line " " name[i] "=" v }
      if (!same) { print "VERDICT CHANGED " id ":" line; changed++ }
    }
    split("CPU-1 CPU-3 CPU-4 CPU-5 MEM-4 IO-2 IO-3 NET-1", heads, " ")
    unstable = 0
    for (k = 1; k <= 8; k++) {
      id = heads[k]
      if (nfig[id] == 0) { printf "figure %s: not measured in any run\n", id; continue }
      cnt = 0; vals = ""
      for (i = 1; i <= nr; i++)
        if ((id, i) in fig) { a[++cnt] = fig[id, i]; vals = vals (vals == "" ? "" : ", ") fig[id, i] } else vals = vals (vals == "" ? "" : ", ") "-"
      for (i = 2; i <= cnt; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      med = cnt % 2 ? a[(cnt + 1) / 2] : (a[cnt / 2] + a[cnt / 2 + 1]) / 2
      worst = 0
      for (i = 1; i <= cnt; i++) { d = a[i] - med; if (d < 0) d = -d; d = med != 0 ? d / (med < 0 ? -med : med) : (d > 0 ? 1e9 : 0); if (d > worst) worst = d }
      if (cnt < nr) { printf "UNSTABLE %s: measured in %d of %d runs (%s)\n", id, cnt, nr, vals; unstable++ }
      else if (worst > tol) { printf "UNSTABLE %s: %s; median %g, spread +-%.1f%% (limit %g%%)\n", id, vals, med, 100 * worst, 100 * tol; unstable++ }
      else printf "figure %s: %s; median %g, within +-%.1f%%\n", id, vals, med, 100 * worst
    }
    printf "verdict-stability: %d run(s); %d verdict(s) changed; %d of 8 headline figures unstable (at most %d allowed)\n", nr, changed, unstable, maxu
    exit (changed > 0 || unstable > maxu) ? 1 : 0
  }' "$tmp/all.tsv" || rc=$?

if ((${#runs[@]} == 2)) && [[ -z "${RIGCHECK_STABILITY_NO_COMPARE:-}" ]]; then
  out="$here/results/verdict-stability-$(date -u +%Y%m%dT%H%M%SZ)"
  "$rigcheck" compare "${runs[0]}" "${runs[1]}" --out "$out" >/dev/null 2>&1 &&
    echo "verdict-stability: table of both runs' verdicts: $out/compare.md" || true
fi
exit "$rc"
