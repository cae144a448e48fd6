#!/usr/bin/env bash
# Fuzzes every reader of outside data for a few seconds each (CI), or longer by hand:
#   ./scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      default 10 s, every target
# Builds tests/fuzz alone in build-fuzz/ with clang, libFuzzer, AddressSanitizer and UBSan (the
# readers' sources only: no LibTorch, oneDNN or CUDA), then runs each target from its seed
# corpus (tests/fuzz/corpus/TARGET) with a fixed seed. New inputs go to a temporary folder, never
# into the repository. A crash, a sanitizer report, an unexpected exception, a hang (10 s on one
# input) or a leak fails the script, which prints the input's path and the line that replays it;
# such an input belongs in tests/fixtures/fuzz/TARGET once the reader is fixed (docs/testing.md).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-10}"
shift || true
"$here/scripts/setup.sh"

build="$here/build-fuzz"
# The readers find the registries through $RIGCHECK_DATA_DIR (harness/paths.hpp): these binaries
# do not lie in a bin/ beside share/rigcheck/data.
export RIGCHECK_DATA_DIR="$here/data"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  mkdir -p "$build"
  CC=clang CXX=clang++ cmake -S "$here/tests/fuzz" -B "$build" -G "Unix Makefiles" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; rm -f "$build/CMakeCache.txt"; exit 1; }
fi
cmake --build "$build" -j "${RIGCHECK_JOBS:-2}"

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$here"/tests/fuzz/targets/*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
artifacts="$build/artifacts"
# fuzz_one TARGET: one libFuzzer run; its exit status goes to $work/TARGET.rc.
fuzz_one() {
  local t=$1
  rm -rf "$artifacts/$t"
  mkdir -p "$work/$t" "$artifacts/$t"
  local dict=()
  [[ -f "$here/tests/fuzz/dict/$t.dict" ]] && dict=("-dict=$here/tests/fuzz/dict/$t.dict")
  # -seed fixes libFuzzer's choices; -max_total_time bounds the run (how far it gets still depends
  # on the machine's speed). -max_len 16384: above the largest seed, small enough to stay fast.
  # The first folder receives new inputs; the folders after it are only read: the corpus and the
  # inputs that once crashed a reader (tests/fixtures/fuzz/TARGET), each run once first under these
  # sanitizers (the asan stage of CI leaves their replay, fuzz_replay_*, to this script).
  local seeds=("$here/tests/fuzz/corpus/$t")
  [[ -d $here/tests/fixtures/fuzz/$t ]] && seeds+=("$here/tests/fixtures/fuzz/$t")
  local rc=0
  "$build/fuzz_$t" -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$t/" "${dict[@]}" \
    "$work/$t" "${seeds[@]}" >"$work/$t.log" 2>&1 || rc=$?
  echo "$rc" >"$work/$t.rc"
}
# Targets run side by side, RIGCHECK_JOBS at a time (default 2): each is one process on one core,
# so each still gets its SECONDS of a core, in half the wall time on two cores.
jobs_max=${RIGCHECK_JOBS:-2}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  fuzz_one "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
  if [[ $(cat "$work/$t.rc" 2>/dev/null) == 0 ]]; then
    echo "fuzz $t: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$') inputs in ${seconds} s)"
  else
    failed+=("$t")
    echo "fuzz $t: FAILED" >&2
    grep -v '^#[0-9]' "$work/$t.log" | tail -n 60 >&2
    for a in "$artifacts/$t"/*; do
      [[ -f "$a" ]] || continue
      echo "  input: $a" >&2
      echo "  replay: $build/fuzz_$t $a" >&2
    done
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each: no crash"
