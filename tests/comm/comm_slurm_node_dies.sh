#!/usr/bin/env bash
# A Slurm node dies mid-job: on the cluster of scripts/slurm-cluster.sh, the suite's batch
# script runs the comm area's quick profile; 3 s into its first benchmark, every process of node n2 (its slurmd, its
# slurmstepd, its rank) is SIGKILLed, as a machine that goes away. slurmctld marks n2 down after
# SlurmdTimeout (10 s here; pinged every third of it) and cancels the job; the batch script's
# `rigcheck run` gets SIGTERM and Slurm's KillWait (30 s, the default) to finish. Checked: the job
# has ended within 90 s of the kill, the manifest says the running benchmark was interrupted,
# naming Slurm's node failure and n2, the rest not run, and the cut-short run still has its report;
# then nothing of the cluster is left. Skips (77) without root, ip/tc or Slurm's packages.
#   comm_slurm_node_dies.sh RIGCHECK
source "$(dirname "$0")/../support/lib.sh"
source "$(dirname "$0")/../support/slurm.sh"
rigcheck="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
src="$(cd "$(dirname "$0")/../.." && pwd)"
slurm_up 10.216.79
(cd "$src" && RIGCHECK="$rigcheck" RIGCHECK_OUT="$tmp/out" PROFILE=quick \
   sbatch -N 2 -o "$tmp/job-%j.log" scripts/slurm/rigcheck-comm.sbatch >"$tmp/sbatch.log" 2>&1) ||
  { cat "$tmp/sbatch.log"; fail "sbatch failed"; }
job=$(grep -o '[0-9]*$' "$tmp/sbatch.log")
# The first benchmark is under way once its ranks have started (the run folder's manifest says so).
for _ in $(seq 1 60); do
  grep -qs '^comm_allreduce_mpi,.*,running,' "$tmp"/out/*/manifest.csv && break
  sleep 0.5
done
sleep 3
killed=$SECONDS
for p in $(ip netns pids "$slurm_id-n2"); do kill -KILL "$p" 2>/dev/null || true; done
for _ in $(seq 1 240); do
  [[ -z $(squeue -h -j "$job" -t PD,R,CG 2>/dev/null) ]] && break
  sleep 0.5
done
took=$((SECONDS - killed))
[[ -z $(squeue -h -j "$job" -t PD,R,CG 2>/dev/null) ]] || fail "job $job still there 120 s after n2 died: $(squeue -j "$job")"
echo "job $job ended $took s after node n2 died"
((took <= 90)) || fail "the job took $took s to end (at most 90: SlurmdTimeout 10 s, srun's 32 s wait for the step, KillWait 30 s)"
run=$(ls -d "$tmp"/out/*/ 2>/dev/null | head -1)
[[ -n $run && -f $run/report.md ]] || { tail -20 "$tmp"/job-*.log; fail "no report in the cut-short run folder"; }
# The benchmark that was running (comm_allreduce_mpi, or the TCP one on a fast machine) was
# interrupted, naming the node; every one after it did not run.
row=$(grep ',interrupted,' "$run/manifest.csv") || fail "no benchmark interrupted: $(cat "$run/manifest.csv")"
grep -q '^comm_allreduce_mpi' <<<"$row" || fail "not a comm benchmark interrupted: $row"
grep -q 'Slurm cancelled the job: node failure (down: n2 ' <<<"$row" || fail "the manifest does not name Slurm's node failure and n2: $row"
after=$(awk -v b="${row%%,*}" -F, 'seen && NR > 1 { print $1 "," ($0 ~ /,not_run,/) } $1 == b { seen = 1 }' "$run/manifest.csv")
! grep -q ',0$' <<<"$after" || fail "a benchmark after the interrupted one is not 'not_run': $(cat "$run/manifest.csv")"
echo "ok: $(grep -o 'stopped by signal[^,]*' <<<"$row")"
slurm_down_checked
