#!/usr/bin/env bash
# Smoke run of the storage area: `rigcheck run --profile tiny --only io`.
# Checks the manifest, measured verdicts for IO-1, IO-2 (tmpfs = RAM disk row) and IO-3, and
# that no scratch file is left behind: every entry the benchmarks registered (logs/*.scratch, one
# path per line) is gone, /dev/shm's among them. Only this run's entries are looked at: other
# tests running beside this one make and remove scratch of their own.
source "$(dirname "$0")/../support/lib.sh"
rigcheck="$1"
out="$tmp"
"$rigcheck" run --profile tiny --only io --out "$out" >"$out/run.log" 2>&1 || { cat "$out/run.log"; fail "run exited $?"; }
run="$(find "$out" -mindepth 1 -maxdepth 1 -type d | head -1)"
cat "$run/manifest.csv"
if ! command -v fio >/dev/null; then
  grep -q '^io_fio_disk,io,.*,77,skipped,.*fio not found' "$run/manifest.csv" || fail "io_fio_disk should be skipped without fio"
  grep -qE '^IO-3,.*,(confirmed|refuted|inconclusive),' "$run/verdicts.csv" || fail "IO-3 has no measured verdict"
  echo "smoke io ok without fio (skipped with the reason)"; exit 0
fi
# every io entry of the registry
for b in $(awk -F, 'NR > 1 && $2 == "io" { print $1 }' "$(dirname "$0")/../../data/benchmarks.csv"); do
  grep -q "^$b,io,.*,0,ok," "$run/manifest.csv" || fail "$b did not run ok"
  [[ -s "$run/$b.csv" ]] || fail "$b.csv missing"
done
[[ -s "$run/io_fio_disk.jobs/seqread_1m_qd32.fio" ]] || fail "the job files are not kept beside the results"
for c in IO-1 IO-3; do
  grep -qE "^$c,.*,(confirmed|refuted|inconclusive)," "$run/verdicts.csv" || fail "$c has no measured verdict"
done
if [[ "$(stat -f -c %T /dev/shm)" == tmpfs ]]; then
  grep -qE '^IO-2,.*,(confirmed|refuted|inconclusive),' "$run/verdicts.csv" || fail "IO-2 has no measured verdict on tmpfs"
fi
# No speed without a passed check.
for f in "$run"/io_*.csv; do
  awk -F, 'NR>1 && $6=="check_wrong" && $7!="0" {bad=1} END {exit bad}' "$f" || fail "a check failed in $f"
done
registered=$(cat "$run"/logs/*.scratch 2>/dev/null | sort -u)
[[ -n "$registered" ]] || fail "the io benchmarks registered no scratch entry (logs/*.scratch)"
if [[ "$(stat -f -c %T /dev/shm)" == tmpfs ]]; then
  grep -q '^/dev/shm/rigcheck-' <<<"$registered" || fail "io_fio_tmpfs registered no scratch in /dev/shm: $registered"
fi
while IFS= read -r p; do
  [[ ! -e "$p" ]] || fail "scratch left behind: $p"
done <<<"$registered"
# Every parameter its rows hold is declared (data/params.csv): later runs pair with it.
bash "$(dirname "$0")/../support/params_declared.sh" "$rigcheck" "$run" || fail "undeclared parameters"
echo "smoke io ok: $run"
