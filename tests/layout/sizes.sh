#!/usr/bin/env bash
# No C++/CUDA file over 500 lines, no function over 100 (docs/testing.md):
# 1. scripts/check-sizes.sh over the source tree finds none;
# 2. on a copy of bench/ it finds what is planted there, and only that: a function and a lambda of
#    101 lines and a file of 501 are named, a function of 100 lines and a file of 500 are not (so the
#    script can fail, and fails at the limits, not before). Skips (77) without universal-ctags.
#   sizes.sh SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
src="$1"
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || { echo "SKIP: no universal-ctags"; exit 77; }
"$src/scripts/check-sizes.sh" "$src" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a file or function is over the limits"; }
tail -1 "$tmp/out"
mkdir -p "$tmp/copy"
cp -r "$src/bench" "$tmp/copy/"
body() { for ((i = 0; i < $1; ++i)); do echo "  x += $i;"; done; }
planted="$tmp/copy/bench/harness/src/planted.cpp"
{
  echo "int planted_long(int x) {"; body 98; echo "  return x;"; echo "}"              # 101 lines
  echo "int planted_at_limit(int x) {"; body 97; echo "  return x;"; echo "}"          # 100 lines
  echo "auto planted_lambda = [](int x) {"; body 98; echo "  return x;"; echo "};"    # 101 lines
} >"$planted"
printf '// line\n%.0s' $(seq 501) >"$tmp/copy/bench/harness/src/planted_long_file.hpp"
printf '// line\n%.0s' $(seq 500) >"$tmp/copy/bench/harness/src/planted_file_at_limit.hpp"
if "$src/scripts/check-sizes.sh" "$tmp/copy" >"$tmp/out" 2>&1; then cat "$tmp/out"; fail "check-sizes.sh passed a copy with planted long code"; fi
cat "$tmp/out"
grep -qx 'FUNCTION bench/harness/src/planted.cpp:1 planted_long: 101 lines (at most 100)' "$tmp/out" ||
  fail "check-sizes.sh did not name the planted 101-line function"
grep -qE '^FUNCTION bench/harness/src/planted.cpp:202 __anon[0-9a-f]+: 101 lines' "$tmp/out" ||
  fail "check-sizes.sh did not name the planted 101-line lambda"
grep -qx 'FILE bench/harness/src/planted_long_file.hpp: 501 lines (at most 500)' "$tmp/out" ||
  fail "check-sizes.sh did not name the planted 501-line file"
! grep -q 'planted_at_limit\|planted_file_at_limit' "$tmp/out" ||
  fail "check-sizes.sh named code at the limits, not over them"
[[ $(grep -c '^FUNCTION\|^FILE' "$tmp/out") == 3 ]] || fail "check-sizes.sh named more than the three planted"
echo "ok: nothing over the limits; the planted function, lambda and file are found, code at the limits is not"
