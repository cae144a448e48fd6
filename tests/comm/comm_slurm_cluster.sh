#!/usr/bin/env bash
# The suite submitted to a Slurm cluster: scripts/slurm-cluster.sh brings up slurmctld
# and two slurmd on namespaced nodes, `sbatch -N 2 --wait scripts/slurm/rigcheck-comm.sbatch` runs
# the comm area's quick profile with srun (PMIx) starting one rank per node, and the test checks
# the run folder: every case's element check (0 wrong), ranks on n1 and n2, the inventory's Slurm
# job and launcher, NET-1's evidence naming both nodes, the launcher srun and the job. Then `down`
# must leave nothing: no live process of the cluster, no namespace, no mount, no folder.
# Skips (77) without root, ip/tc or Slurm's packages (scripts/setup.sh --tests installs them).
#   comm_slurm_cluster.sh RIGCHECK
source "$(dirname "$0")/../support/lib.sh"
source "$(dirname "$0")/../support/slurm.sh"
rigcheck="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$(cd "$(dirname "$0")/../.." && pwd)"
slurm_up 10.216.77
start=$SECONDS
# sbatch passes this shell's environment: SLURM_CONF, RIGCHECK, RIGCHECK_OUT, PROFILE.
(cd "$src" && RIGCHECK="$rigcheck" RIGCHECK_OUT="$tmp/out" PROFILE=quick \
   timeout 180 sbatch -N 2 --wait -o "$tmp/job-%j.log" scripts/slurm/rigcheck-comm.sbatch >"$tmp/sbatch.log" 2>&1) ||
  { cat "$tmp/sbatch.log" "$tmp"/job-*.log 2>/dev/null | tail -40; fail "sbatch --wait failed"; }
echo "sbatch -N 2 of rigcheck-comm.sbatch: $((SECONDS - start)) s ($(cat "$tmp/sbatch.log"))"
job=$(grep -o '[0-9]*$' "$tmp/sbatch.log")
run=$(ls -d "$tmp"/out/*/ 2>/dev/null | head -1)
[[ -n $run && -f $run/verdicts.csv ]] || { tail -30 "$tmp"/job-*.log; fail "no run folder with verdicts"; }
grep -q '^comm_allreduce_mpi,.*,ok,' "$run/manifest.csv" || fail "comm_allreduce_mpi not ok: $(cat "$run/manifest.csv")"
csv="$run/comm_allreduce_mpi.csv"
checks=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong"' "$csv" | wc -l)
bad=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong" && ($7!="0" || $10!="ok")' "$csv" | wc -l)
[[ $checks -ge 10 && $bad -eq 0 ]] || fail "$checks checked cases, $bad with wrong elements"
for r in 0 1; do
  grep -q "^1,[^,]*,mpi_ranks,rank$r,\"host=n$((r + 1));" "$csv" || fail "rank $r did not run on n$((r + 1)): $(grep mpi_ranks "$csv")"
done
grep -q "ranks=2;nodes=2;" "$csv" || fail "rows do not say 2 ranks on 2 nodes"
grep -q "^slurm_job_id,$job$" "$run/inventory.csv" || fail "inventory has no slurm_job_id $job"
grep -q '^slurm_job_nodelist,n\[1-2\]$' "$run/inventory.csv" || fail "inventory has no slurm_job_nodelist n[1-2]"
grep -q '^run_launcher,srun --mpi=pmix --kill-on-bad-exit=1 --nodes=2 --ntasks-per-node=1$' "$run/inventory.csv" ||
  fail "inventory does not name the launcher: $(grep run_launcher "$run/inventory.csv")"
net1=$(grep '^NET-1,' "$run/verdicts.csv")
grep -q "ranks on n1, n2, started by 'srun --mpi=pmix" <<<"$net1" || fail "NET-1's evidence does not name the nodes and srun: $net1"
grep -q "in Slurm job $job (nodes n\[1-2\])" <<<"$net1" || fail "NET-1's evidence does not name the Slurm job: $net1"
echo "ok: ranks on n1 and n2 started by srun in Slurm job $job; NET-1 names them"
slurm_down_checked
