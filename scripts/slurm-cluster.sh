#!/usr/bin/env bash
# A throw-away Slurm cluster on the namespaced nodes of scripts/netns-cluster.sh: munge with a key
# made for it, slurmctld in the head namespace, one slurmd per node namespace under the node's own
# host name, and a slurm.conf written for exactly these nodes. Everything lives under one folder
# (default /run/rigcheck-slurm/ID) and is stopped and removed by `down` (also when `up` stops half
# way); the machine's own Slurm configuration (/etc/slurm) is never read or touched.
#
#   scripts/slurm-cluster.sh [--id ID] [--subnet A.B.C] up N RATE DELAY
#   scripts/slurm-cluster.sh [--id ID] down
#   scripts/slurm-cluster.sh [--id ID] status
#
# N RATE DELAY as for netns-cluster.sh (the nodes ID-n1..ID-nN, named n1..nN in Slurm). `up` writes
# into its folder:
#   slurm.conf, cgroup.conf   SLURM_CONF for every Slurm command of this cluster
#   bin/                      sbatch srun salloc sinfo squeue scancel scontrol sacct, each running in
#                             the head namespace (the only one that reaches the nodes) with SLURM_CONF
#   env                       `source` it: PATH with bin/ first, SLURM_CONF
# What it took on Debian 12's Slurm 22.05 (docs/multi-node.md "Slurm"):
# - slurmctld's host name must be SlurmctldHost's: it runs in a UTS namespace named after it.
# - proctrack/linuxproc, task/none and no cgroup plugin: this VM mounts cgroup v1 and v2 together,
#   which slurmd's cgroup plugins refuse ("Hybrid mode is not supported").
# - PMIx puts each step's files in TmpFS (spmix_appdir_UID_JOB.STEP): the nodes share one file
#   system, so each node's slurmd sees its own folder there (a bind mount in its mount namespace);
#   /tmp itself stays shared, so the suite and its output can live anywhere.
# - MpiDefault=pmix: Debian's Open MPI 4.1 takes its ranks from Slurm through PMIx
#   (`srun --mpi=list`: pmix, pmix_v4, pmi2, cray_shasta, none).
# Exit codes: 0 done; 1 failed (what it made is removed); 2 usage; 77 cannot run here (not root, no
# namespaces, Slurm or munge not installed), with the reason on a SKIP: line.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
id=rgs
subnet=10.215.1
base=${RIGCHECK_SLURM_DIR:-/run/rigcheck-slurm}

name=slurm-cluster
# shellcheck source=cluster-args.sh
source "$(dirname "$0")/cluster-args.sh"
netns=("$here/netns-cluster.sh" --id "$id" --subnet "$subnet")

# Every process this cluster started: its daemons, found by the configuration file they were given.
our_pids() { pgrep -f -- "$dir/" 2>/dev/null || true; }

cluster_down() {
  local quiet=${1:-} i pids
  if [[ -d $dir ]]; then
    # Jobs first (their steps end with them), then the daemons, then munge.
    if [[ -x $dir/bin/scancel && -n $(our_pids) ]]; then timeout 10 "$dir/bin/scancel" --full --quiet -u root 2>/dev/null || true; fi
    for i in $(seq 1 20); do
      pids=$(our_pids | tr '\n' ' ')
      [[ -n ${pids// } ]] || break
      if [[ $i -le 10 ]]; then kill -TERM $pids 2>/dev/null || true; else kill -KILL $pids 2>/dev/null || true; fi
      sleep 0.3
    done
    pids=$(our_pids | tr '\n' ' ')
    [[ -z ${pids// } ]] || echo "slurm-cluster: processes still running after SIGKILL: $pids" >&2
  fi
  # The nodes' namespaces (netns-cluster.sh kills whatever still runs inside them).
  if [[ -f /run/rigcheck-netns/$id/state ]]; then "${netns[@]}" down >/dev/null || return 1; fi
  if [[ -d $dir ]]; then
    rm -rf "$dir"
    rmdir "$base" 2>/dev/null || true
    [[ -n $quiet ]] || echo "slurm-cluster: cluster '$id' removed"
  elif [[ -z $quiet ]]; then
    echo "slurm-cluster: no cluster '$id' (no $dir): nothing to remove"
  fi
}

write_conf() {  # N
  local n=$1 i cpus mem
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2 / 1024 / '"$n"')}' /proc/meminfo)
  {
    echo "# Slurm cluster $id of scripts/slurm-cluster.sh ($(date -u +%FT%TZ)): $n nodes on this machine's namespaces"
    echo "ClusterName=rigcheck$id"
    echo "SlurmctldHost=$id-head($subnet.254)"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$dir/munge/munge.socket"
    echo "CredType=cred/munge"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "StateSaveLocation=$dir/state"
    echo "SlurmdSpoolDir=$dir/spool/%n"
    echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
    echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
    echo "SlurmctldLogFile=$dir/log/slurmctld.log"
    echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
    echo "TmpFS=$dir/nodetmp"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "SchedulerType=sched/builtin"
    echo "MpiDefault=pmix"
    echo "ReturnToService=2"
    # A node whose slurmd stops answering is DOWN after SlurmdTimeout (pinged every third of it);
    # its jobs end then (docs/multi-node.md: the dead-node test).
    echo "SlurmdTimeout=10"
    echo "SlurmctldTimeout=30"
    echo "MessageTimeout=5"
    echo "InactiveLimit=0"
    echo "MinJobAge=600"
    for ((i = 1; i <= n; i++)); do
      echo "NodeName=n$i NodeAddr=$subnet.$i CPUs=$cpus RealMemory=$mem State=UNKNOWN"
    done
    echo "PartitionName=rigcheck Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$dir/slurm.conf"
  # Read only if a cgroup plugin were configured; kept so that nothing falls back to /etc/slurm.
  echo "CgroupPlugin=cgroup/v1" >"$dir/cgroup.conf"
}

write_wrappers() {
  local c
  mkdir -p "$dir/bin"
  for c in sbatch srun salloc sinfo squeue scancel scontrol sacct; do
    cat >"$dir/bin/$c" <<EOF
#!/bin/sh
# $c of Slurm cluster $id (scripts/slurm-cluster.sh), from its head namespace.
SLURM_CONF=$dir/slurm.conf
export SLURM_CONF
exec ip netns exec $id-head /usr/bin/$c "\$@"
EOF
    chmod 755 "$dir/bin/$c"
  done
  printf 'export SLURM_CONF=%s\nexport PATH=%s:$PATH\n' "$dir/slurm.conf" "$dir/bin" >"$dir/env"
}

wait_idle() {  # N: every node idle within 30 s
  local n=$1 i state
  for i in $(seq 1 60); do
    state=$("$dir/bin/sinfo" -h -N -o '%N %t' 2>/dev/null || true)
    if [[ $(grep -c ' idle$' <<<"$state") -eq $n ]]; then return 0; fi
    sleep 0.5
  done
  echo "slurm-cluster: the nodes did not come up idle within 30 s: $(tr '\n' ' ' <<<"$state")" >&2
  tail -n 5 "$dir"/log/*.log >&2 || true
  return 1
}

cluster_up() {
  [[ $# -eq 3 ]] || usage
  local n=$1 i
  [[ $(id -u) -eq 0 ]] || skip "Slurm's daemons and network namespaces need root (this is uid $(id -u))"
  for c in slurmctld slurmd sbatch srun munged mungekey; do
    command -v "$c" >/dev/null || skip "no '$c' (Debian: slurmctld slurmd slurm-client munge; scripts/setup.sh --tests installs them)"
  done
  [[ ! -e $dir ]] || die "cluster '$id' is already up ($dir): run 'down' first"
  up_done=1
  # The network first: its own skips (no ip, tc or namespaces) and refusals (a name taken) apply.
  set +e
  "${netns[@]}" up "$@"
  local rc=$?
  set -e
  [[ $rc -eq 0 ]] || exit "$rc"
  up_done=0
  trap 'if [[ $up_done -eq 0 ]]; then echo "slurm-cluster: up failed; removing what it made" >&2; cluster_down quiet || true; fi' EXIT
  mkdir -p "$dir"/{munge,state,spool,run,log,nodetmp}
  for ((i = 1; i <= n; i++)); do mkdir -p "$dir/spool/n$i" "$dir/nodetmp-n$i"; done
  mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null
  chmod 600 "$dir/munge/munge.key"
  # --force: munged runs as root here (a throw-away cluster of one machine).
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed"
  write_conf "$n"
  write_wrappers
  ip netns exec "$id-head" unshare --uts sh -c "hostname $id-head && exec slurmctld -f $dir/slurm.conf"
  for ((i = 1; i <= n; i++)); do
    ip netns exec "$id-n$i" unshare --uts --mount sh -c \
      "hostname n$i && mount --bind $dir/nodetmp-n$i $dir/nodetmp && exec slurmd -f $dir/slurm.conf -N n$i"
  done
  wait_idle "$n"
  up_done=1
  echo "slurm-cluster: cluster '$id' up: $n Slurm nodes n1..n$n (namespaces $id-n1..$id-n$n), slurmctld in $id-head"
  echo "  source $dir/env    # then: sinfo; sbatch -N $n scripts/slurm/rigcheck-comm.sbatch; salloc -N $n ..."
  echo "  remove: $0 --id $id down"
}

cluster_status() {
  [[ -d $dir ]] || { echo "slurm-cluster: no cluster '$id'"; return 1; }
  "$dir/bin/sinfo" -N || true
  "$dir/bin/squeue" || true
  echo "processes: $(our_pids | wc -l)"
}

case "$cmd" in
  up) cluster_up "$@" ;;
  down) [[ $# -eq 0 ]] || usage; cluster_down ;;
  status) cluster_status ;;
  *) usage ;;
esac
