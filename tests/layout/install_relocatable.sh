#!/usr/bin/env bash
# `cmake --install` gives a relocatable suite: installed to a prefix, with the source tree (and the
# build tree inside it) hidden by an empty folder mounted over it in a mount namespace of its own,
# every installed binary starts (`--help`: its libraries resolve from the prefix), and the installed
# `rigcheck run --profile tiny` runs one benchmark of each area, those that find something from where
# they are installed (the cache datasheet, memory_host's child, the MPI launcher's binary), and writes
# its report. The smoke runs (smoke_run_*_tiny) run every benchmark from the build tree; here a whole
# tiny run again cost about 60 s of CI and found nothing more. Skips where no mount
# namespace can be made (not root).
tmp_template=/tmp/rigcheck-install.XXXXXX
source "$(dirname "$0")/../support/lib.sh"
set +e  # each step's exit status is checked where it matters
build=$1
src=$2
if ! unshare -m true 2>/dev/null; then echo "SKIP: cannot make a mount namespace here (unshare -m needs root)"; exit 77; fi
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
[[ -x $tmp/prefix/bin/rigcheck && -f $tmp/prefix/share/rigcheck/data/claims.csv ]] || fail "no bin/rigcheck or share/rigcheck/data/claims.csv in the prefix"
mkdir "$tmp/empty"
selected=cpu_peak,cpu_cache_fc,io_fio_tmpfs,comm_allreduce_mpi,memory_bandwidth,memory_host
unshare -m bash -c "mount --bind '$tmp/empty' '$src' && [[ ! -e '$src/data' ]] && cd '$tmp' &&
  for b in '$tmp/prefix/bin'/*; do
    [[ -x \$b ]] || continue
    \"\$b\" --help >'$tmp/help.log' 2>&1 || { echo \"\$(basename \"\$b\") --help exited \$?:\"; tail -5 '$tmp/help.log'; exit 3; }
  done &&
  '$tmp/prefix/bin/rigcheck' run --profile tiny --select $selected --out '$tmp/results'" >"$tmp/run.log" 2>&1
rc=$?
[[ $rc -ne 3 ]] || { cat "$tmp/run.log"; fail "an installed binary does not start with the source tree hidden"; }
run=$(ls -d "$tmp"/results/*/ 2>/dev/null | head -1)
[[ -n $run && -f $run/report.md && -f $run/verdicts.csv ]] || { tail -30 "$tmp/run.log"; fail "no report from the installed rigcheck (exit $rc)"; }
[[ $rc -eq 0 ]] || { tail -30 "$tmp/run.log"; fail "the installed rigcheck run exited $rc"; }
# not_built is a build without some dependency (the asan preset has no LibTorch or CUDA): its reason
# travels with the install; a benchmark that ran must not fail.
bad=$(grep -E ',(failed|timeout|interrupted|not_run),' "$run/manifest.csv")
[[ -z $bad ]] || fail "benchmarks not ok in the installed run: $bad"
[[ $(($(wc -l <"$run/manifest.csv") - 1)) -eq $(tr ',' '\n' <<<"$selected" | wc -l) ]] ||
  fail "the installed run did not run the $selected: $(cut -d, -f1,5 "$run/manifest.csv" | tr '\n' ' ')"
echo "ok: installed to a prefix, source tree hidden: $(ls "$tmp/prefix/bin" | wc -l) binaries start;" \
  "$(($(wc -l <"$run/manifest.csv") - 1)) benchmarks ok or skipped, report written"
