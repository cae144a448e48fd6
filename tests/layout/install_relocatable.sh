#!/usr/bin/env bash
# `cmake --install` gives a relocatable suite: installed to a prefix, with the source tree (and the
# build tree inside it) hidden by an empty folder mounted over it in a mount namespace of its own,
# the installed `rigcheck run --profile tiny` runs every area and writes its report. Skips where no
# mount namespace can be made (not root).
tmp_template=/tmp/rigcheck-install.XXXXXX
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
build=$1
src=$2
if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot make a mount namespace here (unshare -m needs root)"; exit 77; fi
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
[[ -x $tmp/prefix/bin/rigcheck && -f $tmp/prefix/share/rigcheck/data/claims.csv ]] || fail "no bin/rigcheck or share/rigcheck/data/claims.csv in the prefix"
mkdir "$tmp/empty"
unshare -m bash -c "mount --bind '$tmp/empty' '$src' && [[ ! -e '$src/data' ]] && cd '$tmp' &&
  '$tmp/prefix/bin/rigcheck' run --profile tiny --out '$tmp/results'" >"$tmp/run.log" 2>&1
rc=$?
run=$(ls -d "$tmp"/results/*/ 2>/dev/null | head -1)
[[ -n $run && -f $run/report.md && -f $run/verdicts.csv ]] || { tail -30 "$tmp/run.log"; fail "no report from the installed rigcheck (exit $rc)"; }
[[ $rc -eq 0 ]] || { tail -30 "$tmp/run.log"; fail "the installed rigcheck run exited $rc"; }
# not_built is a build without some dependency (the asan preset has no LibTorch or CUDA): its reason
# travels with the install; a benchmark that ran must not fail.
bad=$(grep -E ',(failed|timeout|interrupted|not_run),' "$run/manifest.csv")
[[ -z $bad ]] || fail "benchmarks not ok in the installed run: $bad"
echo "ok: installed to a prefix, source tree hidden: $(($(wc -l <"$run/manifest.csv") - 1)) benchmarks ok or skipped, report written"
