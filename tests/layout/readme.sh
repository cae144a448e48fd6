#!/usr/bin/env bash
# The README is a first screen: under 150 lines, none over 120 characters, and every doc or file it
# links exists in the repository. Fails naming the line or the missing file.
#   readme.sh SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
src="$1"
readme="$src/README.md"
[[ -f $readme ]] || fail "no README.md in $src"
n=$(wc -l <"$readme")
((n < 150)) || fail "README.md has $n lines (at most 149)"
# characters, not bytes: the guide's Chinese title counts one per character
export LC_ALL=C.UTF-8
lineno=0
while IFS= read -r line || [[ -n $line ]]; do
  lineno=$((lineno + 1))
  ((${#line} <= 120)) || fail "README.md:$lineno is ${#line} characters (at most 120)"
done <"$readme"
links=$(grep -oE '\]\([^)#]+\)' "$readme" | sed -E 's/^\]\(//; s/\)$//' | grep -v '://' | sort -u)
[[ -n $links ]] || fail "README.md links no doc"
for l in $links; do
  [[ -e "$src/$l" ]] || fail "README.md links $l, which does not exist"
done
for d in $(grep -oE '(^|[ `(])docs/[a-z0-9-]+\.md' "$readme" | grep -oE 'docs/[a-z0-9-]+\.md' | sort -u); do
  [[ -e "$src/$d" ]] || fail "README.md names $d, which does not exist"
done
echo "README.md: $n lines, every line at most 120 characters, $(wc -w <<<"$links") links, all present"
