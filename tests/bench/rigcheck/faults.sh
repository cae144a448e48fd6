#!/usr/bin/env bash
# Faults a run must survive (docs/threat-model.md), each against the real `rigcheck run`
# with the test benchmark (tests/fake_bench.cpp, RIGCHECK_TEST_FAULT) standing in for a real one:
#   kill9       SIGKILL of `rigcheck run` mid-benchmark: no process of the run is left (not even a
#               grandchild that left its session), and `rigcheck report` on the folder keeps every
#               complete row, marks the cut benchmark and the ones never started
#   crash       a benchmark that segfaults, one that hangs (ignoring SIGTERM), one that exhausts its
#               address space (--memory-limit, RLIMIT_AS): each marked with its cause, the run goes on
#   fsize       a file-size limit (ulimit -f) while a benchmark writes: a clear error naming the file,
#               no file that looks complete, the benchmark after it still runs
#   tmpfs       a full disk (a small tmpfs, in a mount namespace of its own): the same, with ENOSPC
#   concurrent  two runs at once: two folders, and each says that the other competed
#   scratch     a benchmark killed by SIGKILL after registering scratch entries: the runner removes
#               them (and leaves a symbolic link, a foreign name and an entry outside the root)
# Every mode first makes an ordinary run in the same results folder and checks at the end that
# not a byte of it changed. Usage: faults.sh RIGCHECK BIN_DIR MODE
set -euo pipefail
rigcheck="$1"
bindir="$2"
mode="$3"
out="${4:-}"
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
note() { echo "faults ($mode): $*"; }

if [[ -z $out ]]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
export RIGCHECK_LOCK_DIR="$out/locks"  # other tests' runs are not this test's competitors
results="$out/results"
header='name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description'
fast='--reps 1 --min-time 0.01'
registry() {  # registry NAME ROW...
  local f="$out/$1.csv"
  shift
  printf '%s\n' "$header" "$@" >"$f"
  echo "$f"
}
run() { "$rigcheck" run --profile tiny --bin-dir "$bindir" "$@"; }
# Processes whose environment holds the run's tag (zombies have none: they are dead).
tagged() { grep -lsaF "RIGCHECK_CHILD_TAG=$1" /proc/[0-9]*/environ 2>/dev/null | grep -v "^/proc/$$/" || true; }
new_folder() { comm -13 <(printf '%s\n' "${!1}") <(ls "$results" 2>/dev/null) | head -1; }
field() { awk -F, -v b="$2" -v c="$3" '$1 == b {print $c}' "$1/manifest.csv"; }  # field RUN BENCHMARK COLUMN (no quoted commas before it)
reason() { grep "^$2," "$1/manifest.csv" || true; }

# The earlier run, and its fingerprint.
earlier_run() {
  run --benchmarks "$(registry ok "fake_ok,cpu,fake_bench,$fast,,,60,60,60,ok")" --out "$results" >"$out/earlier.log" 2>&1 ||
    { cat "$out/earlier.log"; fail "the earlier run exited $?"; }
  earlier="$(ls "$results")"
  (cd "$results" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$out/earlier.sha"
}
earlier_intact() {
  (cd "$results" && sha256sum --quiet -c "$out/earlier.sha") || fail "the earlier run's files changed"
  note "the earlier run's $(wc -l <"$out/earlier.sha") files are unchanged"
}
sanitized() { ! grep -q '^sanitizers,none$' "$results/$earlier/inventory.csv"; }

case "$mode" in
kill9)
  earlier_run
  reg="$(registry k "first,cpu,fake_bench,$fast,,,60,60,60,ok" "cut,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=slow,,120,120,120,slow" \
    "never,cpu,fake_bench,$fast,,,60,60,60,ok")"
  # Not through run(): $! must be rigcheck's own pid, not a subshell's.
  "$rigcheck" run --profile tiny --bin-dir "$bindir" --benchmarks "$reg" --out "$results" >"$out/run.log" 2>&1 &
  runner=$!
  dir=""
  for _ in $(seq 600); do
    [[ -z $dir ]] && dir="$(new_folder earlier)"
    if [[ -n $dir && -f $results/$dir/cut.csv.partial ]] && (($(wc -l <"$results/$dir/cut.csv.partial") >= 13)); then break; fi
    sleep 0.1
  done
  [[ -n $dir ]] || fail "no run folder appeared: $(cat "$out/run.log")"
  run_dir="$results/$dir"
  lines=$(wc -l <"$run_dir/cut.csv.partial")
  ((lines >= 13)) || fail "the slow benchmark wrote $lines lines in 60 s"
  tag="$dir.$runner"
  alive=$(tagged "$tag" | wc -l)
  # fake_bench and the sleep it left in a session of its own: the test could see survivors.
  ((alive >= 2)) || fail "expected the benchmark and its escaped grandchild to carry the tag $tag, found $alive"
  grep -q '^cut,.*,running,' "$run_dir/manifest.csv" || fail "the manifest does not say which benchmark runs: $(cat "$run_dir/manifest.csv")"
  kill -9 "$runner"
  wait "$runner" 2>/dev/null || true
  for _ in $(seq 50); do [[ -z $(tagged "$tag") ]] && break; sleep 0.1; done
  left="$(tagged "$tag")"
  if [[ -n $left ]]; then
    for p in $left; do p=${p#/proc/}; ps -o pid,ppid,pgid,sid,cmd -p "${p%%/*}" || true; done
    fail "processes of the killed run are still alive 5 s later"
  fi
  note "SIGKILL at $lines lines of cut.csv.partial; none of the $alive tagged processes is left"
  "$rigcheck" report "$run_dir" >"$out/report.log" 2>&1 || { cat "$out/report.log"; fail "rigcheck report exited $?"; }
  grep -q "runner of this folder died" "$out/report.log" || fail "rigcheck report did not say the runner died: $(cat "$out/report.log")"
  [[ $(field "$run_dir" first 5) == ok ]] || fail "first: $(reason "$run_dir" first)"
  [[ $(field "$run_dir" cut 5) == interrupted ]] || fail "cut: $(reason "$run_dir" cut)"
  reason "$run_dir" cut | grep -q "runner died while this benchmark ran.*kept the [0-9]* rows" || fail "cut's reason: $(reason "$run_dir" cut)"
  [[ $(field "$run_dir" never 5) == not_run ]] || fail "never: $(reason "$run_dir" never)"
  [[ ! -e $run_dir/cut.csv.partial ]] || fail "cut.csv.partial is still there"
  kept=$(($(wc -l <"$run_dir/cut.csv") - 1))
  ((kept >= lines - 1)) || fail "cut.csv has $kept rows; the .partial had $((lines - 1)) when the runner died"
  [[ $(tail -c1 "$run_dir/cut.csv" | od -An -c | tr -d ' ') == '\n' ]] || fail "cut.csv ends in a cut line"
  grep -q "cut short" "$run_dir/report.md" || fail "report.md does not say the run was cut short"
  grep -q "^| cut | interrupted" "$run_dir/report.md" || grep -q "interrupted" "$run_dir/report.md" || fail "report.md does not mark cut"
  # The report's rows of the cut benchmark are exactly cut.csv's (nothing of a .partial beyond them).
  "$rigcheck" report "$run_dir" >"$out/report2.log" 2>&1 || fail "a second rigcheck report exited $?"
  ! grep -q "runner of this folder died" "$out/report2.log" || fail "the second report recovered again"
  note "report: first ok, cut interrupted with $kept complete rows kept, never not_run"
  earlier_intact
  ;;
crash)
  earlier_run
  rows=("segv,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=segv,,60,60,60,segfaults"
    "hang,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=hang,,2,2,2,hangs")
  if sanitized; then
    note "built with sanitizers: no RLIMIT_AS case (AddressSanitizer reserves terabytes of address space)"
  else
    rows+=("oom,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=oom,,60,60,60,exhausts its memory")
  fi
  rows+=("after,cpu,fake_bench,$fast,,,60,60,60,ok")
  limit=(--memory-limit 1)
  sanitized && limit=()
  t0=$SECONDS
  rc=0
  run --benchmarks "$(registry c "${rows[@]}")" --out "$results" "${limit[@]}" >"$out/run.log" 2>&1 || rc=$?
  ((rc == 1)) || { cat "$out/run.log"; fail "rigcheck run exited $rc, expected 1 (benchmarks failed)"; }
  dir="$results/$(new_folder earlier)"
  [[ $(field "$dir" segv 5) == failed ]] || fail "segv: $(reason "$dir" segv)"
  reason "$dir" segv | grep -q "segmentation fault" || fail "segv's reason: $(reason "$dir" segv)"
  [[ $(field "$dir" hang 5) == timeout ]] || fail "hang: $(reason "$dir" hang)"
  reason "$dir" hang | grep -q "2 s timeout (it ignored SIGTERM and got SIGKILL" || fail "hang's reason: $(reason "$dir" hang)"
  if ! sanitized; then
    [[ $(field "$dir" oom 5) == failed ]] || fail "oom: $(reason "$dir" oom)"
    reason "$dir" oom | grep -q "ran out of memory.*1 GiB.*RLIMIT_AS" || fail "oom's reason: $(reason "$dir" oom)"
  fi
  [[ $(field "$dir" after 5) == ok ]] || fail "the run did not go on: after: $(reason "$dir" after)"
  [[ -s $dir/after.csv && -s $dir/report.md ]] || fail "after.csv or report.md missing"
  grep -q "segmentation fault" "$dir/report.md" || fail "report.md does not give the segfault's cause"
  [[ -z $(tagged "$(basename "$dir")") ]] || fail "a process of the run is still alive"
  note "segv, hang$(sanitized || echo ', oom') marked with their causes in $((SECONDS - t0)) s; after ran ok"
  sed -n 's/^\(segv\|hang\|oom\),.*,\([a-z]*\),[0-9.]*,[^,]*,/  \1 \2: /p' "$dir/manifest.csv"
  earlier_intact
  ;;
fsize | tmpfs)
  reg_rows=("before,cpu,fake_bench,$fast,,,60,60,60,ok" "bulk,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=bulk,,60,60,60,writes 1 MB"
    "after,cpu,fake_bench,$fast,,,60,60,60,ok")
  if [[ $mode == tmpfs && ${FAULTS_IN_NAMESPACE:-} != 1 ]]; then
    # A mount namespace of our own: the tmpfs is seen by this test only, and vanishes with it.
    if ! unshare -m --propagation private true 2>/dev/null; then
      echo "SKIP: cannot make a mount namespace here (unshare -m: needs root or user namespaces)"
      exit 77
    fi
    FAULTS_IN_NAMESPACE=1 unshare -m --propagation private bash "$0" "$rigcheck" "$bindir" tmpfs "$out"
    exit $?
  fi
  if [[ $mode == tmpfs ]]; then
    mkdir -p "$results"
    mount -t tmpfs -o size=400k tmpfs "$results" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
  fi
  earlier_run
  rc=0
  if [[ $mode == fsize ]]; then
    (ulimit -f 256 && run --benchmarks "$(registry f "${reg_rows[@]}")" --out "$results" >"$out/run.log" 2>&1) || rc=$?
    cause="File too large"
  else
    fill="$(df -k --output=avail "$results" | tail -1)"
    run --benchmarks "$(registry f "${reg_rows[@]}")" --out "$results" >"$out/run.log" 2>&1 || rc=$?
    cause="No space left on device"
    note "the tmpfs had $fill KiB free after the earlier run"
  fi
  ((rc != 0)) || fail "rigcheck run exited 0 on a full disk"
  dir="$results/$(new_folder earlier)"
  [[ -s $dir/manifest.csv ]] || { cat "$out/run.log"; fail "no manifest"; }
  grep -q "bulk.csv.partial: cannot write a result row: $cause" "$dir/manifest.csv" "$out/run.log" ||
    { cat "$out/run.log"; fail "no clear error naming bulk.csv.partial and '$cause'"; }
  if [[ $mode == tmpfs ]] && grep -q "manifest.csv.tmp: write failed: $cause" "$out/run.log"; then
    # Even the manifest could not be written: the runner says so and stops; bulk stays "running"
    # in the manifest on disk, and the status line on stderr says why it failed.
    grep -q "the run stops: nothing more can be recorded" "$out/run.log" || fail "the runner did not say it stops"
    grep -q "bulk ... failed.*cannot write a result row: $cause" "$out/run.log" || fail "no failed line for bulk"
  else
    [[ $(field "$dir" bulk 5) == failed ]] || fail "bulk: $(reason "$dir" bulk)"
  fi
  [[ $(field "$dir" before 5) == ok ]] || fail "before: $(reason "$dir" before)"
  [[ -s $dir/before.csv ]] || fail "before.csv was lost"
  # Nothing that looks complete: no .tmp of a half-written file, every CSV ends with a full line,
  # and the kept rows of bulk are marked cut short.
  [[ -z $(find "$dir" -name '*.tmp') ]] || fail "a .tmp is left: $(find "$dir" -name '*.tmp')"
  for f in "$dir"/*.csv; do
    [[ ! -s $f || $(tail -c1 "$f" | od -An -c | tr -d ' ') == '\n' ]] || fail "$f ends in a cut line"
  done
  if [[ -e $dir/bulk.csv ]]; then
    { reason "$dir" bulk | grep -q "kept the [0-9]* rows"; } || grep -q "bulk ... failed.*kept the [0-9]* rows" "$out/run.log" ||
      fail "bulk.csv is not marked cut short"
  fi
  if [[ $mode == fsize ]]; then
    [[ $(field "$dir" after 5) == ok ]] || fail "the run did not go on after the failed write: $(reason "$dir" after)"
  fi
  note "bulk failed with '$cause', rc $rc; after: $(field "$dir" after 5); $(ls "$dir" | tr '\n' ' ')"
  earlier_intact
  ;;
concurrent)
  earlier_run
  reg="$(registry s "slow,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=slow,,120,120,120,slow")"
  run --benchmarks "$reg" --out "$results" >"$out/a.log" 2>&1 &
  a=$!
  run --benchmarks "$reg" --out "$results" >"$out/b.log" 2>&1 &
  b=$!
  wait $a || fail "run A exited $?: $(cat "$out/a.log")"
  wait $b || fail "run B exited $?: $(cat "$out/b.log")"
  mapfile -t dirs < <(comm -13 <(printf '%s\n' "$earlier") <(ls "$results"))
  ((${#dirs[@]} == 2)) || fail "expected 2 new run folders, found ${#dirs[@]}: ${dirs[*]}"
  for d in "${dirs[@]}"; do
    other="${dirs[0]}"
    [[ $other == "$d" ]] && other="${dirs[1]}"
    grep -q "another rigcheck run went on at the same time.*$other" "$results/$d/report.md" ||
      fail "$d/report.md does not name $other as a competitor"
    grep -q "$other" "$results/$d/concurrent_runs.csv" || fail "$d/concurrent_runs.csv does not name $other"
  done
  grep -q "warning: another rigcheck run" "$out/a.log" || fail "run A did not warn"
  grep -q "warning: another rigcheck run" "$out/b.log" || fail "run B did not warn"
  [[ -z $(ls "$RIGCHECK_LOCK_DIR") ]] || fail "lock files left: $(ls "$RIGCHECK_LOCK_DIR")"
  note "two folders ${dirs[*]}, each naming the other"
  earlier_intact
  ;;
scratch)
  # A benchmark killed outright (SIGKILL, as by the OOM killer) runs no clean-up of its own: the
  # runner removes the scratch it registered, and nothing else.
  earlier_run
  tmp="$out/tmp"
  mkdir -p "$tmp"
  rc=0
  TMPDIR="$tmp" run --benchmarks "$(registry sc "killed,cpu,fake_bench,$fast,RIGCHECK_TEST_FAULT=scratch,,60,60,60,dies of SIGKILL" \
    "after,cpu,fake_bench,$fast,,,60,60,60,ok")" --out "$results" >"$out/run.log" 2>&1 || rc=$?
  ((rc == 1)) || { cat "$out/run.log"; fail "rigcheck run exited $rc, expected 1 (a benchmark failed)"; }
  dir="$results/$(new_folder earlier)"
  [[ $(field "$dir" killed 5) == failed ]] || fail "killed: $(reason "$dir" killed)"
  reason "$dir" killed | grep -q "SIGKILL" || fail "killed's reason does not name SIGKILL: $(reason "$dir" killed)"
  reason "$dir" killed | grep -q "the runner removed the scratch it left: .*rigcheck-test\.[0-9]*" ||
    fail "the manifest does not say the scratch was removed: $(reason "$dir" killed)"
  [[ -s $dir/logs/killed.scratch ]] || fail "no scratch registry logs/killed.scratch"
  left=$(ls "$tmp" | tr '\n' ' ')
  compgen -G "$tmp/rigcheck-test.*" >/dev/null && fail "registered scratch left behind: $left"
  compgen -G "$tmp/not-ours.*" >/dev/null || fail "an entry not named rigcheck-* was removed: $left"
  compgen -G "$tmp/rigcheck-link.*" >/dev/null || fail "a symbolic link was removed: $left"
  compgen -G "$tmp/target.*" >/dev/null || fail "the symbolic link's target was removed: $left"
  compgen -G "$tmp/elsewhere/rigcheck-outside.*" >/dev/null || fail "an entry outside the scratch root was removed"
  [[ $(field "$dir" after 5) == ok ]] || fail "the run did not go on: after: $(reason "$dir" after)"
  note "killed by SIGKILL; the runner removed $(grep -o 'rigcheck-test[^,;]*' "$dir/manifest.csv" | tr '\n' ' ')and left $left"
  earlier_intact
  ;;
*) fail "unknown mode" ;;
esac
echo "faults $mode ok"
