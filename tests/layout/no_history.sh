#!/usr/bin/env bash
# Comments say why the code is so, not how it came to be (git log is the history): no C++ or shell
# file names an issue by its number or narrates an old name with "(was". Fails listing every such
# line. Over the files git knows, tracked or new (so build folders, which .gitignore lists, are
# out); over the tree less build*/ where the source is no git checkout. tests/fixtures/ is out:
# recorded runs, kept as they were written. Then the same check on a planted tree must find what
# is planted there, and only that, so that it can fail.
#   no_history.sh SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
src="$1"
# The pattern is written so that this file does not match it.
pattern='issue [0-9]+|[(]was '
# hits DIR: the matching lines of DIR's .cpp, .hpp and .sh files, as PATH:LINE:TEXT.
hits() (
  cd "$1"
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.sh' ':!:tests/fixtures/' |
      xargs -0 -r grep -n -E -H -- "$pattern" || true
  else
    grep -rn -E --include='*.cpp' --include='*.hpp' --include='*.sh' --exclude-dir='build*' -- "$pattern" . |
      sed 's|^\./||' | grep -v '^tests/fixtures/' || true
  fi
)
found=$(hits "$src")
[[ -z $found ]] || { echo "$found"; fail "$(wc -l <<<"$found") lines narrate history (issue numbers, \"(was\")"; }
plant="$tmp/plant"
mkdir -p "$plant/bench" "$plant/scripts" "$plant/tests/fixtures" "$plant/build-x"
printf 'int f();\n// why, not when: %s 1\n' issue >"$plant/bench/planted.cpp"
printf '# a name %s old_name)\n' '(was' >"$plant/scripts/planted.sh"
printf '// Neoverse cores issue four FMAs a cycle\n' >"$plant/bench/clean.hpp"
printf '// %s 2\n' issue >"$plant/tests/fixtures/kept.cpp"
printf '// %s 3\n' issue >"$plant/build-x/generated.cpp"
got=$(hits "$plant" | cut -d: -f1 | sort | tr '\n' ' ')
[[ $got == "bench/planted.cpp scripts/planted.sh " ]] || fail "on the planted tree it found '$got'"
echo "no issue numbers or \"(was\" in the source's comments; the planted two found"
