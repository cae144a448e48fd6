#!/usr/bin/env bash
# The suite on Debian 13 (trixie) from this machine (docs/distributions.md): a debootstrap root of
# trixie, made once and kept, in which the repository's own scripts install, build and test it as on
# a fresh Debian 13 machine; then the same tiny run on both releases, set side by side.
#  1. the root: `debootstrap --variant=minbase trixie` from the mirror this machine's apt uses, kept
#     in $RIGCHECK_DEBIAN13_CACHE (default /var/cache/rigcheck/debian13): root/ (the chroot), debs/
#     (the downloaded packages, kept across a refresh of the root), ccache/ (the compiler cache of
#     the build inside). The root is keyed by the package list (`scripts/setup.sh --tests --list`): when
#     it changes, the root is made anew, so that it holds what a fresh machine would install and no
#     package the list dropped; setup.sh inside installs what is missing on every run, so a change of
#     the script alone keeps the root;
#  2. inside it, under chroot with /proc, /sys and /dev mounted (in a mount namespace of its own,
#     unmounted on exit): scripts/setup.sh --tests, then scripts/build.sh (every target, in the
#     copy's build/, kept in the root), then `ctest -L unit`;
#  3. `rigcheck run --profile tiny` inside, then the same on this machine's Debian 12 build of the
#     same tree: both run folders complete and verified (`rigcheck report`), the same claims judged
#     on both, and `rigcheck compare` of the two naming the library versions that changed.
# Needs root (debootstrap, chroot, mount) and the mirror; about 7 GiB in the cache.
# CI runs it last (.ci/run).
#   scripts/test-debian13.sh [ctest args for the unit tests inside...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
suite=trixie
cache=${RIGCHECK_DEBIAN13_CACHE:-/var/cache/rigcheck/debian13}
root=$cache/root
src=/src/rigcheck  # the repository's copy, inside the root
t_start=$SECONDS
say() { echo "test-debian13: $*"; }
die() {
  echo "test-debian13: FAIL: $*" >&2
  exit 1
}
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot, mount)"
"$here/scripts/setup.sh" --tests  # debootstrap, and this machine's own build below

# ------------------------------------------------------------------ 1. the root, cached and keyed
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}
# The list setup.sh installs on Debian 13 (os-release of trixie), not on this host.
list13=$(RIGCHECK_OS_RELEASE=<(printf 'ID=debian\nVERSION_ID="13"\n') "$here/scripts/setup.sh" --tests --list)
key="$suite $mirror packages $(printf '%s\n' "$list13" | sha256sum | cut -d' ' -f1)"
mkdir -p "$cache/debs" "$cache/ccache"
if [[ ! -f $root/.rigcheck-key || $(cat "$root/.rigcheck-key") != "$key" ]]; then
  t=$SECONDS
  say "making the root: debootstrap --variant=minbase $suite $root $mirror (key: $key)"
  rm -rf "$root.partial"
  debootstrap --variant=minbase --cache-dir="$cache/debs" "$suite" "$root.partial" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -5 "$cache/debootstrap.log" >&2; die "debootstrap failed (log $cache/debootstrap.log)"; }
  # No service starts inside when its package is installed (PostgreSQL, munge, Slurm): the tests start
  # their own, and a daemon left running would hold the root's mounts.
  printf '#!/bin/sh\nexit 101\n' >"$root.partial/usr/sbin/policy-rc.d"
  chmod +x "$root.partial/usr/sbin/policy-rc.d"
  rm -rf "$root" && mv "$root.partial" "$root"
  echo "$key" >"$root/.rigcheck-key"  # setup.sh inside installs what is missing, on every run
  say "the root made in $((SECONDS - t)) s"
fi

# ------------------------------------------------------------------ the repository's copy
# Tracked and untracked files (not the ignored ones), as git sees the working tree, with their times:
# the build inside recompiles only what changed. Its build/ stays.
t=$SECONDS
mkdir -p "$root$src"
find "$root$src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
(cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
  tar --null -T - -cf -) | tar -xf - -C "$root$src"
# Its .git: a one-commit clone of HEAD, its index reset to HEAD without touching the files, so that the
# inventory inside names the same commit as here (and "-dirty" alike when the tree has changes).
rm -rf "$cache/clone.partial"
git clone -q --no-checkout --depth 1 "file://$here" "$cache/clone.partial"
mv "$cache/clone.partial/.git" "$root$src/.git" && rm -rf "$cache/clone.partial"
say "the tree copied into $root$src in $((SECONDS - t)) s"

# ------------------------------------------------------------------ 2, 3 inside: setup, build, unit tests, tiny run
out_inside=/var/tmp/rigcheck-debian13-runs
rm -rf "${root:?}$out_inside"
cat >"$root/tmp/rigcheck-inside.sh" <<EOF
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root CCACHE_DIR=/var/cache/ccache
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
cd $src
t=\$SECONDS
./scripts/setup.sh --tests
git -c safe.directory='*' reset -q
echo "test-debian13: setup.sh --tests inside took \$((SECONDS - t)) s"
t=\$SECONDS
./scripts/build.sh
echo "test-debian13: the build inside took \$((SECONDS - t)) s (\$(ccache -s 2>/dev/null | grep -m1 -i 'hits' | tr -s ' '))"
t=\$SECONDS
ctest --test-dir build --output-on-failure -j "\${RIGCHECK_JOBS:-2}" -L unit $(printf '%q ' "$@")
echo "test-debian13: the unit tests inside took \$((SECONDS - t)) s"
t=\$SECONDS
build/bin/rigcheck run --profile tiny --out $out_inside
echo "test-debian13: the tiny run inside took \$((SECONDS - t)) s"
EOF
# In a mount namespace of its own: the mounts end with it, whatever happens; the trap unmounts them too.
cat >"$cache/mount-and-run.sh" <<EOF
set -euo pipefail
root='$root'
cleanup() { umount -R "\$root/var/cache/apt/archives" "\$root/var/cache/ccache" "\$root/dev" "\$root/sys" "\$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount --make-rprivate /
mount -t proc proc "\$root/proc"
mount --rbind /sys "\$root/sys"
mount --rbind /dev "\$root/dev"
mkdir -p "\$root/var/cache/ccache" "\$root/var/cache/apt/archives"
mount --bind '$cache/ccache' "\$root/var/cache/ccache"
mount --bind '$cache/debs' "\$root/var/cache/apt/archives"
cp /etc/resolv.conf "\$root/etc/resolv.conf" 2>/dev/null || true
chroot "\$root" bash /tmp/rigcheck-inside.sh
EOF
say "inside, the unit tests only (ctest -L unit): the others (the browser, Slurm, PostgreSQL, the namespace" \
  "cluster, the install, the sanitizers' and script tests) need services or namespaces of their own and run on" \
  "Debian 12 in scripts/test.sh; setup.sh --tests still installs what they need inside"
t=$SECONDS
unshare -m bash "$cache/mount-and-run.sh" || die "inside the Debian 13 root (exit $?): see above"
say "inside the root: $((SECONDS - t)) s"
run13=$(ls -d "$root$out_inside"/*/)
run13=${run13%/}

# ------------------------------------------------------------------ the same tiny run on this machine (Debian 12)
t=$SECONDS
"$here/scripts/build.sh" >/dev/null
# Both runs and their comparison stay in build/debian13/ (the last stage's, kept on a failure too).
keep=$here/build/debian13
rm -rf "$keep" && mkdir -p "$keep/debian12" "$keep/debian13" && cp -a "$run13" "$keep/debian13/"
run13=$keep/debian13/$(basename "$run13")
out12=$keep
"$here/build/bin/rigcheck" run --profile tiny --out "$keep/debian12" >"$keep/debian12.log" 2>&1 ||
  { cat "$keep/debian12.log" >&2; die "the Debian 12 tiny run exited $?"; }
run12=$(ls -d "$keep"/debian12/*/)
run12=${run12%/}
say "the Debian 12 tiny run here took $((SECONDS - t)) s"

# ------------------------------------------------------------------ the two run folders
rigcheck=$here/build/bin/rigcheck
for run in "$run12" "$run13"; do
  for f in manifest.csv inventory.csv report.md report.html verdicts.csv; do [[ -s $run/$f ]] || die "no $f in $run"; done
  if grep -E ',(pending|running|failed|interrupted|timeout|not_run),' "$run/manifest.csv"; then die "$run: entries that did not end well"; fi
  "$rigcheck" report "$run" >"$run.report.log" 2>&1 || { cat "$run.report.log" >&2; die "rigcheck report $run exited $?"; }
  grep -qE 'result files: ([0-9]+) of \1 result files verified' "$run.report.log" ||
    { cat "$run.report.log" >&2; die "$run: not every result file verified"; }
done
grep -q '^os,.*Debian GNU/Linux 13' "$run13/inventory.csv" || die "the Debian 13 run's inventory does not name Debian 13: $(grep '^os,' "$run13/inventory.csv" || echo none)"
# The same claims judged: each claim's kind of verdict (judged, or not_measurable / no_benchmark) is the
# same on both releases; the judged verdicts themselves may differ (two runs of a noisy VM). A claim that
# one side could not judge is let through only where that side has mistrusted rows (another process
# competed: their figures are left out of every verdict), and is named.
kinds() { tail -n +2 "$1/verdicts.csv" | sed 's/"[^"]*"/Q/g' | awk -F, '{ v = ($4 == "not_measurable" || $4 == "no_benchmark") ? $4 : "judged"; print $1, v }' | sort; }
mistrusted() { cat "$1"/*.csv | grep -c ',mistrusted,' || true; }
m12=$(mistrusted "$run12") m13=$(mistrusted "$run13")
while read -r claim k12 k13; do
  [[ $k12 == "$k13" ]] && continue
  if [[ $k12 == not_measurable && $k13 == judged && $m12 -gt 0 ]] || [[ $k13 == not_measurable && $k12 == judged && $m13 -gt 0 ]]; then
    say "$claim: $k12 on Debian 12, $k13 on Debian 13, where the not_measurable side has mistrusted rows ($m12 and $m13): load, not the release"
  else
    die "the two releases' reports do not judge the same claims: $claim is $k12 on Debian 12 and $k13 on Debian 13"
  fi
done < <(join <(kinds "$run12") <(kinds "$run13"))
[[ $(kinds "$run12" | cut -d' ' -f1) == "$(kinds "$run13" | cut -d' ' -f1)" ]] || die "the two reports do not list the same claims"
say "both run folders complete and verified; judged claims: $(kinds "$run12" | grep -c judged) on Debian 12, $(kinds "$run13" | grep -c judged) on Debian 13"

# ------------------------------------------------------------------ compare: the library versions that changed
"$rigcheck" compare "$run12" "$run13" --out "$out12/compare" >"$out12/compare.log" 2>&1 ||
  { cat "$out12/compare.log" >&2; die "rigcheck compare exited $?"; }
# The confounders section names each library whose version differs (data/confounders.csv labels).
conf=$(sed -n '/^## Confounders/,/^## /p' "$out12/compare/compare.md")
for label in "OS" "compiler" "LibTorch version" "oneDNN version" "OpenBLAS version" "Google Benchmark version" "hwloc version" "MPI version"; do
  grep -q "^- $label: " <<<"$conf" || die "compare does not name the $label among the confounders: $conf"
done
# The cases pair across the releases: count each kind of line of compare.csv.
statuses=$(tail -n +2 "$out12/compare/compare.csv" | cut -d, -f4 | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
impl=$(tail -n +2 "$out12/compare/compare.csv" | cut -d, -f26 | grep -c yes) || true
say "compare names the changed versions among the confounders; its cases: $statuses; implementation changed in $impl"
say "the runs and their comparison are in build/debian13/; the whole stage took $((SECONDS - t_start)) s"
