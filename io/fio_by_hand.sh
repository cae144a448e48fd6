#!/usr/bin/env bash
# The driver's figures against fio run by hand on the same job file, interleaved
# (driver, hand, driver, hand...), for docs/performance.md. Not a test: timing depends on load.
#   io/fio_by_hand.sh BIN_DIR [SCRATCH_DIR] [ROUNDS] [CASE]
# The driver (io_fio --profile quick) writes its job file beside its results; the hand run
# uses that file with filename= pointing to a scratch file of the same size made here.
set -euo pipefail
bin="$1"; scratch="${2:-/var/tmp}"; rounds="${3:-4}"; case="${4:-randread_4k_qd32x2}"
work="$(mktemp -d "$scratch/rigcheck-byhand.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM
metric() { awk -F, -v m="$2" 'NR>1 && $6==m && $10=="ok" {print $7}' "$1"; }
jnum() { grep -m1 "\"$2\" :" "$1" | sed 's/.*: *\([0-9.e+-]*\).*/\1/'; }
echo "# $(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/')  case $case on $scratch"
echo "round,who,iops,gbps"
for r in $(seq 1 "$rounds"); do
  out="$work/driver$r"; mkdir "$out"
  "$bin/io_fio" --profile quick --scratch "$work" --filter "^fio/$case\$" --reps 1 --out "$out" 2>/dev/null
  echo "$r,driver,$(metric "$out/io_fio.csv" iops),$(metric "$out/io_fio.csv" gbps)"
  job="$out/io_fio.jobs/$case.fio"
  size="$(grep '^size=' "$job" | cut -d= -f2)"
  f="$work/hand$r.dat"
  head -c "$size" /dev/urandom >"$f"; sync "$f"
  sed "s#^filename=.*#filename=$f#" "$job" >"$work/hand$r.fio"
  fio --output-format=json --output="$work/hand$r.json" "$work/hand$r.fio" >/dev/null
  rm -f "$f"
  iops="$(jnum "$work/hand$r.json" iops)"; bw="$(jnum "$work/hand$r.json" bw_bytes)"
  echo "$r,hand,$iops,$(awk -v b="$bw" 'BEGIN{print b/1e9}')"
done
echo "# $(uptime | sed 's/.*load/load/')"
