#!/usr/bin/env bash
# rigcheck store through the command line (docs/store.md), one mode per ctest:
#   roundtrip   fixture runs and two folders with odd names (SQL in the name, Chinese) in, listed
#               verbatim, exported back byte for byte (and judged identically by rigcheck report);
#               a second add adds nothing; an edited folder is refused and nothing written; an
#               existing folder is never overwritten; --machine and --since select; a store of a
#               newer schema version is refused.
#   concurrent  several `store add` at once into one store (2 into SQLite, 8 into PostgreSQL): the
#               others start while the first holds its transaction (the test hook) and wait for it;
#               every one succeeds, every run stored once.
#   kill9       `store add` killed with SIGKILL inside its transaction (the test hook): the store is
#               as it was; the same command then completes.
#   postgresql  the three above against a real PostgreSQL: a throw-away cluster of Debian's
#               postgresql package (initdb as an unprivileged user into a temporary folder, its Unix
#               socket there, no TCP), stopped and removed at the end, also when a step fails; exit
#               77 (skip) with the reason when the package is absent.
#   store_cli.sh RIGCHECK FIXTURES MODE
source "$(dirname "$0")/../../support/lib.sh"
rigcheck="$1"
runs="$2/runs"
mode="$3"
db="$tmp/store/s.db"
writers=2
totals() { "$rigcheck" store list --db "$db" | grep '^Totals:'; }
sql() { if [[ $db == postgresql://* ]]; then psql -q "$db" -c "$1"; else sqlite3 "$db" "$1"; fi; }
sql1() { if [[ $db == postgresql://* ]]; then psql -qtA "$db" -c "$1"; else sqlite3 "$db" "$1"; fi; }  # one value
export -n RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS RIGCHECK_STORE_TEST_PAUSE_S RIGCHECK_DB

# The paused importer's log says it paused (the hook's line), within 60 s.
wait_paused() {
  for _ in $(seq 600); do
    grep -q "paused inside the transaction" "$1" && return 0
    kill -0 "$2" 2>/dev/null || fail "the importer ended before the hook: $(cat "$1")"
    sleep 0.1
  done
  fail "the importer did not pause: $(cat "$1")"
}

# A run made by `run --repeat` sits in a set folder noise-* beside its noise.csv, which the report's
# CPU-1 reads: stored with the run, written back beside an export into a noise-* folder (and said
# not written elsewhere), so that the export is judged as the original (but for the profile's path).
set_profile() {
  mkdir -p "$tmp/noise-set" "$tmp/noise-back"
  cp -r "$runs/quick_vm" "$tmp/noise-set/set_run"
  cp -r "$runs/quick_vm" "$tmp/quick_vm_2"
  # A second run of the set whose ResNet-50 steps differ (its manifest's checksum made to match), so
  # that the profile has a spread for CPU-1 to read.
  local f="$tmp/quick_vm_2/cpu_resnet.csv" old new
  old=$(sha256sum "$f" | cut -d' ' -f1)
  sed -i 's/",items_per_s,\([0-9]\)/",items_per_s,1\1/; s/",time_per_iter,\([0-9]\)/",time_per_iter,1\1/' "$f"
  new=$(sha256sum "$f" | cut -d' ' -f1)
  sed -i "s/$old/$new/" "$tmp/quick_vm_2/manifest.csv"
  "$rigcheck" noise "$tmp/noise-set/set_run" "$tmp/quick_vm_2" --out "$tmp/noise-set/noise.csv" >/dev/null ||
    fail "noise of the set"
  "$rigcheck" store add --db "$db" "$tmp/noise-set/set_run" >"$tmp/set.log" 2>&1 || fail "add: $(cat "$tmp/set.log")"
  grep -q "with its set's noise profile noise-set/noise.csv" "$tmp/set.log" || fail "the set's profile: $(cat "$tmp/set.log")"
  local id; id=$(sed -n 's/.*: stored as run \([0-9]*\) .*/\1/p' "$tmp/set.log")
  "$rigcheck" store export-run --db "$db" "$id" "$tmp/noise-back/set_run" >"$tmp/back.log" || fail "export-run"
  cmp "$tmp/noise-set/noise.csv" "$tmp/noise-back/noise.csv" || fail "the set's profile came back different or not at all"
  "$rigcheck" store export-run --db "$db" "$id" "$tmp/elsewhere" >"$tmp/else.log" || fail "export-run elsewhere"
  grep -q "not written: the report reads it" "$tmp/else.log" || fail "not said: $(cat "$tmp/else.log")"
  "$rigcheck" report "$tmp/noise-set/set_run" --quiet >/dev/null 2>&1 || fail "report of the original"
  "$rigcheck" report "$tmp/noise-back/set_run" --quiet >/dev/null 2>&1 || fail "report of the export"
  grep -q "noise-set/noise.csv" "$tmp/noise-set/set_run/verdicts.csv" || fail "the original's CPU-1 did not read its set's profile"
  diff <(sed "s#$tmp/noise-set#SET#g" "$tmp/noise-set/set_run/verdicts.csv") \
    <(sed "s#$tmp/noise-back#SET#g" "$tmp/noise-back/set_run/verdicts.csv") >"$tmp/vd.log" ||
    fail "the export with its set's profile is judged differently: $(head -4 "$tmp/vd.log")"
  echo "ok: a run of a --repeat set stored with its set's noise profile, given back beside it, judged identically"
  # compare from the store reads the set run with its profile as from the folder (CPU-1's per-run verdict).
  "$rigcheck" store add --db "$db" "$tmp/quick_vm_2" >/dev/null 2>&1 || fail "add quick_vm_2"
  "$rigcheck" compare "$tmp/noise-set/set_run" "$tmp/quick_vm_2" >"$tmp/cf.out" 2>&1
  "$rigcheck" compare --db "$db" folder=set_run folder=quick_vm_2 >"$tmp/cs.out" 2>&1
  diff "$tmp/cf.out" "$tmp/cs.out" >"$tmp/cd.log" || fail "compare of the set run differs from the store: $(head -4 "$tmp/cd.log")"
  echo "ok: compare from the store reads the set run with its set's profile, as from the folders"
}

roundtrip() {
  local odd="x'); DROP TABLE runs;--" zh="运行一"
  cp -r "$runs/good" "$tmp/$odd"
  cp -r "$runs/compare_a" "$tmp/$zh"
  mkdir -p "$tmp/$zh/logs/cpu_gemm.jobs"  # a real run's logs/ (docs/threat-model.md): kept, file by file
  printf 'cpu_gemm: done\n' >"$tmp/$zh/logs/cpu_gemm.log"
  printf '[job]\nrw=read' >"$tmp/$zh/logs/cpu_gemm.jobs/a.fio"
  local src=("$runs/good" "$runs/quick_vm" "$runs/compare_a" "$tmp/$odd" "$tmp/$zh")
  "$rigcheck" store add --db "$db" "${src[@]}" >"$tmp/add.log" 2>&1 || fail "store add: exit $?: $(cat "$tmp/add.log")"
  [[ $(grep -c ': stored as run ' "$tmp/add.log") == 5 ]] || fail "not 5 runs stored: $(cat "$tmp/add.log")"
  "$rigcheck" store list --db "$db" >"$tmp/list.md"
  grep -qF "| $odd |" "$tmp/list.md" || fail "the SQL-named folder is not listed verbatim: $(cat "$tmp/list.md")"
  grep -qF "| $zh |" "$tmp/list.md" || fail "the Chinese-named folder is not listed verbatim: $(cat "$tmp/list.md")"
  # The Zen 3 VM's four runs and the Zen 5 VM's one: both "AMD EPYC", 2 cores, 24 GiB, told apart by family.
  grep -q '^Totals: 2 machines, 5 runs, ' "$tmp/list.md" || fail "totals: $(grep Totals "$tmp/list.md")"
  grep -qF "| AuthenticAMD family 26 model 2 stepping 1 (zen5) |" "$tmp/list.md" || fail "no Zen 5 machine: $(cat "$tmp/list.md")"
  RIGCHECK_DB="$db" "$rigcheck" store list | grep -q '^Totals: 2 machines, 5 runs, ' || fail "RIGCHECK_DB is not the store"
  for i in 1 2 3 4 5; do  # one process adds in order: the ids are 1..5
    "$rigcheck" store export-run --db "$db" "$i" "$tmp/out$i" >/dev/null || fail "export-run $i: exit $?"
    diff -r "${src[$((i - 1))]}" "$tmp/out$i" >"$tmp/diff.log" || fail "run $i exported differs: $(head "$tmp/diff.log")"
  done
  "$rigcheck" store export-run --db "$db" 1 "$tmp/out1" 2>"$tmp/over.log" && fail "export-run over an existing folder"
  grep -q "exists: not overwritten" "$tmp/over.log" || fail "existing folder: $(cat "$tmp/over.log")"
  echo "ok: 5 runs stored, odd names verbatim, every file exported back byte for byte"
  cp -r "$runs/good" "$tmp/good_copy"
  "$rigcheck" report "$tmp/good_copy" --quiet >/dev/null 2>&1 || fail "report of the original: exit $?"
  "$rigcheck" report "$tmp/out1" --quiet >/dev/null 2>&1 || fail "report of the export: exit $?"
  cmp "$tmp/good_copy/verdicts.csv" "$tmp/out1/verdicts.csv" || fail "the export is judged differently"
  echo "ok: the exported run is judged identically"
  local before; before=$(totals)
  "$rigcheck" store add --db "$db" "${src[@]}" >"$tmp/again.log" 2>&1 || fail "second add: exit $?"
  [[ $(grep -c 'already stored as run' "$tmp/again.log") == 5 ]] || fail "second add: $(cat "$tmp/again.log")"
  [[ $(totals) == "$before" ]] || fail "second add changed the store: $before -> $(totals)"
  cp -r "$runs/quick_vm" "$tmp/edited"
  sed -i '3s/,ok,/,OK,/' "$tmp/edited/cpu_peak.csv"
  "$rigcheck" store add --db "$db" "$tmp/edited" 2>"$tmp/broken.log" && fail "an edited folder was stored"
  grep -q "^REFUSED $tmp/edited: broken: cpu_peak.csv: " "$tmp/broken.log" || fail "refusal: $(cat "$tmp/broken.log")"
  [[ $(totals) == "$before" ]] || fail "a refused folder changed the store: $before -> $(totals)"
  "$rigcheck" store verify --db "$db" >"$tmp/verify.log" || fail "verify: $(cat "$tmp/verify.log")"
  echo "ok: a second add adds nothing; an edited folder is refused, nothing written; verify passes"
  local fp; fp=$(grep -oE '^[|] [0-9a-f]{64} ' "$tmp/list.md" | head -1 | cut -c3-14)
  [[ ${#fp} == 12 ]] || fail "no fingerprint in the list: $(cat "$tmp/list.md")"
  "$rigcheck" store list --db "$db" --machine "$fp" | grep -q '^## Runs (4)' || fail "--machine $fp"
  "$rigcheck" store list --db "$db" --machine nosuchhost | grep -q '^## Runs (0)' || fail "--machine nosuchhost"
  "$rigcheck" store list --db "$db" --since 2026-12-03 >"$tmp/since.md"
  grep -q '^## Runs (1)' "$tmp/since.md" && grep -q '| quick_vm |' "$tmp/since.md" || fail "--since: $(cat "$tmp/since.md")"
  echo "ok: --machine and --since select"
  # A reported run: its verdicts.csv indexed row by row, report.md and report.html kept whole.
  local claims; claims=$(($(wc -l <"$tmp/good_copy/verdicts.csv") - 1))
  "$rigcheck" store add --db "$db" "$tmp/good_copy" >"$tmp/reported.log" || fail "a reported run: $(cat "$tmp/reported.log")"
  totals | grep -q "^Totals: 2 machines, 6 runs, .*, $claims verdicts, " || fail "verdicts: $(totals), $claims claims"
  local id; id=$(sed -n 's/.*: stored as run \([0-9]*\) .*/\1/p' "$tmp/reported.log")
  "$rigcheck" store export-run --db "$db" "$id" "$tmp/reported" >/dev/null && diff -r "$tmp/good_copy" "$tmp/reported" ||
    fail "the reported run exported differs"
  echo "ok: a reported run's $claims verdicts stored, its report files given back"
  set_profile
  if command -v sqlite3 >/dev/null || [[ $db == postgresql://* ]]; then
    sql "INSERT INTO schema_version (version, applied_utc) VALUES (999, 'later')"
    "$rigcheck" store list --db "$db" >/dev/null 2>"$tmp/newer.log" && fail "a store of version 999 was read"
    grep -qE "store .* is schema version 999; this rigcheck knows versions up to [0-9]+: refused" "$tmp/newer.log" ||
      fail "newer store: $(cat "$tmp/newer.log")"
    echo "ok: a store of a newer schema version is refused"
  fi
}

concurrent() {
  local pids=() i
  for i in $(seq "$writers"); do cp -r "$runs/quick_vm" "$tmp/writer$i"; done
  RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS=50 RIGCHECK_STORE_TEST_PAUSE_S=3 \
    "$rigcheck" store add --db "$db" "$tmp/writer1" >"$tmp/writer1.log" 2>&1 &
  pids+=($!)
  wait_paused "$tmp/writer1.log" "${pids[0]}"
  for i in $(seq 2 "$writers"); do
    "$rigcheck" store add --db "$db" "$tmp/writer$i" >"$tmp/writer$i.log" 2>&1 &
    pids+=($!)
  done
  for i in $(seq "$writers"); do
    wait "${pids[$((i - 1))]}" || fail "writer $i: exit $?: $(cat "$tmp/writer$i.log")"
    grep -q 'stored as run' "$tmp/writer$i.log" || fail "writer $i: $(cat "$tmp/writer$i.log")"
  done
  totals | grep -q "^Totals: 1 machines, $writers runs, " || fail "totals: $(totals)"
  "$rigcheck" store verify --db "$db" >/dev/null || fail "verify after $writers writers"
  echo "ok: $writers writers at once into one store all succeed, every run stored once"
}

kill9() {
  "$rigcheck" store add --db "$db" "$runs/good" >/dev/null || fail "the first add"
  local before; before=$(totals)
  RIGCHECK_STORE_TEST_PAUSE_AFTER_ROWS=2000 "$rigcheck" store add --db "$db" "$runs/quick_vm" >"$tmp/killed.log" 2>&1 &
  local p=$!
  wait_paused "$tmp/killed.log" $p
  kill -9 $p
  wait $p 2>/dev/null && fail "the importer was not killed"
  [[ $(totals) == "$before" ]] || fail "a killed import left rows: $before -> $(totals)"
  "$rigcheck" store verify --db "$db" >/dev/null || fail "verify after the kill"
  "$rigcheck" store add --db "$db" "$runs/quick_vm" >"$tmp/again.log" 2>&1 || fail "the same add again: $(cat "$tmp/again.log")"
  local id; id=$(sed -n 's/.*: stored as run \([0-9]*\) .*/\1/p' "$tmp/again.log")
  [[ -n $id ]] || fail "not stored the second time: $(cat "$tmp/again.log")"
  totals | grep -q '^Totals: 2 machines, 2 runs, ' || fail "totals: $(totals)"
  "$rigcheck" store export-run --db "$db" "$id" "$tmp/out" >/dev/null && diff -r "$runs/quick_vm" "$tmp/out" >/dev/null ||
    fail "the run stored after the kill differs from its folder"
  echo "ok: SIGKILL inside the transaction leaves the store as it was; the same add then completes"
}

# compare, history and noise from the store print what they print from the folders: the runs chosen by
# selections (folder=, id, since/until, an inventory fact), read in memory by the same code.
selection() {
  local f=(compare_a compare_a2 compare_a3 compare_a4 compare_slowed compare_slowed2 history_onednn history_onednn2
    history_onednn3)
  local dirs=() n
  for n in "${f[@]}"; do dirs+=("$runs/$n"); done
  mkdir -p "$tmp/t"
  export TMPDIR="$tmp/t"  # the selected runs are read in memory: nothing may be left here
  "$rigcheck" store add --db "$db" "${dirs[@]}" >"$tmp/add.log" 2>&1 || fail "store add: $(cat "$tmp/add.log")"
  same() {  # same FOLDER-COMMAND... VS STORE-COMMAND...: their output and exit code
    local a=() rc1=0 rc2=0
    while [[ $1 != VS ]]; do a+=("$1"); shift; done
    shift
    "${a[@]}" >"$tmp/folders.out" 2>&1 || rc1=$?
    "$@" >"$tmp/store.out" 2>&1 || rc2=$?
    [[ $rc1 == "$rc2" ]] || fail "exit $rc1 from the folders, $rc2 from the store: $(tail -3 "$tmp/store.out")"
    diff "$tmp/folders.out" "$tmp/store.out" >"$tmp/diff.log" || fail "the store's output differs: $(head "$tmp/diff.log")"
    grep -q . "$tmp/store.out" || fail "no output"
  }
  local r=$runs
  same "$rigcheck" compare --a "$r/compare_a" "$r/compare_a2" --b "$r/compare_slowed" "$r/compare_slowed2" \
    --fail-on-regression 10 VS \
    "$rigcheck" compare --db "$db" --a folder=compare_a folder=compare_a2 --b folder=compare_slowed,folder=compare_slowed2 \
    --fail-on-regression 10
  grep -q '^GATE FAIL' "$tmp/store.out" || fail "the slowed fixtures did not fail the gate: $(grep GATE "$tmp/store.out")"
  echo "ok: compare --a/--b from the store: the same output and exit code as from the folders"
  same "$rigcheck" compare "$r/compare_a" "$r/compare_slowed" "$r/history_onednn3" VS \
    "$rigcheck" compare --db "$db" 1 folder=compare_slowed onednn_version="3.1.0 (N/A)",last=1
  echo "ok: compare by ids, folder names and an inventory fact: the same output"
  local hist=() ; for n in compare_a compare_a2 compare_a3 compare_a4 history_onednn history_onednn2 history_onednn3; do hist+=("$r/$n"); done
  same "$rigcheck" history "${hist[@]}" --fail-on-regression 10 VS \
    "$rigcheck" history --db "$db" --machine vm --where onednn_max_cpu_isa_env=unset \
    --where cpu_model="$(sed -n 's/^cpu_model,//p' "$r/compare_a/inventory.csv")" \
    --since 2026-12-02 --until 2026-12-03 --fail-on-regression 10
  [[ $(grep -c 'compare_slowed' "$tmp/store.out") == 0 ]] || fail "history took a run the selection leaves out"
  echo "ok: history of one machine by --machine/--since/--until/--where: the same output"
  mkdir -p "$tmp/nf" "$tmp/ns"  # the same relative --out in two folders: "Written: noise.csv" in both
  same env -C "$tmp/nf" "$rigcheck" noise "$r/compare_a" "$r/compare_a2" "$r/compare_a3" --out noise.csv VS \
    env -C "$tmp/ns" "$rigcheck" noise --db "$db" 'folder=compare_a' 'folder=compare_a2' 'folder=compare_a3' --out noise.csv
  diff "$tmp/nf/noise.csv" "$tmp/ns/noise.csv" >/dev/null ||
    fail "noise.csv from the store differs: $(diff "$tmp/nf/noise.csv" "$tmp/ns/noise.csv" | head -4)"
  echo "ok: noise profile from the store: the same noise.csv"
  "$rigcheck" compare --db "$db" --a folder=compare_a --b folder=nothing_like_it >"$tmp/none.log" 2>&1 &&
    fail "a selection that keeps no run was accepted"
  grep -q "keeps no run" "$tmp/none.log" || fail "no run selected: $(cat "$tmp/none.log")"
  "$rigcheck" compare --db "$db" --a 'bogus' --b 1 >"$tmp/bad.log" 2>&1 && fail "a bad selection term was accepted"
  grep -q "selection term 'bogus'" "$tmp/bad.log" || fail "bad term: $(cat "$tmp/bad.log")"
  [[ -z $(ls -A "$tmp/t") ]] || fail "the runs written back were left behind: $(ls -A "$tmp/t")"
  export -n TMPDIR
  echo "ok: a selection that keeps no run and a bad term are refused, naming them; nothing left behind"
  # Digests (docs/store.md): history and noise above read the runs from the digests store add made.
  # Without them (a store an older rigcheck filled) the files are read: the same output; store add
  # of the same folders adds them; an edited digest is refused by history and named by verify.
  if command -v sqlite3 >/dev/null || [[ $db == postgresql://* ]]; then
    [[ $(sql1 "SELECT COUNT(*) FROM run_digests") == "${#f[@]}" ]] || fail "digests: $(sql1 "SELECT COUNT(*) FROM run_digests")"
    sql "DELETE FROM run_digests"
    same "$rigcheck" history "${hist[@]}" --fail-on-regression 10 VS \
      "$rigcheck" history --db "$db" --machine vm --where onednn_max_cpu_isa_env=unset \
      --where cpu_model="$(sed -n 's/^cpu_model,//p' "$r/compare_a/inventory.csv")" \
      --since 2026-12-02 --until 2026-12-03 --fail-on-regression 10
    "$rigcheck" store add --db "$db" "${dirs[@]}" >"$tmp/readd.log" 2>&1 || fail "store add again: $(cat "$tmp/readd.log")"
    [[ $(grep -c 'its digest added, nothing else' "$tmp/readd.log") == "${#f[@]}" ]] || fail "re-add: $(cat "$tmp/readd.log")"
    sql "UPDATE run_digests SET body = body || '1:x' WHERE run_id = (SELECT MIN(run_id) FROM run_digests)"
    "$rigcheck" history --db "$db" --machine vm >"$tmp/edited.log" 2>&1 && fail "history read an edited digest"
    grep -q "its digest differs from its stored SHA-256" "$tmp/edited.log" || fail "edited digest: $(cat "$tmp/edited.log")"
    "$rigcheck" store verify --db "$db" >"$tmp/verify.log" && fail "verify passed an edited digest"
    grep -q "^DIFFERS: run [0-9]* (compare_a) digest: differs from the SHA-256 recorded on import" "$tmp/verify.log" ||
      fail "verify: $(cat "$tmp/verify.log")"
    echo "ok: runs read from their digests, or from their files where none: the same output; re-add adds them; an edited one refused"
  fi
}

# A throw-away PostgreSQL cluster for this test (scripts/pg-throwaway.sh), stopped and removed on
# exit, also when a step fails.
source "$(dirname "$0")/../../../scripts/pg-throwaway.sh"
stop_postgresql() {
  pg_stop
  rm -rf "$tmp"
}
start_postgresql() {
  if ! pg_find; then
    echo "SKIP: $pg_why"
    exit 77
  fi
  local probe; probe=$("$rigcheck" store list --db "postgresql://nobody@/none?host=/nonexistent" 2>&1 || true)
  if grep -q 'built without libpq' <<<"$probe"; then
    echo "SKIP: this rigcheck was built without libpq (Debian: libpq-dev)"
    exit 77
  fi
  trap stop_postgresql EXIT
  pg_start -c fsync=off -c max_connections=40 || fail "the throw-away PostgreSQL did not start"
  echo "ok: a throw-away PostgreSQL $pg_version in $pg"
}
postgresql() {
  start_postgresql
  writers=8
  local m
  for m in roundtrip concurrent kill9 selection; do
    psql -q "postgresql://rigcheck@/postgres?host=$pg" -c "CREATE DATABASE $m" || fail "createdb $m"
    db="postgresql://rigcheck@/$m?host=$pg"
    "$m"
  done
}

case "$mode" in
  roundtrip | concurrent | kill9 | selection | postgresql) "$mode" ;;
  *) fail "unknown mode $mode" ;;
esac
