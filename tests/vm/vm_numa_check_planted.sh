#!/usr/bin/env bash
# The emulated machine's checker (vm_numa_check.sh) can fail: it passes the fixture run folder
# (tests/fixtures/vm_numa: a guest run of scripts/vm-numa.sh, see its README) and fails each copy of it
# with one fault planted, naming the fault: a 2-thread row on both nodes, a 4-thread row with a CPU of
# the other node, a failed memory binding, no SMT point, no 8-core point, one socket in the inventory,
# `emulated` no, a timing row ok, no rows on node 1 alone, a 1-thread row's memory on the other node,
# no latency from node 1's cores to node 0's memory, fio on tmpfs failed, a verdict measured from a timing.
#   tests/vm/vm_numa_check_planted.sh FIXTURE_DIR
# shellcheck source=SCRIPTDIR/../support/lib.sh
source "$(dirname "$0")/../support/lib.sh"
fixture=${1:?usage: vm_numa_check_planted.sh FIXTURE_DIR}
check=$(dirname "$0")/vm_numa_check.sh

out=$(bash "$check" "$fixture" 2>&1) || { echo "$out"; fail "the checker fails the unplanted fixture"; }
echo "ok: the fixture passes"

# plant NAME EXPECTED_FAIL_LINE_REGEX FILE SED_OR_AWK_PROGRAM...: a copy with FILE rewritten by the
# command given; the checker must exit 1 with a FAIL line matching the regex.
plant() {
  local name=$1 expect=$2 file=$3
  shift 3
  # shellcheck disable=SC2154  # $tmp: lib.sh
  local dir=$tmp/$name
  cp -r "$fixture" "$dir"
  "$@" <"$fixture/$file" >"$dir/$file"
  cmp -s "$fixture/$file" "$dir/$file" && fail "$name: the plant changed nothing in $file"
  local rc=0
  out=$(bash "$check" "$dir" 2>&1) || rc=$?
  [[ $rc -eq 1 ]] || { echo "$out"; fail "$name: the checker exited $rc, expected 1"; }
  grep -E "^(FAIL: |    ).*$expect" <<<"$out" >/dev/null || { echo "$out"; fail "$name: no FAIL line matching '$expect'"; }
  echo "ok: $name: $(grep -m1 -E "^(FAIL: |    ).*$expect" <<<"$out" | sed "s/^ *//")"
}
plant two_nodes_at_2_threads 'numa_nodes=0,1' cpu_gemm.csv \
  sed '0,/\/t2,"/ s/\(\/t2,".*\)numa_nodes=0;/\1numa_nodes=0,1;/'
plant cpu_of_other_node 'CPU 8 is not on node 0' memory_bandwidth.csv \
  sed '0,/cpus=0,2,4,6;/ s/cpus=0,2,4,6;/cpus=0,2,4,8;/'
plant memory_not_bound 'memory binding failed' cpu_gemm.csv \
  sed '0,/\/t1,.*,time_per_iter,/ s/\(\/t1,.*,time_per_iter,.*,mistrusted,"\)/\1set_mempolicy: Operation not permitted; /'
plant no_smt_point 'SMT point' cpu_gemm.csv grep -v '/t16,'
plant no_8_cores 'no row of 8 threads' cpu_gemm.csv grep -v '/t8,'
plant one_socket 'expected sockets=2' inventory.csv sed 's/^sockets,2$/sockets,1/'
plant not_emulated "emulated = 'no'" inventory.csv sed 's/^emulated,.*/emulated,no/'
plant timing_ok 'gflops: ok' cpu_gemm.csv \
  sed '0,/,gflops,[^,]*,GFLOP\/s,1,mistrusted,/ s/\(,gflops,[^,]*,GFLOP\/s,1,\)mistrusted,/\1ok,/'
plant no_node1_rows 'no case on NUMA node 1' memory_bandwidth.csv grep -v 'numa_nodes=1;'
plant memory_elsewhere 'memory_nodes=1 \(expected 0\)' memory_bandwidth.csv \
  sed '0,/\/t1,.*numa_nodes=0;memory_nodes=0;/ s/\(\/t1,.*numa_nodes=0;\)memory_nodes=0;/\1memory_nodes=1;/'
plant no_remote_latency 'no ns_per_load row cpu1/mem0' memory_latency.csv grep -v ',cpu1/mem0,'
plant fio_failed "io_fio_tmpfs under kernel .*status 'failed'" manifest.csv \
  awk -F, -v OFS=, '$1 == "io_fio_tmpfs" { $5 = "failed" } { print }'
plant verdict_measured 'MEM-2 confirmed \(basis measured\)' verdicts.csv \
  sed '/^MEM-2,/ { s/,not_measurable,/,confirmed,/; s/\(.*\),none,/\1,measured,/ }'
echo "vm_numa_check_planted: the fixture passes and each of 13 plants fails"
