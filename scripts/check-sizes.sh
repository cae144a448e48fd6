#!/usr/bin/env bash
# Sizes of the C++ and CUDA sources: no file over 500 lines, no function over 100 (lambdas included:
# universal-ctags names them __anon...). A function's length is ctags' end line - start line + 1.
# Prints each file and function over its limit; exit 1 when any is, 2 without universal-ctags.
#   scripts/check-sizes.sh [SOURCE_DIR]
# The files are those git tracks in SOURCE_DIR (default: this checkout); outside a git work tree,
# every *.cpp *.hpp *.h *.cc *.cu *.cuh under it but build*/ and hidden folders.
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
max_file=500 max_function=100
ctags --version 2>/dev/null | grep -q 'Universal Ctags' ||
  { echo "check-sizes.sh needs universal-ctags (scripts/setup.sh --tests installs it)" >&2; exit 2; }
cd "$src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list="$work/files"
if [[ "$(git rev-parse --show-toplevel 2>/dev/null)" == "$(pwd -P)" ]]; then
  git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cc' '*.cu' '*.cuh' | tr '\0' '\n' >"$list"
else
  find . \( -name 'build*' -o -name '.?*' \) -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) -print |
    sed 's#^\./##' | sort >"$list"
fi
bad=0 files=0
while IFS= read -r f; do
  [[ -f $f ]] || continue
  files=$((files + 1))
  n=$(wc -l <"$f")
  if ((n > max_file)); then echo "FILE $f: $n lines (at most $max_file)"; bad=$((bad + 1)); fi
done <"$list"
# One line per function (C++ and CUDA kind f, lambdas among them): name, start, end, file.
ctags --fields=+ne -x --_xformat=$'%N\t%n\t%e\t%F' --kinds-C++=f --kinds-CUDA=f -L "$list" >"$work/tags" 2>"$work/err" ||
  { cat "$work/err" >&2; echo "check-sizes.sh: ctags failed" >&2; exit 2; }
while IFS=$'\t' read -r name start end f; do
  [[ -n $end ]] || continue
  n=$((end - start + 1))
  if ((n > max_function)); then echo "FUNCTION $f:$start $name: $n lines (at most $max_function)"; bad=$((bad + 1)); fi
done <"$work/tags"
echo "$files C++/CUDA files, $bad over the limits (files $max_file lines, functions $max_function)"
((bad == 0))
