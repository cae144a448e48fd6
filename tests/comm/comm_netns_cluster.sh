#!/usr/bin/env bash
# Two nodes over a shaped link, launched by Open MPI: scripts/netns-cluster.sh makes 2 network
# namespaces on a 10 Gbit/s tbf-shaped veth star, mpirun (in the head namespace) starts the comm
# area's quick all-reduce on them through the cluster's rsh agent over TCP, and the test checks
# every case's element check (0 wrong), the node count (2 nodes, each rank on its own namespace
# node, one machine), the interface and the link named in the rows; then the cluster comes down
# and nothing of it is left (namespaces, links, processes, state). Skips (77) where namespaces
# cannot be made (not root, no ip/tc) or there is no mpirun.
source "$(dirname "$0")/../support/lib.sh"
source "$(dirname "$0")/../support/netns.sh"
bin="$1"
id="ct$$"
out="$tmp"
# veth links in this (the root) namespace: the cluster makes its veths inside its own namespaces,
# so none may appear here (other kinds of link come and go with the machine's own services).
links_before=$(ip -o link show type veth 2>/dev/null | wc -l || echo 0)
cleanup() {
  cluster_down
  ip netns del "f$id-n2" 2>/dev/null || true
}
cluster_up "$id" 10.213.77 10gbit
state=/run/rigcheck-netns/$id
launcher=$(cat "$state/launcher")
start=$SECONDS
# The quick profile's plan without the 400 MB NET-1 case (seconds per call over a shaped TCP link).
# shellcheck disable=SC2086
timeout 120 $launcher "$bin" --profile quick --no-net1 --transport tcp --reps 2 --out "$out" --stem ar >"$out/log" 2>&1 ||
  { cat "$out/log"; fail "mpirun through the cluster's agent exited $?"; }
cat "$out/log"
echo "all-reduce through the namespace cluster: $((SECONDS - start)) s"
csv="$out/ar.csv"
[[ -s $csv ]] || fail "no CSV"
checks=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong"' "$csv" | wc -l)
[[ $checks -ge 10 ]] || fail "expected the quick plan's 10 checked cases, found $checks"
bad=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong" && ($7!="0" || $10!="ok")' "$csv" | wc -l)
[[ $bad -eq 0 ]] || fail "$bad cases with wrong elements"
grep -q 'checked all 16777216 elements on each of 2 ranks' "$csv" || fail "the 64 MiB case did not check every element"
[[ $(grep -c 'ranks=2;nodes=2;' "$csv") -ge 10 ]] || fail "rows do not say 2 ranks on 2 nodes"
grep -q 'machines=1;oversubscribed=no;tcp_if_include=10.213.77.0/24;link=veth-star-10gbit' "$csv" ||
  fail "rows do not name the machine count, the TCP subnet and the shaped link"
for r in 0 1; do
  grep -q "^1,[^,]*,mpi_ranks,rank$r,\"host=$id-n$((r + 1));nics=eth0(up[^;]*;tcp_if_include=10.213.77.0/24;tcp_via=eth0;" "$csv" ||
    fail "rank $r did not run on node $id-n$((r + 1)) over its eth0: $(grep mpi_ranks "$csv")"
done
# TCP bytes of the 64 MiB all-reduce per rank: the ring formula 2(n-1)/n x S = S on 2 nodes, +-10%.
awk -F, '$3=="mpi_allreduce_f32" && $4 ~ /67108864B/ && $6=="net_tx_bytes_per_rank" {
  if ($7 < 0.9*67108864 || $7 > 1.1*67108864) { print "FAIL: " $7 " B per rank for 64 MiB"; bad=1 } ; n++ }
  END { exit (bad || n == 0) }' "$csv" || fail "bytes on the wire per rank off the ring formula (or not measured)"

"$cluster" --id "$id" down
ip netns list | grep -q "^$id-" && fail "namespaces left: $(ip netns list)"
[[ ! -e $state ]] || fail "$state left"
[[ $(ip -o link show type veth | wc -l) -eq $links_before ]] || fail "veth links in this namespace changed: $(ip -o link show type veth)"
pgrep -f -- "$out" >/dev/null && fail "processes left: $(pgrep -af -- "$out")"
# A namespace it did not make is never touched: `up` stops at a taken name and removes only what it
# made before it; `down` without a record leaves the name alone.
ip netns add "f$id-n2"
"$cluster" --id "f$id" up 2 1gbit 0ms >"$out/foreign.log" 2>&1 && fail "up went on over a namespace it did not make"
grep -q "f$id-n2 already exists and was not made by this script" "$out/foreign.log" || fail "no refusal: $(cat "$out/foreign.log")"
"$cluster" --id "f$id" down >>"$out/foreign.log" 2>&1
[[ -e /run/netns/f$id-n2 ]] || fail "the foreign namespace f$id-n2 was removed"
ip netns list | grep -q "^f$id-\(head\|n1\)" && fail "up left what it made before it stopped: $(ip netns list)"
ip netns del "f$id-n2"
echo "2 namespace nodes over a shaped 10 Gbit/s link: every element checked, 2 nodes, torn down clean in $((SECONDS - start)) s"
