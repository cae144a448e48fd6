#!/usr/bin/env bash
# Comments and docs say why the code is so and what is, not how it came to be (git log is the
# history): no C++ or shell file, CMake file (CMakeLists.txt, *.cmake), doc (docs/*.md, README.md) or
# registry (data/*.csv) names an issue by its number or narrates an old name with "(was", in any case. Fails
# listing every such line. Over the files git knows, tracked or new (so build folders, which
# .gitignore lists, are out); over the tree less build*/ where the source is no git checkout.
# tests/fixtures/ is out: recorded runs, kept as they were written. Then the same check on a planted
# tree must find what is planted there, and only that, so that it can fail.
#   no_history.sh SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
src="$1"
# The pattern is written so that this file does not match it.
pattern='issue [0-9]+|[(]was '
# The files checked, as git pathspecs and as the same rule for a tree that is no checkout.
specs=('*.cpp' '*.hpp' '*.sh' '*CMakeLists.txt' '*.cmake' 'docs/*.md' 'README.md' 'data/*.csv')
scope='\.(cpp|hpp|sh|cmake)$|(^|/)CMakeLists\.txt$|^docs/.*\.md$|^README\.md$|^data/.*\.csv$'
# files DIR: DIR's files in scope, NUL-separated, relative to DIR.
files() (
  cd "$1"
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- "${specs[@]}" ':!:tests/fixtures/'
  else
    find . -path './build*' -prune -o -type f -print | sed 's|^\./||' | grep -E -- "$scope" |
      grep -v '^tests/fixtures/' | tr '\n' '\0'
  fi
)
# hits DIR: the matching lines of DIR's files in scope, as PATH:LINE:TEXT; a number a line break put after
# "issue" too (the number's line, after any comment marks).
hits() (
  files "$1" >"$tmp/files"
  cd "$1"
  xargs -0 -r grep -n -i -E -H -- "$pattern" <"$tmp/files" || true
  xargs -0 -r awk 'FNR == 1 { prev = "" }
    tolower(prev) ~ /issue[ \t]*$/ && $0 ~ /^[ \t\/#*-]*[0-9]+/ { print FILENAME ":" FNR ":" $0 }
    { prev = $0 }' <"$tmp/files"
)
found=$(hits "$src")
[[ -z $found ]] || { echo "$found"; fail "$(wc -l <<<"$found") lines narrate history (issue numbers, \"(was\")"; }
plant="$tmp/plant"
mkdir -p "$plant/bench" "$plant/scripts" "$plant/tests/fixtures" "$plant/build-x" "$plant/docs" "$plant/data" \
  "$plant/cmake" "$plant/results"
printf 'int f();\n// why, not when: %s 1\n' issue >"$plant/bench/planted.cpp"
printf '# a name %s old_name)\n' '(was' >"$plant/scripts/planted.sh"
printf '# Why the build is so\n\nAs %s 4 asked.\n' issue >"$plant/docs/planted.md"
printf 'Fast %s slow).\n' '(was' >"$plant/README.md"
printf 'set(X 1)  # %s 5\n' issue >"$plant/bench/CMakeLists.txt"
printf '# %s 6\n' issue >"$plant/cmake/planted.cmake"
printf 'name,note\nx,"declared %s 7"\n' issue >"$plant/data/planted.csv"
printf '// Neoverse cores issue four FMAs a cycle\n' >"$plant/bench/clean.hpp"
printf 'Neoverse cores issue four FMAs a cycle.\n' >"$plant/docs/clean.md"
printf '// the first line of two ends in %s\n// 10 and the number stands on the next\n' issue >"$plant/bench/wrapped.hpp"
printf '// %s 2\n' issue >"$plant/tests/fixtures/kept.cpp"
printf '%s 8\n' issue >"$plant/tests/fixtures/kept.csv"
printf '// %s 3\n' issue >"$plant/build-x/generated.cpp"
printf '%s 9\n' issue >"$plant/results/README.md"
got=$(hits "$plant" | cut -d: -f1 | LC_ALL=C sort | tr '\n' ' ')
want="README.md bench/CMakeLists.txt bench/planted.cpp bench/wrapped.hpp cmake/planted.cmake data/planted.csv docs/planted.md "
want+="scripts/planted.sh "
[[ $got == "$want" ]] || fail "on the planted tree it found '$got', not '$want'"
# The same plant as a git checkout (its build folders ignored, as this repository's are): the pathspecs.
if command -v git >/dev/null; then
  printf 'build*/\n' >"$plant/.gitignore"
  git -C "$plant" init -q
  got=$(hits "$plant" | cut -d: -f1 | LC_ALL=C sort | tr '\n' ' ')
  [[ $got == "$want" ]] || fail "on the planted checkout it found '$got', not '$want'"
fi
echo "no issue numbers or \"(was\" in the source's comments, CMake files, docs and registries; the planted eight found"
