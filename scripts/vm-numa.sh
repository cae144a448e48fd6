#!/usr/bin/env bash
# An emulated 2-socket NUMA machine on this one (docs/testing.md, docs/topology.md): QEMU's x86-64
# system emulator, software emulation (TCG: these VMs offer no KVM), 16 vCPUs as 2 sockets x 4 cores
# x 2 hardware threads with 2 NUMA nodes of 4 GiB, boots a Debian 12 root with Debian's own kernel,
# runs a short `rigcheck run` of this build inside and brings the run folder out.
#  1. the guest's root, made once and kept in $RIGCHECK_VM_NUMA_CACHE (default
#     /var/cache/rigcheck/vm-numa): `debootstrap --variant=minbase bookworm` with linux-image-amd64 (its
#     initramfs) and the Debian packages that hold the shared libraries the binaries need (ldd here,
#     `dpkg -S`: this machine is Debian 12 too), made into root.img (mkfs.ext4 -d), with vmlinuz and
#     initrd.img taken from it for -kernel/-initrd. It is keyed by that package list, the mirror and
#     the guest's init: a build that needs another library makes it anew. debs/ keeps the packages;
#  2. the payload, per run: this build's binaries for the selection (debug info stripped), data/, any
#     library no package holds, and the steps to run, in an ext4 image (mkfs.ext4 -d) that also
#     receives the results: nothing is mounted here, the root image is only read (snapshot=on);
#  3. the boot (-kernel, init= a small script of the root that runs the payload's steps and powers
#     off), then `debugfs -R rdump` of the results: the run folder, the guest's lscpu and
#     numactl --hardware, its console and timings, in build/vm-numa/ (kept on a failure too).
# TCG is ~590x slower than this CPU at floating point: the default run is a short selection
# (about 25 s of rigcheck run in the guest, 50 s with the boot), every timing of it the emulator's, never a figure.
#   scripts/vm-numa.sh [--build DIR] [--out DIR] [-- RIGCHECK RUN ARGS...]
# Exit codes: 0 the guest ran and the run folder is out; 1 a failure (said on a FAIL: line);
# 2 usage; 77 it cannot run here (not root, no QEMU or debootstrap that setup.sh can install, no
# mirror), with the reason on a SKIP: line. tests/vm/vm_numa_check.sh judges the run folder.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build=$here/build
out=
# shellcheck disable=SC2054  # commas inside arguments (a list for --select)
run_args=(--profile tiny --select cpu_gemm,memory_bandwidth,memory_latency,io_fio_tmpfs
  --case-filter '^(gemm_sgemm_openblas/|memory_bandwidth[^/]*/(triad/plain/|.*node)|memory_latency_numa/|fio/)' --timeout-scale 20)
while (($# > 0)); do
  case "$1" in
    --build) build=$(realpath "${2:?--build DIR}"); shift ;;
    --out) out=${2:?--out DIR}; shift ;;
    --) shift; run_args=("$@"); break ;;
    *) echo "vm-numa: unknown option $1 (usage: scripts/vm-numa.sh [--build DIR] [--out DIR] [-- RUN ARGS...])" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$build/vm-numa}
cache=${RIGCHECK_VM_NUMA_CACHE:-/var/cache/rigcheck/vm-numa}
guest_timeout=${RIGCHECK_VM_NUMA_TIMEOUT:-1500}
suite=bookworm
t_start=$SECONDS
say() { echo "vm-numa: $*"; }
die() {
  echo "vm-numa: FAIL: $*" >&2
  exit 1
}
skip() {
  echo "SKIP: $*"
  exit 77
}

# ------------------------------------------------------------------ what this machine must have
tools_present() {
  local t
  for t in qemu-system-x86_64 debootstrap mkfs.ext4 debugfs objcopy; do
    command -v "$t" >/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null || return 1
  done
}
[[ $(id -u) -eq 0 ]] || skip "debootstrap needs root (this is uid $(id -u))"
export PATH=$PATH:/usr/sbin:/sbin
if ! tools_present; then
  # As a fresh machine gets them: the repository's own setup (qemu-system-x86, debootstrap, e2fsprogs).
  "$here/scripts/setup.sh" --tests >&2 || skip "scripts/setup.sh --tests could not install QEMU and debootstrap"
  tools_present || skip "no qemu-system-x86_64, debootstrap, mkfs.ext4, debugfs or objcopy after scripts/setup.sh --tests"
fi
[[ -x $build/bin/rigcheck ]] || die "no $build/bin/rigcheck: build first (scripts/build.sh)"

# ------------------------------------------------------------------ the binaries of the selection
# The run's --select names benchmarks of data/benchmarks.csv; their binaries (column 3) go into the
# guest with rigcheck. Without --select every benchmark binary of the build goes.
selection() {
  local i sel=
  for ((i = 0; i < ${#run_args[@]}; i++)); do
    case "${run_args[$i]}" in
      --select) sel=${run_args[$((i + 1))]:-} ;;
      --select=*) sel=${run_args[$i]#--select=} ;;
    esac
  done
  awk -F, -v sel=",$sel," 'NR > 1 && (sel == ",," || index(sel, "," $1 ",")) { print $3 }' "$here/data/benchmarks.csv" | sort -u
}
mapfile -t binaries < <(echo rigcheck; selection)
for b in "${binaries[@]}"; do [[ -x $build/bin/$b ]] || die "no $build/bin/$b (not built here?)"; done

# The Debian packages that hold the binaries' shared libraries (libc and the loader come with any root),
# and the libraries no package holds (carried in the payload's lib/).
libs_closure() {
  local b
  for b in "${binaries[@]}"; do ldd "$build/bin/$b"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u
}
# One `dpkg -S` for them all (about 0.4 s a call): each library as ldd names it, the file it links to and
# its twin under /usr (merged /usr: dpkg may know either path).
mapfile -t libs < <(libs_closure)
declare -A owner=()
while IFS= read -r line; do
  [[ $line == *": /"* ]] || continue
  pkg=${line%: *}
  pkg=${pkg%%,*}
  owner[${line##*: }]=${pkg%%:*}
done < <(for lib in "${libs[@]}"; do printf '%s\n%s\n%s\n' "$lib" "$(readlink -f "$lib")" "/usr$lib"; done | sort -u | xargs dpkg -S 2>/dev/null)
packages=() loose_libs=()
for lib in "${libs[@]}"; do
  pkg=
  for p in "$lib" "$(readlink -f "$lib")" "/usr$lib"; do
    if [[ -n ${owner[$p]:-} ]]; then pkg=${owner[$p]} && break; fi
  done
  if [[ -n $pkg ]]; then packages+=("$pkg"); else loose_libs+=("$lib"); fi
done
# The kernel and its initramfs; `ip` (the loopback, which Open MPI's PMIx wants), numactl (the guest's
# NUMA picture, kept beside the run).
# fio: io_fio_tmpfs runs under the guest's Debian 12 kernel (6.1), whose tmpfs refuses O_DIRECT.
packages+=(linux-image-amd64 initramfs-tools iproute2 numactl fio)
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

# ------------------------------------------------------------------ 1. the root, cached and keyed
# The guest's init: mounts, the loopback, the payload's steps, then power off. The payload disk is
# unmounted first so that debugfs reads a clean file system here.
read -r -d '' guest_init <<'EOF' || true
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/pts /payload
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
hostname rigcheck-vm-numa
ip link set lo up
if mount -t ext4 /dev/vdb /payload; then
  /bin/bash /payload/steps.sh >/payload/out/steps.log 2>&1
  echo "$?" >/payload/out/steps.exit
  sync
  umount /payload || mount -o remount,ro /payload
else
  echo "rigcheck-vm-init: the payload disk /dev/vdb did not mount"
fi
sync
echo o >/proc/sysrq-trigger
sleep 60
EOF
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}
key="$suite $mirror ${packages[*]} init:$(sha256sum <<<"$guest_init" | cut -c1-16)"

make_root() {
  local t=$SECONDS root=$cache/root.partial
  if command -v curl >/dev/null; then
    timeout 20 curl -fsI "$mirror/dists/$suite/Release" >/dev/null 2>&1 || skip "the mirror $mirror cannot be reached"
  fi
  say "making the guest's root: debootstrap --variant=minbase $suite with ${#packages[@]} packages (${packages[*]})"
  rm -rf "$root" "$cache/root.img.partial"
  mkdir -p "$cache/debs"
  local include
  include=$(IFS=,; echo "${packages[*]}")
  debootstrap --variant=minbase --include="$include" --cache-dir="$cache/debs" "$suite" "$root" "$mirror" \
    >"$cache/debootstrap.log" 2>&1 || { tail -5 "$cache/debootstrap.log" >&2; die "debootstrap failed (log $cache/debootstrap.log)"; }
  say "debootstrap took $((SECONDS - t)) s"
  printf '%s\n' "$guest_init" >"$root/sbin/rigcheck-vm-init"
  chmod 755 "$root/sbin/rigcheck-vm-init"
  printf '/dev/vda / ext4 defaults 0 1\n' >"$root/etc/fstab"
  local kernel initrd
  kernel=$(find "$root/boot" -name "vmlinuz-*" | sort -V | tail -1)
  initrd=$(find "$root/boot" -name "initrd.img-*" | sort -V | tail -1)
  [[ -f $kernel && -f $initrd ]] || die "no kernel or initramfs in $root/boot (log $cache/debootstrap.log)"
  cp "$kernel" "$cache/vmlinuz.partial" && cp "$initrd" "$cache/initrd.img.partial"
  # The package cache and the lists are not needed inside: a smaller image, made faster.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  local mib
  mib=$(($(du -sm "$root" | cut -f1) * 13 / 10 + 256))
  truncate -s "${mib}M" "$cache/root.img.partial"
  mkfs.ext4 -q -F -L rigcheck-root -d "$root" "$cache/root.img.partial" >/dev/null ||
    die "mkfs.ext4 -d of the root failed"
  mv "$cache/root.img.partial" "$cache/root.img"
  mv "$cache/vmlinuz.partial" "$cache/vmlinuz" && mv "$cache/initrd.img.partial" "$cache/initrd.img"
  rm -rf "$root"
  echo "$key" >"$cache/key"
  say "the guest's root made in $((SECONDS - t)) s: $cache/root.img (${mib} MiB, $(basename "$kernel"))"
}
mkdir -p "$cache"
# One guest at a time per cache: a second run waits here rather than remake the root under the first.
exec 9>"$cache/lock"
flock 9
if [[ ! -f $cache/key || $(cat "$cache/key") != "$key" || ! -f $cache/root.img ]]; then
  command -v debootstrap >/dev/null || skip "no debootstrap (scripts/setup.sh --tests installs it)"
  make_root
else
  say "the guest's root from the cache: $cache/root.img"
fi

# ------------------------------------------------------------------ 2. the payload
rm -rf "$out" && mkdir -p "$out"
work=$out/.payload
stage=$work/stage
mkdir -p "$stage/opt/rigcheck/bin" "$stage/opt/rigcheck/lib" "$stage/opt/rigcheck/share/rigcheck" "$stage/out"
for b in "${binaries[@]}"; do objcopy --strip-debug "$build/bin/$b" "$stage/opt/rigcheck/bin/$b"; done
cp -r "$here/data" "$stage/opt/rigcheck/share/rigcheck/data"
for lib in "${loose_libs[@]}"; do cp -L "$lib" "$stage/opt/rigcheck/lib/"; done
# The steps inside (/payload is this image in the guest; lib/ first on the loader's path, for the libraries
# no package holds; the run's arguments one a line in run_args).
cat >"$stage/steps.sh" <<'EOF'
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 TMPDIR=/var/tmp
export LD_LIBRARY_PATH=/payload/opt/rigcheck/lib
cd /payload/out
cut -d" " -f1 /proc/uptime >init_at_s
lscpu >lscpu.txt 2>&1
numactl --hardware >numactl.txt 2>&1
uname -a >uname.txt
t0=$(cut -d" " -f1 /proc/uptime)
mapfile -t args </payload/run_args
/payload/opt/rigcheck/bin/rigcheck run --out /payload/out/results "${args[@]}" >run.log 2>&1
echo $? >run.exit
echo "$t0 $(cut -d" " -f1 /proc/uptime)" >run_span_s
EOF
printf "%s\n" "${run_args[@]}" >"$stage/run_args"
mib=$(($(du -sm "$stage" | cut -f1) + 512))
truncate -s "${mib}M" "$work/payload.img"
mkfs.ext4 -q -F -L rigcheck-payload -d "$stage" "$work/payload.img" >/dev/null || die "mkfs.ext4 -d of the payload failed"
say "payload: ${binaries[*]} (debug info stripped), data/, ${#loose_libs[@]} carried libraries; $mib MiB image"

# ------------------------------------------------------------------ 3. the boot
# 2 sockets x 4 cores x 2 threads. vendor=GenuineIntel: QEMU's `max` CPU is otherwise AMD without
# the topology extension, and the guest then sees 8 cores x 1 thread per socket. One NUMA node per
# socket (QEMU numbers a socket's CPUs together: 0-7 and 8-15).
# shellcheck disable=SC2054  # commas inside arguments (QEMU options)
qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max,vendor=GenuineIntel
  -smp 16,sockets=2,cores=4,threads=2 -m 8G
  -object memory-backend-ram,id=m0,size=4G -numa node,nodeid=0,cpus=0-7,memdev=m0
  -object memory-backend-ram,id=m1,size=4G -numa node,nodeid=1,cpus=8-15,memdev=m1
  -kernel "$cache/vmlinuz" -initrd "$cache/initrd.img"
  -append "root=/dev/vda rw console=ttyS0 init=/sbin/rigcheck-vm-init panic=-1 quiet"
  -drive "file=$cache/root.img,format=raw,if=virtio,snapshot=on"
  -drive "file=$work/payload.img,format=raw,if=virtio"
  -nic none -display none -monitor none -serial "file:$out/console.log" -no-reboot)
printf '%q ' "${qemu[@]}" >"$out/qemu-command.txt"
say "booting the guest (TCG, 16 vCPUs, 2 NUMA nodes; at most $guest_timeout s): rigcheck run ${run_args[*]}"
t=$SECONDS
rc=0
timeout "$guest_timeout" "${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1 || rc=$?
guest_s=$((SECONDS - t))
[[ $rc -ne 124 ]] || die "the guest did not power off within $guest_timeout s (console: $out/console.log)"
[[ $rc -eq 0 ]] || { cat "$out/qemu.log" >&2; die "qemu-system-x86_64 exited $rc (console: $out/console.log)"; }

# ------------------------------------------------------------------ the results, out
debugfs -R "rdump /out $work" "$work/payload.img" >"$work/debugfs.log" 2>&1 || die "debugfs rdump failed ($work/debugfs.log)"
[[ -f $work/out/steps.exit ]] || die "the guest's steps did not finish (console: $out/console.log)"
mv "$work"/out/* "$out/"
rm -rf "$work"
run=$(find "$out/results" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -1)
[[ -n $run && -f $run/inventory.csv ]] || { tail -20 "$out/run.log" >&2; die "no run folder came out of the guest (log $out/run.log)"; }
ln -sfn "results/$(basename "$run")" "$out/run"
read -r r0 r1 <"$out/run_span_s"
say "guest: init after $(cat "$out/init_at_s") s of boot, rigcheck run $(awk -v a="$r0" -v b="$r1" 'BEGIN { printf "%.0f", b - a }') s" \
  "(exit $(cat "$out/run.exit")), the whole guest $guest_s s"
say "the run folder: $out/run; the whole script took $((SECONDS - t_start)) s"
