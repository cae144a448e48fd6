#!/usr/bin/env bash
# `rigcheck run --launcher`: a launcher that cannot start (missing) or that exits non-zero marks
# the launched comm benchmark failed with the launcher's own words; the other benchmarks and
# the report still complete. Local stand-ins only: no remote address is ever contacted.
source "$(dirname "$0")/../support/lib.sh"
rigcheck="$1"
out="$tmp"
cat >"$out/registry.csv" <<'CSV'
name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description
fake_ok,fake,fake_bench,--filter n4096,,,60,60,60,"a benchmark that is not launched"
comm_allreduce_mpi,comm,comm_allreduce_mpi,@launcher,,,60,60,60,"launched through --launcher"
CSV
# A stand-in for a launcher that fails the way mpirun does when it cannot reach a node.
cat >"$out/failing-launcher" <<'SH'
#!/bin/sh
echo "stand-in launcher: ORTE was unable to reliably start one or more daemons (stand-in, nothing contacted)" >&2
exit 213
SH
chmod +x "$out/failing-launcher"
# A stand-in for srun without PMIx (MpiDefault=none, or --mpi=none): Open MPI's banner, as each rank
# prints it (tests/comm/comm_slurm_cluster.sh's cluster printed this under srun --mpi=none).
cat >"$out/srun-without-pmi" <<'SH'
#!/bin/sh
cat >&2 <<'TXT'
The application appears to have been direct launched using "srun",
but OMPI was not built with SLURM's PMI support and therefore cannot
execute.
*** An error occurred in MPI_Init
srun: error: n1: task 0: Exited with exit code 1
TXT
exit 1
SH
chmod +x "$out/srun-without-pmi"

check() {  # $1 launcher, $2 text the manifest reason must hold
  local root="$out/runs-$3"
  "$rigcheck" run --profile tiny --benchmarks "$out/registry.csv" --launcher "$1" --out "$root" >"$out/log-$3" 2>&1 &&
    fail "rigcheck run should exit non-zero when a benchmark failed"
  local run
  run=$(find "$root" -mindepth 1 -maxdepth 1 -type d | head -1)
  [[ -s $run/report.md && -s $run/verdicts.csv ]] || { cat "$out/log-$3"; fail "no report after a failed launcher"; }
  grep -q '^fake_ok,fake,.*,0,ok,' "$run/manifest.csv" || fail "the other benchmark did not complete: $(cat "$run/manifest.csv")"
  grep '^comm_allreduce_mpi,' "$run/manifest.csv" | grep -q ',failed,' || fail "comm not marked failed: $(cat "$run/manifest.csv")"
  grep '^comm_allreduce_mpi,' "$run/manifest.csv" | grep -qF "$2" || fail "reason lacks '$2': $(cat "$run/manifest.csv")"
  grep -q "^NET-1," "$run/verdicts.csv" || fail "no NET-1 verdict"
}
check "$out/no-such-dir/mpirun -np 2" "cannot execute $out/no-such-dir/mpirun" missing
check "$out/failing-launcher -np 2" "ORTE was unable to reliably start one or more daemons" failing
check "$out/srun-without-pmi --mpi=none" "srun started the ranks without PMIx, which this Open MPI needs" nopmi
grep '^comm_allreduce_mpi,' "$out"/runs-nopmi/*/manifest.csv | grep -qF "add --mpi=pmix to the launcher" ||
  fail "the reason does not say what to do"
grep -h '^comm_allreduce_mpi,' "$out"/runs-*/*/manifest.csv | cut -d, -f5-

# And the default launcher (mpirun -np N, N = the usable cores within 2..8, --allow-run-as-root as
# root) runs it: ok, N ranks, N the inventory's usable_cores clamped; and on one core (taskset) 2
# ranks, oversubscribed, still ok.
if command -v mpirun >/dev/null; then
  sed -i 's|^comm_allreduce_mpi,comm,comm_allreduce_mpi,@launcher,|comm_allreduce_mpi,comm,comm_allreduce_mpi,@launcher --sizes 8-4K*8 --reps 1,|' "$out/registry.csv"
  "$rigcheck" run --profile tiny --benchmarks "$out/registry.csv" --out "$out/runs-default" >"$out/log-default" 2>&1 ||
    { cat "$out/log-default"; fail "run with the default launcher failed"; }
  run=$(find "$out/runs-default" -mindepth 1 -maxdepth 1 -type d | head -1)
  usable=$(grep '^usable_cores,' "$run/inventory.csv" | cut -d, -f2)
  n=$((usable < 2 ? 2 : usable > 8 ? 8 : usable))
  grep -q "^comm_allreduce_mpi,comm,mpirun -np $n .*,0,ok," "$run/manifest.csv" ||
    fail "default launcher on $usable usable cores, not -np $n: $(cat "$run/manifest.csv")"
  grep -q "ranks=$n;" "$run/comm_allreduce_mpi.csv" || fail "default launcher did not start $n ranks"
  taskset -c 0 "$rigcheck" run --profile tiny --benchmarks "$out/registry.csv" --out "$out/runs-one" >"$out/log-one" 2>&1 ||
    { cat "$out/log-one"; fail "run with the default launcher on one core failed"; }
  run=$(find "$out/runs-one" -mindepth 1 -maxdepth 1 -type d | head -1)
  grep -q '^comm_allreduce_mpi,comm,mpirun -np 2 .*--oversubscribe.*,0,ok,' "$run/manifest.csv" ||
    fail "default launcher on one core: $(cat "$run/manifest.csv")"
fi
echo "launcher failures reported with the launcher's own message; run and report completed"
