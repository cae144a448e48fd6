#!/usr/bin/env bash
# The C++ and CUDA sources are laid out as clang-format lays them out with the project's .clang-format:
# fails naming each file it would change (fix: clang-format -i FILE). Pinned to clang-format 14
# (Debian 12's): other major versions lay out some constructs otherwise, so with another one, or
# none, this skips (exit 77) saying which it found.
#   tests/layout/format.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: format.sh SOURCE_DIR}
cd "$src"
cf=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n $cf ]] || { echo "SKIP: no clang-format (scripts/setup.sh --tests installs clang-format 14 on Debian 12)"; exit 77; }
version=$("$cf" --version)
[[ $version =~ version\ 14\. ]] || { echo "SKIP: the layout is clang-format 14's; this is $version"; exit 77; }
if git rev-parse --show-toplevel >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' ':!tests/fixtures/')
else
  mapfile -t files < <(find . \( -name 'build*' -o -name '.?*' -o -path ./tests/fixtures \) -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sort)
fi
existing=()
for f in "${files[@]}"; do [[ -f $f ]] && existing+=("$f"); done
# One clang-format for every file (a process a file took most of this test's time); it goes on past a
# file it would change and names each in its errors.
rc=0
out=$("$cf" --dry-run -Werror --ferror-limit=1 "${existing[@]}" 2>&1) || rc=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
for f in "${bad[@]}"; do echo "not laid out by clang-format: $f"; done
if ((rc != 0 && ${#bad[@]} == 0)); then
  echo "$out" | head -20
  echo "format: clang-format failed (exit $rc) without naming a file it would change"
  exit 1
fi
echo "format: ${#existing[@]} files, ${#bad[@]} not laid out by $version"
((${#bad[@]} == 0))
