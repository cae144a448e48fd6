#!/usr/bin/env bash
# What the shared Session fixes by construction in every benchmark binary (harness/session.hpp):
#  1. every binary refuses a bad --filter with exit 2 and says so;
#  2. io_fio's job count follows the CPUs this process may use: under `taskset -c 0`, one job;
#  3. a result that cannot be written (a file-size limit) makes the MPI binary end `failed` with the
#     file and the cause, on every rank, within seconds (not a hang, not a terminate()).
source "$(dirname "$0")/../../support/lib.sh"
set +e  # each step's exit status is checked where it matters
bin=$1
registry=$2
checked=0
# Every binary of the benchmark registry that this build has.
for name in $(tail -n +2 "$registry" | cut -d, -f3 | sort -u); do
  b=$bin/$name
  [[ -x $b ]] || continue
  out=$("$b" --filter '[' --list 2>&1)
  rc=$?
  [[ $rc -eq 2 ]] || fail "$name --filter '[' exited $rc, not 2: $out"
  grep -q "filter" <<<"$out" || fail "$name did not name --filter in its refusal: $out"
  checked=$((checked + 1))
done
[[ $checked -ge 8 ]] || fail "only $checked benchmark binaries found in $bin"
echo "ok: $checked binaries refuse a bad --filter with exit 2"

if [[ -x $bin/io_fio ]] && [[ $(nproc) -ge 2 ]]; then
  one=$(taskset -c 0 "$bin/io_fio" --profile quick --list 2>&1) || fail "io_fio --list under taskset: $one"
  grep -q 'randread_4k_qd32x1' <<<"$one" || fail "io_fio under taskset -c 0 does not run one job: $one"
  echo "ok: io_fio under taskset -c 0 plans one fio job"
fi

if [[ -x $bin/comm_allreduce_mpi ]] && command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  # 4 KiB of file size for the ranks (not for mpirun, whose own files need more): the first rows
  # fit, the rest of the case's rows do not. Open MPI's shared-memory transport backs its segment
  # with a file (its shmem component mmap) which Open MPI 5 sizes in MPI_Init, where the limit would
  # abort the rank before any result is written; System V segments (shmem sysv) are not files, so
  # the limit meets the result file alone, with Open MPI 4 and 5 alike.
  out=$(timeout 60 mpirun --mca shmem sysv -np 2 bash -c "ulimit -f 4; exec '$bin/comm_allreduce_mpi' --profile tiny --sizes 8,64 --out '$tmp'" 2>&1)
  rc=$?
  [[ $rc -ne 124 ]] || fail "comm_allreduce_mpi hung after a failed result write: $out"
  [[ $rc -ne 0 ]] || fail "comm_allreduce_mpi exited 0 although its results could not be written"
  grep -q 'FAILED: comm_allreduce_mpi: .*comm_allreduce_mpi.csv.partial.*\(File too large\|too large\)' <<<"$out" ||
    fail "no FAILED line naming the file and the cause: $out"
  echo "ok: comm_allreduce_mpi with a full result file fails with the file and the cause (exit $rc)"
fi
