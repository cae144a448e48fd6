#!/usr/bin/env bash
# A dead node: on a 2-node namespace cluster (scripts/netns-cluster.sh), `rigcheck run --launcher`
# starts a long all-reduce through mpirun; the rank processes of node 2 are killed (SIGKILL) mid-run.
# The benchmark must end `failed` within 30 s with a reason naming that host, and the run must go
# on to the next benchmark and its report. Skips (77) where namespaces cannot be made.
source "$(dirname "$0")/../support/lib.sh"
source "$(dirname "$0")/../support/netns.sh"
rigcheck="$1"
id="cd$$"
subnet=10.213.78
out="$tmp"
fail_log="$out/log"
cleanup() {
  [[ -n ${runner:-} ]] && kill "$runner" 2>/dev/null || true
  cluster_down
}
cluster_up "$id" "$subnet" none
cat >"$out/registry.csv" <<'CSV'
name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description
comm_allreduce_mpi,comm,comm_allreduce_mpi,@launcher --sizes 16M --algorithms ring --modes out --reps 200 --min-time 1,,,120,120,120,"a long all-reduce, killed mid-run"
fake_ok,fake,fake_bench,--filter n4096,,,60,60,60,"the benchmark after it"
CSV
"$rigcheck" run --profile tiny --benchmarks "$out/registry.csv" --launcher "$(cat /run/rigcheck-netns/$id/launcher)" \
  --out "$out/runs" >"$out/log" 2>&1 &
runner=$!
# Wait for node 2's rank to be timing (its CSV rows appear on rank 0 once the first repetition is done).
for _ in $(seq 1 100); do
  compgen -G "$out/runs/*/comm_allreduce_mpi.csv.partial" >/dev/null &&
    grep -q time_per_iter "$out"/runs/*/comm_allreduce_mpi.csv.partial 2>/dev/null && break
  sleep 0.3
done
pids=$(for p in $(ip netns pids "$id-n2"); do [[ $(cat /proc/$p/comm 2>/dev/null) == comm_allreduce* ]] && echo "$p"; done)
[[ -n $pids ]] || fail "no rank process of comm_allreduce_mpi in $id-n2"
echo "killing node $id-n2's ranks: $pids"
kill -KILL $pids
killed=$SECONDS
manifest() { cat "$out"/runs/*/manifest.csv 2>/dev/null; }
while manifest | grep -q '^comm_allreduce_mpi,comm,.*,running,'; do
  (( SECONDS - killed <= 30 )) || fail "the benchmark was still running 30 s after its node died"
  sleep 0.2
done
took=$((SECONDS - killed))
wait "$runner" && fail "rigcheck run exited 0 with a failed benchmark" || true
runner=
row=$(manifest | grep '^comm_allreduce_mpi,')
echo "$row"
[[ $row == *,failed,* ]] || fail "not marked failed: $row"
[[ $row == *"a rank died: mpirun noticed that process rank 1 with PID "*" on node $subnet.2 exited on signal 9"* ]] ||
  fail "the reason does not lead with the dead host ($subnet.2): $row"
manifest | grep -q '^fake_ok,fake,.*,0,ok,' || fail "the next benchmark did not run: $(manifest)"
[[ -s $(echo "$out"/runs/*/report.md) ]] || fail "no report"
"$cluster" --id "$id" down
ip netns list | grep -q "^$id-" && fail "namespaces left"
pgrep -f -- "$out" >/dev/null && fail "processes left: $(pgrep -af -- "$out")"
echo "node $id-n2 killed: comm_allreduce_mpi failed naming it after $took s; the run went on"
