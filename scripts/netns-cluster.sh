#!/usr/bin/env bash
# A test cluster on one machine: N network namespaces ("nodes") joined by veth links to a bridge
# in a head namespace (a star through a switch), each link shaped by tc (tbf rate, netem delay)
# in both directions. Open MPI sees N hosts with their own network stacks and addresses; mpirun
# runs in the head namespace and starts its daemons on the nodes through an rsh agent that enters
# the namespace of the address it is given (ip netns exec) instead of running ssh.
#
#   scripts/netns-cluster.sh [--id ID] [--subnet A.B.C] up N RATE DELAY
#   scripts/netns-cluster.sh [--id ID] down
#   scripts/netns-cluster.sh [--id ID] status
#
# RATE: a tc rate (1gbit, 10gbit, 25gbit, 500mbit) or "none" (unshaped veth); DELAY: a netem
# delay (0ms, 1ms, 200us) one way, per direction of each link. ID (default rgc) names the
# namespaces ID-head, ID-n1..ID-nN; the addresses are A.B.C.1..N (nodes) and A.B.C.254 (head),
# default 10.213.1: they exist only inside these namespaces (nothing is added to the namespace
# this script runs in). `up` writes /run/rigcheck-netns/ID/:
#   state     what this script made: each namespace with its inode (the kernel's id of it)
#   hostfile  Open MPI hostfile, one address per node, slots=1
#   agent     the rsh agent (--mca plm_rsh_agent): agent [options] HOST COMMAND...
#   mpirun    mpirun started in the head namespace (ip netns exec ID-head mpirun "$@")
#   launcher  the words for `rigcheck run --launcher "$(cat launcher)"`
# `down` kills the processes inside the namespaces it made and deletes them (their veths and the
# bridge go with them). It refuses to touch a namespace it did not make: `up` stops when a name is
# taken, and `down` deletes only namespaces listed in its state whose inode is still the same.
# The nodes share this machine's CPUs, memory and kernel: a shaped link on one machine, not a
# cluster (docs/performance.md says what that means for the figures).
# Exit codes: 0 done; 1 failed (what it made is removed); 2 usage; 77 cannot make namespaces
# here (not root, no ip/tc, no netns support), with the reason on a SKIP: line.
set -euo pipefail

id=rgc
subnet=10.213.1
base=${RIGCHECK_NETNS_DIR:-/run/rigcheck-netns}

name=netns-cluster
# shellcheck source=cluster-args.sh
source "$(dirname "$0")/cluster-args.sh"

can_make_namespaces() {
  [[ $(id -u) -eq 0 ]] || skip "network namespaces need root (this is uid $(id -u))"
  command -v ip >/dev/null || skip "no 'ip' command (Debian: iproute2)"
  command -v tc >/dev/null || skip "no 'tc' command (Debian: iproute2)"
  local probe="rgcprobe$$"
  ip netns add "$probe" 2>/dev/null || skip "'ip netns add' fails here (no network namespace support, or a container without CAP_SYS_ADMIN)"
  if ! ip -n "$probe" link add p0 type veth peer name p1 2>/dev/null; then
    ip netns del "$probe"
    skip "veth links cannot be made here"
  fi
  ip netns del "$probe"
}

ns_inode() { stat -L -c %i "/run/netns/$1" 2>/dev/null || true; }

# Kill every process inside a namespace (TERM, then KILL), so that deleting it leaves none behind.
kill_inside() {
  local ns=$1 pids i
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    [[ -n ${pids// } ]] || return 0
    if [[ $i -le 10 ]]; then kill -TERM $pids 2>/dev/null || true; else kill -KILL $pids 2>/dev/null || true; fi
    sleep 0.2
  done
  pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
  [[ -z ${pids// } ]] || echo "netns-cluster: processes still in $ns after SIGKILL: $pids" >&2
}

# shellcheck disable=SC2120  # "quiet" is passed from the EXIT trap of up
cluster_down() {
  local quiet=${1:-} bad=0 name inode now
  if [[ ! -f $dir/state ]]; then
    [[ -n $quiet ]] || echo "netns-cluster: no cluster '$id' (no $dir/state): nothing to remove"
    for name in "$id-head" "$id-n"{1..64}; do
      [[ -e /run/netns/$name ]] && echo "netns-cluster: namespace $name exists but this script has no record of making it: left alone" >&2
    done
    [[ ! -d $dir ]] || rmdir "$dir" 2>/dev/null || true
    return 0
  fi
  # Nodes first (their processes, then the namespace), the head last: its mpirun sees the nodes go.
  while read -r key name inode; do
    [[ $key == ns ]] || continue
    now=$(ns_inode "$name")
    if [[ -z $now ]]; then continue; fi
    if [[ $now != "$inode" ]]; then
      echo "netns-cluster: namespace $name is not the one this script made (inode $now, made $inode): left alone" >&2
      bad=1
      continue
    fi
    kill_inside "$name"
    ip netns del "$name" || bad=1
  done < <(grep '^ns ' "$dir/state" | tac)
  if [[ $bad -eq 0 ]]; then
    rm -f "$dir/state" "$dir/hostfile" "$dir/hostfile.tmp" "$dir/agent" "$dir/mpirun" "$dir/launcher"
    rmdir "$dir" 2>/dev/null || true
    [[ -n $quiet ]] || echo "netns-cluster: cluster '$id' removed"
  else
    echo "netns-cluster: cluster '$id' not fully removed; $dir/state kept" >&2
    return 1
  fi
}

make_ns() {  # create a namespace and record it before anything is put in it
  local name=$1
  [[ ! -e /run/netns/$name ]] || die "namespace $name already exists and was not made by this script: choose another --id"
  ip netns add "$name"
  echo "ns $name $(ns_inode "$name")" >>"$dir/state"
  ip -n "$name" link set lo up
}

shape() {  # shape ns dev: tbf at RATE (if any), netem DELAY under it (if any)
  local ns=$1 dev=$2 parent="root"
  if [[ $rate != none ]]; then
    ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$burst" limit "$limit"
    parent="parent 1:1"
  fi
  if [[ $delay_us -gt 0 ]]; then
    # shellcheck disable=SC2086
    ip netns exec "$ns" tc qdisc add dev "$dev" $parent handle 10: netem delay "$delay" limit 100000
  fi
}

# Bits per second of a tc rate word (10gbit, 500mbit, 1000kbit).
rate_bps() {
  local r=${1,,}
  [[ $r =~ ^([0-9]+)(k|m|g)?bit$ ]] || die "rate '$1': a number and kbit, mbit or gbit (10gbit), or none"
  local n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
  case "$u" in k) echo $((n * 1000)) ;; m) echo $((n * 1000000)) ;; g) echo $((n * 1000000000)) ;; *) echo "$n" ;; esac
}
delay_to_us() {
  local d=${1,,}
  [[ $d =~ ^([0-9]+)(us|ms|s)$ ]] || die "delay '$1': a whole number and us, ms or s (0ms, 200us)"
  case "${BASH_REMATCH[2]}" in us) echo "${BASH_REMATCH[1]}" ;; ms) echo $((BASH_REMATCH[1] * 1000)) ;; s) echo $((BASH_REMATCH[1] * 1000000)) ;; esac
}

cluster_up() {
  [[ $# -eq 3 ]] || usage
  n=$1 rate=${2,,} delay=${3,,}
  [[ $n =~ ^[0-9]+$ && $n -ge 2 && $n -le 64 ]] || { echo "netns-cluster: N '$n': 2 to 64 nodes" >&2; exit 2; }
  delay_us=$(delay_to_us "$delay")
  if [[ $rate != none ]]; then
    bps=$(rate_bps "$rate")
    # The bucket holds 2 ms of traffic (at least 256 KB: GSO packets up to 64 KB pass whole), the
    # queue 20 ms (at least 4 MB), so that TCP is slowed by the rate rather than by drops.
    burst=$((bps / 8 / 500)); ((burst >= 262144)) || burst=262144
    limit=$((bps / 8 / 50)); ((limit >= 4194304)) || limit=4194304
  fi
  can_make_namespaces
  up_done=1  # nothing of ours to remove yet
  [[ ! -e $dir/state ]] || die "cluster '$id' is already up ($dir/state): run 'down' first"
  mkdir -p "$dir"
  up_done=0
  {
    echo "# netns cluster $id, made by scripts/netns-cluster.sh on $(date -u +%FT%TZ) by pid $$"
    echo "nodes $n"
    echo "subnet $subnet.0/24"
    echo "rate $rate"
    echo "delay $delay"
  } >"$dir/state"
  # Whatever stops `up` half way (a failed command, a taken name), what it made is removed.
  trap 'if [[ $up_done -eq 0 ]]; then echo "netns-cluster: up failed; removing what it made" >&2; cluster_down quiet || true; fi' EXIT
  local head="$id-head" i ns cases=""
  make_ns "$head"
  ip -n "$head" link add br0 type bridge
  ip -n "$head" addr add "$subnet.254/24" dev br0
  ip -n "$head" link set br0 up
  : >"$dir/hostfile.tmp"
  echo "# netns cluster $id: $n nodes, one slot each (the nodes share this machine's $(nproc) CPUs)" >"$dir/hostfile.tmp"
  for ((i = 1; i <= n; i++)); do
    ns="$id-n$i"
    make_ns "$ns"
    ip -n "$head" link add "p$i" type veth peer name eth0 netns "$ns"
    ip -n "$head" link set "p$i" master br0
    ip -n "$head" link set "p$i" up
    ip -n "$ns" addr add "$subnet.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    shape "$ns" eth0    # node -> switch
    shape "$head" "p$i" # switch -> node
    echo "$subnet.$i slots=1" >>"$dir/hostfile.tmp"
    cases+="  $subnet.$i|$ns) ns=$ns ;;"$'\n'
  done
  mv "$dir/hostfile.tmp" "$dir/hostfile"
  local link="veth-star-${rate}-each-way-delay-${delay}-${n}-netns-nodes-on-one-machine"
  cat >"$dir/agent" <<EOF
#!/bin/sh
# rsh agent of netns cluster $id (scripts/netns-cluster.sh): Open MPI's --mca plm_rsh_agent.
# agent [ssh-style options] HOST COMMAND... runs COMMAND (joined as ssh joins it) with sh inside the
# namespace of HOST, one of the cluster's addresses or node names, under its own host name (a UTS
# namespace named after the node: each node has its own host name, as real nodes do).
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
[ \$# -ge 2 ] || { echo "agent: usage: agent HOST COMMAND..." >&2; exit 255; }
host=\$1; shift
case "\$host" in
$cases  *) echo "agent: \$host is not a node of netns cluster $id" >&2; exit 255 ;;
esac
# What the link is, for the benchmarks' rows (tc set it; a process in the namespace cannot see it).
RIGCHECK_LINK=$link
export RIGCHECK_LINK
exec ip netns exec "\$ns" unshare --uts sh -c 'hostname "\$0" && exec sh -c "\$1"' "\$ns" "\$*"
EOF
  cat >"$dir/mpirun" <<EOF
#!/bin/sh
# mpirun in the head namespace of netns cluster $id: the only place that reaches the nodes' addresses.
RIGCHECK_LINK=$link
export RIGCHECK_LINK
exec ip netns exec $head mpirun "\$@"
EOF
  chmod 755 "$dir/agent" "$dir/mpirun"
  local extra=""
  [[ $(id -u) -ne 0 ]] || extra+=" --allow-run-as-root"
  # Each node's daemon would bind its first rank to core 0: on one machine every rank would share
  # that core (50% CPU each with 2 nodes, 4 ms per small message). The nodes share the machine's
  # CPUs, so the ranks are not bound.
  extra+=" --bind-to none"
  # More ranks than CPUs: ranks yield the CPU while they wait instead of spinning on it.
  [[ $n -le $(nproc) ]] || extra+=" --mca mpi_yield_when_idle 1"
  echo "$dir/mpirun -np $n --hostfile $dir/hostfile --mca plm_rsh_agent $dir/agent --mca plm_rsh_no_tree_spawn 1 --mca btl_tcp_if_include $subnet.0/24 --mca oob_tcp_if_include $subnet.0/24$extra" >"$dir/launcher"
  up_done=1
  echo "netns-cluster: cluster '$id' up: $n nodes ($id-n1..$id-n$n, $subnet.1-$subnet.$n), head $head ($subnet.254), link $rate each way, delay $delay"
  echo "  launcher: $(cat "$dir/launcher")"
  echo "  e.g.: build/bin/rigcheck run --only comm --launcher \"\$(cat $dir/launcher)\""
  echo "  remove: $0 --id $id down"
}

cluster_status() {
  [[ -f $dir/state ]] || { echo "netns-cluster: no cluster '$id'"; return 1; }
  cat "$dir/state"
  local key name inode
  while read -r key name inode; do
    [[ $key == ns ]] || continue
    echo "== $name (inode $(ns_inode "$name"), processes: $(ip netns pids "$name" 2>/dev/null | wc -l))"
    ip -n "$name" -br addr 2>/dev/null | grep -v '^lo ' || true
    ip netns exec "$name" tc qdisc show 2>/dev/null | grep -v noqueue || true
  done <"$dir/state"
}

case "$cmd" in
  up) cluster_up "$@" ;;
  down) [[ $# -eq 0 ]] || usage; cluster_down ;;
  status) cluster_status ;;
  *) usage ;;
esac
