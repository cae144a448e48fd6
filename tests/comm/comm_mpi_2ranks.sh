#!/usr/bin/env bash
# The MPI all-reduce on 2 ranks through mpirun: every size from 8 B to 64 MiB (x2 steps),
# in-place and out-of-place, Open MPI's default algorithm and the forced `nonoverlapping` one:
# 0 wrong elements in every case, one CSV from rank 0 in the suite's schema.
source "$(dirname "$0")/../support/lib.sh"
bin="$1"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (Debian: openmpi-bin)"; exit 77; }
# CI and this machine run as root; Open MPI refuses to start as root unless told (these two
# variables are its documented switch). Oversubscribe lets 2 ranks start on a 1-core runner.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out="$tmp"
mpirun -np 2 "$bin" --profile tiny --sizes 8-64M*2 --algorithms default,nonoverlapping --reps 1 --min-time 0.001 \
  --warmup 1 --out "$out" --stem ar >"$out/log" 2>&1 || { cat "$out/log"; fail "mpirun exited $?"; }
csv="$out/ar.csv"
[[ -s $csv ]] || fail "no CSV"
[[ ! -e $csv.partial ]] || fail "partial file left"
cat "$out/log"
# 24 sizes x 2 places x 2 algorithms = 96 cases, each with a check row of 0 wrong, status ok.
checks=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong"' "$csv" | wc -l)
[[ $checks -eq 96 ]] || fail "expected 96 checked cases, found $checks"
bad=$(awk -F, '$3=="mpi_allreduce_f32" && $6=="check_wrong" && ($7!="0" || $10!="ok")' "$csv" | wc -l)
[[ $bad -eq 0 ]] || fail "$bad cases with wrong elements: $(awk -F, '$6=="check_wrong" && $7!="0"' "$csv")"
for m in time_per_iter algbw busbw; do
  n=$(awk -F, -v m=$m '$3=="mpi_allreduce_f32" && $6==m' "$csv" | wc -l)
  [[ $n -eq 96 ]] || fail "expected 96 $m rows, found $n"
done
grep -q 'ranks=2;' "$csv" || fail "rows do not say 2 ranks"
[[ $(grep -c '^1,[^,]*,mpi_ranks,' "$csv") -eq 2 ]] || fail "expected one mpi_ranks row per rank"
# Results are never overwritten: a second run into the same file is refused (exit 2).
if mpirun -np 2 "$bin" --profile tiny --sizes 8 --out "$out" --stem ar >"$out/log2" 2>&1; then fail "overwrote $csv"; fi
grep -q "never overwritten" "$out/log2" || fail "no refusal message: $(cat "$out/log2")"
echo "comm_allreduce_mpi on 2 ranks: 96 cases, 0 wrong elements"
