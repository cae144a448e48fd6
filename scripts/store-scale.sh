#!/usr/bin/env bash
# The results store at scale (docs/store.md): N copies of one run folder, each under its
# own name (so each is another run: docs/store.md, "Identity of a run"), added to a new store by W
# `rigcheck store add` processes at once (each its share of the folders); prints the seconds it took
# and checks the store then holds N runs, none lost and none twice; then, with --history R, times R
# rounds of `rigcheck history --db STORE --machine HOST` over all N runs.
# A benchmark script, not a test: run it on an idle machine, and write the figures with the machine
# and the date into docs/performance.md.
#   scripts/store-scale.sh [--runs N] [--from RUN_DIR] [--rigcheck BIN] [--keep DIR] [--writers W]
#                          [--postgresql] [--history R]
# Defaults: 100 runs of tests/fixtures/runs/quick_vm, one writer, build/bin/rigcheck, SQLite
# (DIR/store.db), a temporary folder removed at the end (--keep DIR: made there and kept, and the
# PostgreSQL cluster left running, its URL printed). --postgresql: a throw-away PostgreSQL cluster of Debian's
# postgresql package (scripts/pg-throwaway.sh; fsync on, as a server's default). Exit 0 when every
# run was stored once, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=100 from="$here/tests/fixtures/runs/quick_vm" rigcheck="$here/build/bin/rigcheck" keep="" writers=1 postgresql=0
history=0
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --from) from="$2"; shift 2 ;;
    --rigcheck) rigcheck="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --writers) writers="$2"; shift 2 ;;
    --postgresql) postgresql=1; shift ;;
    --history) history="$2"; shift 2 ;;
    *) echo "store-scale: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $rigcheck ]] || { echo "store-scale: no rigcheck at $rigcheck (--rigcheck BIN)" >&2; exit 2; }
[[ -f $from/inventory.csv ]] || { echo "store-scale: $from is not a run folder" >&2; exit 2; }
source "$here/scripts/pg-throwaway.sh"
if [[ -n $keep ]]; then
  [[ ! -e $keep ]] || { echo "store-scale: $keep exists" >&2; exit 2; }
  mkdir -p "$keep" && work="$keep"
  trap '[[ -z $pg ]] || echo "store-scale: PostgreSQL left running: $db (stop: ${pg_as[*]} $pg_bin/pg_ctl -D $pg/data stop)"' EXIT
else
  work=$(mktemp -d) && trap 'pg_stop; rm -rf "$work"' EXIT
fi
db="$work/store.db"
if ((postgresql)); then
  pg_find || { echo "store-scale: $pg_why" >&2; exit 2; }
  pg_start -c max_connections=40 || exit 2
  psql -q "postgresql://rigcheck@/postgres?host=$pg" -c "CREATE DATABASE scale"
  db="postgresql://rigcheck@/scale?host=$pg"
fi
share=()
for i in $(seq "$runs"); do
  cp -r "$from" "$work/$(basename "$from")-copy$i"
  share[i % writers]+="$work/$(basename "$from")-copy$i"$'\n'
done
"$rigcheck" store list --db "$db" >/dev/null  # the schema made once, before the writers race
start=$(date +%s.%N)
pids=()
for w in $(seq 0 $((writers - 1))); do
  mapfile -t mine <<<"${share[w]%$'\n'}"
  "$rigcheck" store add --db "$db" "${mine[@]}" >"$work/add$w.log" 2>&1 &
  pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
end=$(date +%s.%N)
stored=$("$rigcheck" store list --db "$db" | sed -n 's/^Totals: [0-9]* machines, \([0-9]*\) runs, .*/\1/p')
added=$(cat "$work"/add*.log | grep -c ': stored as run ' || true)
size=$(if ((postgresql)); then psql -qtA "$db" -c "SELECT pg_size_pretty(pg_database_size('scale'))"; else du -h "$db" | cut -f1; fi)
echo "store-scale: $runs runs of $(basename "$from") ($(du -sh "$from" | cut -f1) each) added by $writers writer(s) at once" \
     "into $(((postgresql)) && echo "PostgreSQL $pg_version" || echo SQLite) in" \
     "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b - a}') s on $(hostname) ($(nproc) CPUs);" \
     "$added added, the store holds $stored runs, $size"
[[ $stored == "$runs" && $added == "$runs" && $failed == 0 ]] ||
  { echo "store-scale: $stored runs stored, $added added, $runs given, $failed writers failed" >&2; exit 1; }
host=$(sed -n 's/^hostname,//p' "$from/inventory.csv")
# Settled first, as after any bulk load: PostgreSQL's checkpoint and statistics (else its background
# work on the 3.4 GB just written runs under the first rounds), SQLite's write-ahead log folded in.
if ((history)); then
  sync
  if ((postgresql)); then psql -q "$db" -c "CHECKPOINT" -c "VACUUM ANALYZE"; else sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null 2>&1 || true; fi
fi
for r in $(seq "$history"); do
  start=$(date +%s.%N)
  "$rigcheck" history --db "$db" --machine "$host" >"$work/history.md"
  end=$(date +%s.%N)
  echo "store-scale: history of $host over $runs stored runs, round $r: $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b - a}') s"
done
