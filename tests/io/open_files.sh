#!/usr/bin/env bash
# io_dataloader's fio peer under the per-process open-file limit (RLIMIT_NOFILE), at 8 workers.
# fio runs its 8 jobs as threads of one process and every job opens every sample file, so 8 x 300
# files need 2,400 descriptors (the full profile: 8 x 4096). Checked:
#  0. the limit bites: fio itself, 8 jobs over 300 files under `ulimit -n 200`, fails ("openfiles");
#  1. soft limit lowered to 200, hard limit left: io_dataloader raises the soft limit to the hard one
#     and fio/w8 runs ok (every file open when the hard limit allows it);
#  2. hard limit 200: fio's openfiles is set to (200 - 64) / 8 = 17 and fio/w8 runs ok;
#  3. hard limit 70: not one file per job fits; fio/w8 fails with the reason naming the limit.
tmp_template=/var/tmp/rigcheck-openfiles.XXXXXX
source "$(dirname "$0")/../support/lib.sh"
bin="$1"
command -v fio >/dev/null || { echo "fio not found: skipped"; exit 77; }

# 0. the limit bites (else this test would pass without the fix)
mkdir "$tmp/d"
for i in $(seq 0 299); do head -c 4096 /dev/urandom >"$tmp/d/s$i.bin"; done
printf '[peer]\nioengine=psync\nrw=randread\nbs=4096\nnumjobs=8\nthread=1\nopendir=%s\ntime_based=1\nruntime=200ms\nfile_service_type=random\ncreate_on_open=0\nallow_file_create=0\n' \
  "$tmp/d" >"$tmp/j.fio"
if (ulimit -n 200 && fio --output="$tmp/j.out" "$tmp/j.fio" >"$tmp/j.log" 2>&1); then
  fail "fio with 8 jobs x 300 files ran under ulimit -n 200: the limit does not bite here, the cases below prove nothing"
fi
grep -q openfiles "$tmp/j.log" || { cat "$tmp/j.log"; fail "fio failed under ulimit -n 200, but not for open files"; }
rm -rf "$tmp/d"

run() {  # run NAME ULIMIT_ARGS...: io_dataloader's fio comparison at 8 workers over 300 samples
  local name="$1"
  shift
  mkdir "$tmp/$name"
  set +e
  (ulimit "$@" && "$bin/io_dataloader" --profile tiny --samples 300 --peer-workers 8 --filter dataloader_vs_fio \
    --reps 1 --peer-runtime 0.3 --scratch "$tmp/$name" --out "$tmp/$name") >"$tmp/$name.log" 2>&1
  rc=$?
  set -e
  csv="$tmp/$name/io_dataloader.csv"
  [[ -s "$csv" ]] || { cat "$tmp/$name.log"; fail "$name: no results"; }
}
fio_row() { grep '^[^,]*,[^,]*,dataloader_vs_fio,fio/w8,.*,iops,' "$csv" | head -1; }

hard="$(ulimit -Hn)"
if [[ "$hard" == unlimited || "$hard" -gt 200 ]]; then
  run soft -Sn 200
  [[ $rc == 0 ]] || { cat "$tmp/soft.log"; fail "soft limit 200: exit $rc"; }
  fio_row | grep -q ',ok,' || { cat "$tmp/soft.log"; fail "soft limit 200: fio/w8 not ok"; }
  grep -q 'open-file limit raised from 200' "$tmp/soft.log" || fail "soft limit 200: not raised to the hard limit"
  fio_row | grep -q 'open_file_limit=200[;,]' && fail "soft limit 200: the row records the unraised limit"
  echo "ok: soft limit 200 raised to $hard; $(fio_row | grep -o 'fio_openfiles=[0-9]*')"
else
  echo "hard limit $hard <= 200: the soft-limit case cannot be made"
fi

run hard -n 200
[[ $rc == 0 ]] || { cat "$tmp/hard.log"; fail "hard limit 200: exit $rc"; }
fio_row | grep -q 'fio_openfiles=17;open_file_limit=200,.*,ok,' || { cat "$tmp/hard.log"; fio_row; fail "hard limit 200: fio/w8 not ok with openfiles=17"; }
echo "ok: hard limit 200, fio openfiles=17 per job, $(fio_row | cut -d, -f7) IOPS"

run tiny -n 70
[[ $rc == 1 ]] || { cat "$tmp/tiny.log"; fail "hard limit 70: exit $rc, expected 1 (fio/w8 failed)"; }
fio_row | grep -q ',failed,the open-file limit 70 ' || { fio_row; fail "hard limit 70: no failed fio/w8 row naming the limit"; }
grep -q '^[^,]*,[^,]*,dataloader_vs_fio,pipeline/w8,.*,iops,.*,ok,' "$csv" || fail "hard limit 70: the pipeline side should still run"
echo "ok: hard limit 70: fio/w8 failed with: $(fio_row | cut -d, -f11-)"
