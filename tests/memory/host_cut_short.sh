#!/bin/bash
# memory_host keeps what it measured when cut short: each child process's peak_rss_bytes row (with
# its baseline and step time) is written to the CSV as soon as that child ends, so a memory_host
# killed later (the runner's timeout ends in SIGKILL) keeps the points that finished. Runs the tiny
# point (light_cnn b2: two children, the check and one repetition) and a slower extra point
# (RIGCHECK_CAPACITY_CHECK=light_cnn:48), kills memory_host with SIGKILL while that second point
# runs, and checks that the .partial holds b2's two peak rows. (When the rows were derived at the
# end, none was there: this fails.)
# Usage: host_cut_short.sh MEMORY_HOST
set -u
# light_cnn b48 is skipped by memory_host unless about 4.5 GB are free; keep a margin.
source "$(dirname "$0")/needs_host.sh" "$1" 6000000
out=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$out"' EXIT
RIGCHECK_CAPACITY_CHECK=light_cnn:48 "$exe" --profile tiny --reps 1 --out "$out" --stem mh --run-id cut >"$out/log" 2>&1 &
pid=$!
partial="$out/mh.csv.partial"
# b2's timed repetition ends after its second child: its time_per_iter row is the sign that the
# b2 point is done and the b48 point starts.
for _ in $(seq 1 480); do
  grep -q ',light_cnn/b2,.*,time_per_iter,' "$partial" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
grep -q ',light_cnn/b2,.*,time_per_iter,' "$partial" 2>/dev/null || { cat "$out/log"; echo "FAIL: b2 never finished in 240 s"; exit 1; }
sleep 1
if ! kill -0 "$pid" 2>/dev/null; then
  cat "$out/log"; echo "FAIL: memory_host ended before it could be cut short (did it skip the b48 point?)"; exit 1
fi
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
[ -e "$out/mh.csv" ] && { echo "FAIL: memory_host finished its CSV although killed"; exit 1; }
echo "kept after SIGKILL:"; cat "$partial"
peaks=$(grep -c ',light_cnn/b2,.*,peak_rss_bytes,[0-9.e+]*,B,[01],ok,' "$partial")
[ "$peaks" = 2 ] || { echo "FAIL: $peaks peak_rss_bytes rows of light_cnn/b2 kept, expected 2 (one per child)"; exit 1; }
grep -q ',light_cnn/b2,.*,step_time,[0-9.e+-]*,s,1,ok,' "$partial" || { echo "FAIL: no step_time row of b2's second child"; exit 1; }
grep -q ',light_cnn/b48/check,.*,peak_rss_bytes,' "$partial" && { echo "FAIL: a peak of the killed b48 point"; exit 1; }
echo "PASS: the killed memory_host kept b2's two peak rows"
