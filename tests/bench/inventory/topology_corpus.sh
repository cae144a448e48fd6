#!/usr/bin/env bash
# The inventory against real machines' captured /proc and /sys trees (tests/fixtures/topology,
# hwloc's own test captures): `rigcheck inventory --sysroot CAPTURE` must report the packages, cores,
# hardware threads, NUMA nodes, host memory and L3/L2 caches that hwloc's expected output for that
# capture shows.
#   topology_corpus.sh RIGCHECK [CORPUS]
# CORPUS (else $RIGCHECK_TOPOLOGY_CORPUS, else tests/fixtures/topology) is a folder in the layout of
# hwloc's tests/hwloc/linux. Its facts are derived afresh by derive-expected.sh, so a new corpus needs
# no prepared CSV; a committed expected.csv or excluded.csv must equal that derivation. The captures
# derive-expected.sh excludes are skipped with their reason. A row of CORPUS/known-differences.csv
# (a fact hwloc before 2.12 cannot reproduce) is reported and not counted as a failure when the
# inventory's hwloc_version is older than 2.12.
# Each test runs `RIGCHECK inventory --sysroot CORPUS/SOURCE --out CSV` (SOURCE: the test's
# `source:`, a capture several tests share; `--sysroot-exclude FILE` with its `exclude:`) under its
# `env:` lines and reads the key,value CSV written. A layout with no cache of that level is `0x0`.
# One line per capture, then "N passed, M failed, K skipped"; exit 1 on any mismatch.
#   topology_corpus.sh --live RIGCHECK
# This machine instead: `lstopo-no-graphics --of xml` (Debian's hwloc) is the expected output, read by
# the same derivation, against `RIGCHECK inventory` of the live machine; exit 77 without lstopo.
# shellcheck source-path=SCRIPTDIR source=../../support/lib.sh
source "$(dirname "$0")/../../support/lib.sh"
live=0
[[ ${1:-} == --live ]] && { live=1; shift; }
rigcheck=${1:?usage: topology_corpus.sh [--live] RIGCHECK [CORPUS]}
fixtures=$(cd "$(dirname "$0")/../../fixtures/topology" && pwd)
derive=$fixtures/derive-expected.sh
corpus=${2:-${RIGCHECK_TOPOLOGY_CORPUS:-$fixtures}}
[[ -x $rigcheck ]] || fail "$rigcheck is not an executable"
[[ -d $corpus ]] || fail "the corpus $corpus is not a folder"
corpus=$(cd "$corpus" && pwd)

failed=0 passed=0 skipped=0
if ((live)); then
  command -v lstopo-no-graphics >/dev/null || { echo "SKIP: no lstopo-no-graphics (Debian's hwloc package)"; exit 77; }
  lstopo-no-graphics --of xml >"$tmp/live.xml" || fail "lstopo-no-graphics --of xml failed"
  { head -n 1 "$corpus/expected.csv"; "$derive" --facts live "$tmp/live.xml" --of xml; } >"$tmp/expected.csv" ||
    fail "derive-expected.sh could not read lstopo's output"
  echo "capture,reason" >"$tmp/excluded.csv"
else
  "$derive" -o "$tmp/expected.csv" -x "$tmp/excluded.csv" "$corpus" || fail "derive-expected.sh failed on $corpus"
fi
for f in expected.csv excluded.csv; do
  ((live)) && break
  if [[ -f $corpus/$f ]] && ! diff -u "$corpus/$f" "$tmp/$f" >"$tmp/$f.diff"; then
    echo "$f: the committed file differs from derive-expected.sh's derivation (rerun the command in the README):"
    cat "$tmp/$f.diff"
    failed=$((failed + 1))
  fi
done

# capture,fact -> reason, from known-differences.csv (capture,fact,expected,hwloc_2_9,reason; the
# reason is the last field and may be quoted).
declare -A known=()
if [[ -f $corpus/known-differences.csv ]]; then
  while IFS= read -r line; do
    IFS=, read -r capture fact _ <<<"$line"
    reason=${line#*,*,*,*,}; reason=${reason#\"}; reason=${reason%\"}; reason=${reason//\"\"/\"}
    known[$capture,$fact]=$reason
  done < <(tail -n +2 "$corpus/known-differences.csv")
fi

# The inventory key of each fact of expected.csv: the whole machine's for a view that shows
# disallowed CPUs and nodes, the allowed part's (the cgroup cpuset's) for lstopo's default view.
declare -A whole_key=([packages]=sockets [cores]=physical_cores [pus]=hardware_threads [numa_host]=numa_nodes
  [numa_gpu]=numa_nodes_gpu_memory [memory_host_bytes]=memory_host_bytes [l3]=cache_l3_layout [l2]=cache_l2_layout
  [allowed_pus]=allowed_hardware_threads)
declare -A allowed_key=([packages]=allowed_sockets [cores]=allowed_cores [pus]=allowed_hardware_threads
  [numa_host]=allowed_numa_nodes [numa_gpu]=allowed_numa_nodes_gpu_memory [memory_host_bytes]=allowed_memory_host_bytes
  [l3]=allowed_cache_l3_layout [l2]=allowed_cache_l2_layout [allowed_pus]=allowed_hardware_threads)

while IFS=, read -r capture reason; do
  reason=${reason#\"}; reason=${reason%\"}; reason=${reason//\"\"/\"}
  echo "$capture: skipped ($reason)"
  skipped=$((skipped + 1))
done < <(tail -n +2 "$tmp/excluded.csv")

# older_than_2_12 VERSION: true for a hwloc version before 2.12 ("2.9.0"), false otherwise or unknown.
older_than_2_12() {
  local major minor
  IFS=. read -r major minor _ <<<"$1"
  [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 1
  (( major < 2 || (major == 2 && minor < 12) ))
}

IFS=, read -r -a columns <"$tmp/expected.csv"
while IFS=, read -r -a expected; do
  capture=${expected[0]} view=${expected[1]} test=$corpus/${expected[0]}.test
  out=$tmp/$capture.csv
  if ((live)); then
    "$rigcheck" inventory --out "$out" >"$tmp/live.log" 2>&1 || fail "rigcheck inventory failed: $(tail -n 3 "$tmp/live.log")"
  else
    source=$(sed -n 's/^source: *//p' "$test" | head -n 1)
    exclude=$(sed -n 's/^exclude: *//p' "$test" | head -n 1)
    sed -n 's/^env: *//p' "$test" >"$tmp/env"
    # The test's env lines set variables hwloc reads (HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES, HWLOC_CPUKINDS,
    # ...): the expected output was made under them.
    if ! ( set +u; . "$tmp/env"
           "$rigcheck" inventory --sysroot "$corpus/$source" --out "$out" \
             ${exclude:+--sysroot-exclude "$corpus/$exclude"} ) >"$tmp/$capture.log" 2>&1; then
      echo "$capture: rigcheck inventory failed: $(tail -n 3 "$tmp/$capture.log" | tr '\n' ' ')"
      failed=$((failed + 1))
      continue
    fi
  fi
  declare -A inv=()
  while IFS= read -r line; do
    key=${line%%,*} value=${line#*,}
    [[ $line == *,* ]] || value=
    value=${value%$'\r'}; value=${value#\"}; value=${value%\"}
    inv[$key]=$value
  done <"$out"
  version=${inv[hwloc_version]:-}
  : >"$tmp/pairs"
  facts=()
  for ((i = 2; i < ${#columns[@]}; i++)); do
    fact=${columns[i]} want=${expected[i]:-}
    [[ -n $want ]] || continue
    [[ ! ($view == allowed && $fact == allowed_pus) ]] || continue  # the same key as pus
    if [[ $view == whole ]]; then key=${whole_key[$fact]}; else key=${allowed_key[$fact]}; fi
    case $fact in
      memory_host_bytes) kind=bytes ;;
      l3|l2) kind=layout ;;
      *) kind=count ;;
    esac
    if [[ -v inv[$key] ]]; then got=${inv[$key]}; else got="(no key $key)"; fi
    facts+=("$fact" "$want" "$got")
    printf '%s\t%s\t%s\n' "$kind" "$want" "$got" >>"$tmp/pairs"
  done
  mapfile -t verdicts < <("$derive" --match <"$tmp/pairs")
  notes=() bad=0
  for ((k = 0; k < ${#verdicts[@]}; k++)); do
    [[ ${verdicts[k]} == ok ]] && continue
    fact=${facts[3 * k]} want=${facts[3 * k + 1]} got=${facts[3 * k + 2]}
    if [[ -v known[$capture,$fact] ]] && older_than_2_12 "$version"; then
      notes+=("$fact: known difference (${known[$capture,$fact]}): expected $want, inventory $got")
    else
      notes+=("$fact: expected $want, inventory $got")
      bad=1
    fi
  done
  unset inv
  (( bad )) || notes=(ok "${notes[@]}")
  line="$capture: ${notes[0]}"
  for ((k = 1; k < ${#notes[@]}; k++)); do line+="; ${notes[k]}"; done
  echo "$line"
  if (( bad )); then failed=$((failed + 1)); else passed=$((passed + 1)); fi
done < <(tail -n +2 "$tmp/expected.csv")

echo "$passed passed, $failed failed, $skipped skipped"
(( failed == 0 )) || exit 1
