#!/usr/bin/env bash
# ctest arm64_qemu_kernels (label arm64): the aarch64 build of cpu_peak and memory_bandwidth (preset
# arm64-cross, docs/arm.md) run here under qemu-user in the tiny profile, and their result CSVs read:
#  - cpu_peak: NEON passes its bit-exact check; SVE passes it at the vector length qemu gives
#    (-cpu max,sve512=on and sve256=on: the length is read at run time, vector_bits says which),
#    and on a CPU without SVE (-cpu cortex-a72) its cases are skipped naming HWCAP, NEON still ok;
#  - memory_bandwidth: the 4 STREAM kernels x plain/non-temporal (STNP) stores in NEON each pass
#    their exact check against the scalar reference;
#  - every timed row is mistrusted, its note saying the binary ran emulated (emulation.hpp).
# Skipped (77) with the reason without qemu-aarch64, the arm64 sysroot or the arm64 binaries.
#   arm64_qemu.sh ARM64_BUILD_DIR [SYSROOT]     (SYSROOT default ARM64_BUILD_DIR/sysroot)
source "$(dirname "$0")/../support/lib.sh"
build=$1
sysroot=${2:-$build/sysroot}
skip() {
  echo "SKIP: $*"
  exit 77
}
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (scripts/setup.sh --arch arm64 installs qemu-user)"
[[ -d $sysroot/usr/lib/aarch64-linux-gnu ]] || skip "no arm64 sysroot at $sysroot (scripts/arm64-sysroot.sh)"
for b in cpu_peak memory_bandwidth; do
  [[ -x $build/bin/$b ]] || skip "no arm64 $b in $build/bin (docs/arm.md: cmake --preset arm64-cross; cmake --build build-arm64 --target cpu_peak memory_bandwidth)"
  aarch64_elf "$build/bin/$b"
done

# run CPU NAME BINARY ARGS...: the binary under qemu-aarch64 -cpu CPU, results in $tmp/NAME/BINARY.csv
run() {
  local cpu=$1 name=$2 bin=$3 rc=0
  shift 3
  mkdir -p "$tmp/$name"
  qemu-aarch64 -cpu "$cpu" -L "$sysroot" "$build/bin/$bin" --profile tiny --out "$tmp/$name" "$@" \
    >"$tmp/$name/$bin.log" 2>&1 || rc=$?
  fail_log=$tmp/$name/$bin.log
  [[ $rc -eq 0 ]] || fail "$bin under qemu-aarch64 -cpu $cpu exited $rc"
  [[ -s $tmp/$name/$bin.csv ]] || fail "$bin under -cpu $cpu wrote no $bin.csv"
  if grep -q ',failed,' "$tmp/$name/$bin.csv"; then fail "$bin under -cpu $cpu: failed rows: $(grep ',failed,' "$tmp/$name/$bin.csv" | head -3)"; fi
  fail_log=
}
# passed CSV CASE [PARAM]: CASE's check row passed (and its params hold PARAM)
passed() {
  grep -q "^[^,]*,[^,]*,[^,]*,$2,[^,]*${3:-},check_wrong,0,count,-1,ok," "$1" ||
    fail "$2: no passed check row${3:+ with $3} in $1: $(grep ",$2," "$1" | head -2)"
}
# emulated CSV: every timed row mistrusted as emulated, and there are some
emulated() {
  local timed
  timed=$(grep -c ',time_per_iter,' "$1") || true
  [[ $timed -gt 0 ]] || fail "no timed rows in $1"
  if grep ',time_per_iter,' "$1" | grep -v ',mistrusted,"*timed under emulation: this aarch64 binary runs emulated' | grep -q .; then
    fail "timed rows not mistrusted as emulated in $1: $(grep ',time_per_iter,' "$1" | head -2)"
  fi
}

run max,sve512=on sve512 cpu_peak --threads 1,2
csv=$tmp/sve512/cpu_peak.csv
for t in 1 2; do
  passed "$csv" "neon/t$t"
  passed "$csv" "sve/t$t" "vector_bits=512"
done
emulated "$csv"

run max,sve256=on sve256 cpu_peak --threads 1
passed "$tmp/sve256/cpu_peak.csv" sve/t1 "vector_bits=256"

run cortex-a72 nosve cpu_peak --threads 1
csv=$tmp/nosve/cpu_peak.csv
passed "$csv" neon/t1
grep -q ',sve/t1,.*,skipped,"*this CPU lacks sve (HWCAP)' "$csv" || fail "sve/t1 not skipped for HWCAP on cortex-a72: $(grep ',sve/t1,' "$csv")"
echo "ok: cpu_peak NEON and SVE (512 and 256 bits, read at run time) pass bit-exact under qemu; no SVE: skipped"

run max memory memory_bandwidth --threads 1,2
csv=$tmp/memory/memory_bandwidth.csv
for op in copy scale add triad; do
  for st in plain nt; do
    for t in 1 2; do passed "$csv" "$op/$st/neon/t$t"; done
  done
done
grep -q ',gbps_write_allocate,' "$csv" || fail "no gbps_write_allocate rows in $csv"
emulated "$csv"
echo "ok: memory_bandwidth's 8 NEON kernels (plain and STNP stores) pass exact under qemu; timed rows mistrusted as emulated"

# The inventory of the arm64 rigcheck, where that build has it (cmake --build build-arm64 --target
# rigcheck): emulation seen, the CPU named from MIDR_EL1 through data/arm_cpus.csv (/proc/cpuinfo
# under qemu-user is the host's), the HWCAP features and the SVE length of the CPU qemu gives.
if [[ ! -x $build/bin/rigcheck ]]; then
  echo "ok (inventory not checked: no arm64 rigcheck in $build/bin)"
  exit 0
fi
# inventory CPU FIELD=VALUE...: each key of rigcheck inventory under -cpu CPU starts with its value
inventory() {
  local cpu=$1 inv=$tmp/inventory-$1.csv kv
  shift
  qemu-aarch64 -cpu "$cpu" -L "$sysroot" "$build/bin/rigcheck" inventory --out "$inv" >"$inv.log" 2>&1 ||
    { fail_log=$inv.log; fail "rigcheck inventory under -cpu $cpu exited non-zero"; }
  for kv in "$@"; do
    grep -q "^${kv%%=*},\"*${kv#*=}" "$inv" || fail "inventory under -cpu $cpu: want ${kv%%=*} = ${kv#*=}..., have: $(grep "^${kv%%=*}," "$inv")"
  done
}
inventory neoverse-n1 cpu_arch=aarch64 kernel_arch=x86_64 "emulated=yes: this aarch64 binary runs emulated" \
  cpu_implementer=0x41 cpu_part=0xd0c "cpu_arm_name=Arm Neoverse-N1 (AWS Graviton2; Ampere Altra) (from MIDR_EL1" \
  isa_asimd=yes isa_sve=no "sve_vector_bits=unknown: no SVE" "isa_avx2=unknown: an x86 feature; this binary is aarch64"
inventory a64fx cpu_arm_name=Fujitsu isa_sve=yes sve_vector_bits=512
inventory max,sve256=on cpu_implementer=0x00 "cpu_arm_name=unknown: implementer 0x00" isa_sve=yes sve_vector_bits=256 \
  isa_sve2=yes isa_bf16=yes isa_i8mm=yes
echo "ok: the arm64 inventory sees the emulation, names the CPU from MIDR_EL1, reads HWCAP and the SVE length"
