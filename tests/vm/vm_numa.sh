#!/usr/bin/env bash
# The emulated 2-socket NUMA machine (ctest vm_numa, label long; the stage of .ci/run): scripts/vm-numa.sh
# boots the guest with this build and brings the run folder out to BUILD_DIR/vm-numa/, then
# vm_numa_check.sh judges it against what QEMU was told. The checker is shown to fail on this very
# run too: a copy with one row of 2 threads or fewer moved onto both nodes (numa_nodes=0,1) must fail.
# Runs when asked (RIGCHECK_VM_NUMA=1, as .ci/run's stage does): minutes of both cores, the first
# time more (the guest's root is made and cached); elsewhere it skips (77) and says so, as it does where
# scripts/vm-numa.sh cannot run (not root, no QEMU or debootstrap, no mirror).
#   tests/vm/vm_numa.sh BUILD_DIR SOURCE_DIR
# shellcheck source=SCRIPTDIR/../support/lib.sh
source "$(dirname "$0")/../support/lib.sh"
build=${1:?usage: vm_numa.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: vm_numa.sh BUILD_DIR SOURCE_DIR}
if [[ ${RIGCHECK_VM_NUMA:-0} != 1 ]]; then
  echo "SKIP: the emulated NUMA machine runs when asked: RIGCHECK_VM_NUMA=1 (its own stage of .ci/run, docs/testing.md)"
  exit 77
fi
out=$build/vm-numa
rc=0
bash "$src/scripts/vm-numa.sh" --build "$build" --out "$out" || rc=$?
[[ $rc -ne 77 ]] || exit 77
[[ $rc -eq 0 ]] || fail "scripts/vm-numa.sh exited $rc (what came out is in $out)"
run=$(realpath "$out/run")

# The plant first, on a copy: the first row of 2 threads or fewer in cpu_gemm.csv now says both nodes.
cp -r "$run" "$tmp/planted"
awk 'BEGIN { done = 0 } !done && /\/t[12],"[^"]*numa_nodes=0;/ { sub(/numa_nodes=0;/, "numa_nodes=0,1;"); done = 1 } { print }' \
  "$run/cpu_gemm.csv" >"$tmp/planted/cpu_gemm.csv"
cmp -s "$run/cpu_gemm.csv" "$tmp/planted/cpu_gemm.csv" && fail "no row of 1 or 2 threads on node 0 to plant in $run/cpu_gemm.csv"
planted_rc=0
planted=$(bash "$src/tests/vm/vm_numa_check.sh" "$tmp/planted") || planted_rc=$?
if [[ $planted_rc -ne 1 ]] || ! grep -q "numa_nodes=0,1" <<<"$planted"; then
  echo "$planted"
  fail "the checker did not fail a copy of the run with a 2-thread row on both nodes (exit $planted_rc)"
fi
echo "ok: the checker fails a copy of this run with one row on both nodes: $(grep -m1 'numa_nodes=0,1' <<<"$planted" | sed 's/^ *//')"

echo "--- the guest's run folder ($run):"
bash "$src/tests/vm/vm_numa_check.sh" "$run"
