#!/usr/bin/env bash
# The GPU pack on bare roots, at its glibc floor and below it. This machine's /usr/lib holds
# Debian's fmt, Google Benchmark, hwloc, OpenMP..., which hide any library the pack forgot. So a
# minimal Debian root (debootstrap --variant=minbase, from the mirror apt already uses; built once
# per machine and cached in ~/.cache/rigcheck/bare-root-SUITE, $RIGCHECK_BARE_ROOT for the first)
# of the release whose glibc is the pack's floor (MANIFEST.txt's `needs glibc`: Debian 11 2.31,
# 12 2.36, 13 2.41) receives only the pack, and under chroot, in a private mount namespace:
#   1 ldd of every pack binary resolves everything but the driver's and CUDA's own libraries
#     (libcuda, libnvidia-*, libcublas*, libcudart, libnccl, libcudnn, libnvrtc, libnvJitLink);
#   2 with the CUDA toolkit's folder mounted where a CUDA image has it (/usr/local/cuda, read-only)
#     and no driver, every GPU binary exits 77 naming the missing GPU, and the pack's rigcheck runs
#     (`rigcheck list`);
#   3 the same pack with one carried library left out (libfmt) fails, naming that library;
#   4 below the floor, on a root of the release before (its glibc older): the pack's rigcheck does
#     not load (a GLIBC_ version not found), and scripts/gpu-check.sh, with a stand-in nvidia-smi,
#     stops in seconds (exit 5) naming both glibc versions. Where that root cannot be built, part 4
#     says so and the test still passes on 1-3.
# Where the floor is no Debian release's glibc, the root is this machine's release and the test
# says which glibc it proves.
# Skips (77) with the reason: no CUDA binaries in the build, not root (chroot, mount), no
# debootstrap (scripts/setup.sh --tests), the mirror out of reach.
# usage: gpu_bare_root.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[[ -x $build/bin/gpu_gemm && -x $build/bin/gpu_transfer ]] || skip "no CUDA benchmarks built here (RIGCHECK_WITH_CUDA=OFF)"
[[ $(id -u) -eq 0 ]] || skip "chroot and mount need root"
unshare -m true 2>/dev/null || skip "cannot make a mount namespace here (unshare -m)"
[[ -e /dev/nvidia0 || -e /dev/nvidiactl ]] && skip "a GPU is here: the no-GPU runs do not apply"
cuda=$(realpath /usr/local/cuda 2>/dev/null) || skip "no /usr/local/cuda"

# ------------------------------------------------------------------ the roots, cached
# make_root SUITE [DIR]: sets made (the root's path) or made_why (why not); built once, cached.
make_root() {
  local suite=$1 dir=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/rigcheck/bare-root-$1}
  made= made_why=
  if [[ ! -x $dir/usr/bin/ldd ]]; then
    command -v debootstrap >/dev/null || { made_why="no debootstrap (scripts/setup.sh --tests installs it)"; return 1; }
    local mirror
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    [[ -n $mirror ]] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    mirror=${mirror:-http://deb.debian.org/debian}
    if command -v curl >/dev/null && ! timeout 20 curl -fsI "$mirror/dists/$suite/Release" >/dev/null 2>&1; then
      made_why="the mirror $mirror cannot be reached for $suite"
      return 1
    fi
    echo "building the bare root once: debootstrap --variant=minbase $suite $dir $mirror"
    rm -rf "$dir.partial"
    mkdir -p "$(dirname "$dir")"
    if ! debootstrap --variant=minbase "$suite" "$dir.partial" "$mirror" >"$dir.log" 2>&1; then
      tail -5 "$dir.log"
      rm -rf "$dir.partial"
      made_why="debootstrap of $suite failed (mirror $mirror; log $dir.log)"
      return 1
    fi
    rm -rf "$dir" && mv "$dir.partial" "$dir"
  fi
  made=$dir
}

tmp=$(mktemp -d /tmp/rigcheck-bare-root.XXXXXX)
inside=/opt/rigcheck-pack-$$
root=
old=
cleanup() { rm -rf "$tmp"; [[ -n $root ]] && rm -rf "${root:?}$inside"; [[ -n $old ]] && rm -rf "${old:?}$inside"; }
trap cleanup EXIT

# The pack is built the way scripts/gpu-pack.sh builds it (preset gpu-pack: no MPI, oneDNN, OpenBLAS
# or LibTorch; DT_RPATH, so the carried libraries' own dependencies are found in lib/ too). A build
# that is not such a build (the default preset links DT_RUNPATH, which only the binary's own direct
# dependencies follow) gets one beside it: one CUDA architecture, the three packed binaries, through
# the compiler cache (cmake/ccache.cmake: about a minute once cached).
pack_build=$build
if ! readelf -d "$build/bin/rigcheck" 2>/dev/null | grep -q '(RPATH)'; then
  pack_build=$build/bare-root-pack
  echo "building the pack's own build in $pack_build (preset gpu-pack, CUDA architecture 90): $build links DT_RUNPATH"
  start=$SECONDS
  { (cd "$src" && PATH=/usr/local/cuda/bin:$PATH cmake --preset gpu-pack -B "$pack_build" -DCMAKE_CUDA_ARCHITECTURES=90) &&
    cmake --build "$pack_build" -j "${RIGCHECK_JOBS:-2}" --target rigcheck gpu_gemm gpu_transfer; } >"$tmp/pack-build.log" 2>&1 ||
    { tail -20 "$tmp/pack-build.log"; fail "the gpu-pack build in $pack_build"; }
  echo "  built in $((SECONDS - start)) s"
fi
bash "$src/scripts/gpu-pack.sh" --from "$pack_build" --out "$tmp/pack" --max-mib 200 >"$tmp/pack.log" 2>&1 ||
  { cat "$tmp/pack.log"; fail "gpu-pack.sh --from $pack_build"; }

# The root at the pack's floor: the Debian release with that glibc, else this machine's release.
floor=$(sed -n 's/^needs glibc: \([0-9.]*\).*/\1/p' "$tmp/pack/MANIFEST.txt")
[[ -n $floor ]] || fail "the pack's MANIFEST.txt has no 'needs glibc:' line"
releases=(bullseye:2.31 bookworm:2.36 trixie:2.41)
suite= below=
for i in "${!releases[@]}"; do
  if [[ ${releases[$i]#*:} == "$floor" ]]; then
    suite=${releases[$i]%:*}
    ((i > 0)) && below=${releases[$((i - 1))]%:*}
  fi
done
if [[ -z $suite ]]; then
  suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
  echo "note: the floor glibc $floor is no Debian release's: the root is this machine's ($suite)"
fi
make_root "$suite" "${RIGCHECK_BARE_ROOT:-}" || skip "$made_why"
root=$made
root_glibc=$(chroot "$root" getconf GNU_LIBC_VERSION | awk '{ print $2 }')
echo "ok: the bare root $root ($(du -sh "$root" | cut -f1), $(chroot "$root" dpkg-query -W | wc -l) packages," \
  "glibc $root_glibc; the pack's floor $floor)"

# check_pack PACK: copies PACK into the root and checks 1 and 2; prints what failed (exit 1) or ok.
check_pack() {
  local pack=$1 b
  rm -rf "${root:?}$inside" && mkdir -p "$root$inside" && cp -a "$pack"/. "$root$inside/"
  local bins=()
  for b in "$pack"/bin/*; do [[ -x $b && $b != *.not-built ]] && bins+=("$(basename "$b")"); done
  cat >"$tmp/inside.sh" <<EOF
set -u
mount -t proc proc '$root/proc' || exit 90
mount --rbind /dev '$root/dev' && mount --make-rslave '$root/dev' || exit 91
mkdir -p '$root/usr/local/cuda' '$root/tmp'
for b in ${bins[*]}; do
  chroot '$root' ldd '$inside'/bin/\$b 2>&1 | sed "s|^|ldd \$b |"
done
mount --bind -o ro '$cuda' '$root/usr/local/cuda' || exit 92
for b in ${bins[*]}; do
  [[ \$b == rigcheck ]] && continue
  rm -rf '$root/tmp/out-'\$b && mkdir -p '$root/tmp/out-'\$b
  chroot '$root' env -i PATH=/usr/bin:/bin '$inside'/bin/\$b --profile tiny --reps 2 --out /tmp/out-\$b >'$tmp/'\$b.log 2>&1
  echo "run \$b \$? \$(grep -m1 '^SKIP: ' '$tmp/'\$b.log)"
done
chroot '$root' env -i PATH=/usr/bin:/bin '$inside'/bin/rigcheck list >'$tmp/rigcheck.log' 2>&1
echo "run rigcheck \$?"
EOF
  unshare -m bash "$tmp/inside.sh" >"$tmp/inside.out" 2>&1
  local rc=$?
  ((rc == 0)) || { cat "$tmp/inside.out"; echo "the namespace script exited $rc (90-92: a mount failed)"; return 1; }
  local driver='^(libcuda|libnvidia-|libcublas|libcublasLt|libcudart|libnccl|libcudnn|libnvrtc|libnvJitLink)\.'
  local unresolved
  unresolved=$(awk '$1 == "ldd" && /not found/ { print $2 ": " $3 }' "$tmp/inside.out" | while read -r who lib; do
                 [[ $lib =~ $driver ]] || echo "$who $lib"
               done | sort -u | tr '\n' ' ')
  [[ -z $unresolved ]] || { echo "unresolved in the bare root: ${unresolved% }"; return 1; }
  # Everything resolved but glibc comes from the pack's lib/ (the root's own libstdc++ included).
  local glibc='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil)\.'
  local outside
  outside=$(awk '$1 == "ldd" && $4 == "=>" && $5 != "not" { print $2, $3, $5 }' "$tmp/inside.out" | while read -r who lib path; do
              [[ $lib =~ $glibc || $path == "$inside"/lib/* || $path == "$inside"/bin/../lib/* ]] || echo "$who $lib => $path"
            done | sort -u | tr '\n' ';')
  [[ -z $outside ]] || { echo "resolved outside the pack in the bare root: ${outside%;}"; return 1; }
  for b in "${bins[@]}"; do
    [[ $b == rigcheck ]] && continue
    local line
    line=$(grep "^run $b " "$tmp/inside.out")
    if [[ $line != "run $b 77 SKIP: "* ]]; then
      tail -5 "$tmp/$b.log"
      echo "$b did not exit 77 with a SKIP line in the bare root: $line"
      return 1
    fi
    grep -qiE 'GPU|CUDA|driver' <<<"$line" || { echo "$b's SKIP line does not name the missing GPU: $line"; return 1; }
  done
  grep -q '^run rigcheck 0$' "$tmp/inside.out" || { tail -5 "$tmp/rigcheck.log"; echo "the pack's rigcheck does not run in the bare root"; return 1; }
  echo "ok"
}

res=$(check_pack "$tmp/pack")
[[ $(tail -1 <<<"$res") == ok ]] || { echo "$res"; fail "the pack does not run on a bare root"; }
echo "ok: in the bare root, ldd of $(ls "$tmp/pack/bin" | grep -vc not-built) pack binaries resolves all but the driver's and CUDA's; every GPU binary exits 77 naming the GPU; rigcheck runs"
grep '^run ' "$tmp/inside.out" | sed 's/^/  /'

# 3: one library left out must be found and named.
cp -a "$tmp/pack" "$tmp/short"
gone=$(cd "$tmp/short/lib" && ls libfmt.so* 2>/dev/null | head -1)
[[ -n $gone ]] || fail "the pack carries no libfmt to leave out"
rm -f "$tmp/short/lib/$gone"
res=$(check_pack "$tmp/short")
[[ $(tail -1 <<<"$res") != ok ]] || fail "the pack without $gone passed the bare-root check"
grep -q "$gone" <<<"$res" || { echo "$res"; fail "the failure does not name $gone"; }
echo "ok: with $gone left out the check fails naming it: $(grep -m1 'unresolved' <<<"$res")"

# 4: below the floor, the release before: the pack does not load, and the check says so in seconds.
if [[ -z $below ]]; then
  echo "note: part 4 not run: no Debian release below the floor glibc $floor is known here"
  exit 0
fi
if ! make_root "$below"; then
  echo "note: part 4 not run: $made_why (parts 1-3 hold)"
  exit 0
fi
old=$made
old_glibc=$(chroot "$old" getconf GNU_LIBC_VERSION | awk '{ print $2 }')
rm -rf "${old:?}$inside"
mkdir -p "$old$inside" "$old/opt/fake" "$old/opt/rigcheck-src" && cp -a "$tmp/pack"/. "$old$inside/"
printf '#!/bin/sh\ncase "$1" in -L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-stand-in)" ;;\n%s\n' \
  '  -q) echo "CUDA Version : 13.0" ;; *) echo "stand-in" ;; esac' >"$old/opt/fake/nvidia-smi"
chmod +x "$old/opt/fake/nvidia-smi"
cat >"$tmp/below.sh" <<EOF2
set -u
mount -t proc proc '$old/proc' || exit 90
mount --rbind /dev '$old/dev' && mount --make-rslave '$old/dev' || exit 91
mount --bind -o ro '$src' '$old/opt/rigcheck-src' || exit 92
chroot '$old' '$inside/bin/rigcheck' list >'$tmp/old-rigcheck.log' 2>&1
echo "rigcheck \$?"
start=\$SECONDS
chroot '$old' env -i PATH=/opt/fake:/usr/bin:/bin HOME=/root bash /opt/rigcheck-src/scripts/gpu-check.sh \
  --pack '$inside' --out /tmp/out-floor >'$tmp/old-check.log' 2>&1
echo "check \$? \$((SECONDS - start))"
cp '$old/tmp/out-floor/summary.txt' '$tmp/old-summary.txt'
rm -rf '$old/tmp/out-floor'
EOF2
unshare -m bash "$tmp/below.sh" >"$tmp/below.out" 2>&1
rc=$?
((rc == 0)) || { cat "$tmp/below.out"; fail "the namespace script below the floor exited $rc (90-92: a mount failed)"; }
grep -q '^rigcheck 0$' "$tmp/below.out" && fail "the pack's rigcheck runs on glibc $old_glibc, below the floor $floor"
grep -q "GLIBC_" "$tmp/old-rigcheck.log" ||
  { cat "$tmp/old-rigcheck.log"; fail "the pack's rigcheck below the floor fails without naming a GLIBC_ version"; }
read -r _ crc secs < <(grep '^check ' "$tmp/below.out")
[[ $crc == 5 ]] || { cat "$tmp/old-check.log"; fail "gpu-check.sh on glibc $old_glibc exited $crc, not 5"; }
((secs <= 15)) || fail "gpu-check.sh took $secs s to stop at the glibc floor"
grep -q "glibc $old_glibc is older than the pack's floor $floor" "$tmp/old-summary.txt" ||
  { cat "$tmp/old-summary.txt"; fail "the headline does not name glibc $old_glibc and the floor $floor"; }
echo "ok: below the floor ($below, glibc $old_glibc): the pack's rigcheck does not load" \
  "($(grep -o "GLIBC_[0-9.]*' not found" "$tmp/old-rigcheck.log" | head -1)); gpu-check.sh stops in $secs s, exit 5:" \
  "$(head -1 "$tmp/old-summary.txt" | sed 's/.*: nothing/nothing/')"
