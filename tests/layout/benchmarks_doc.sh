#!/usr/bin/env bash
# docs/benchmarks.md's table names every binary of the benchmark registry (data/benchmarks.csv) and
# no other: a row's binary is the first `name` of its first column (a row without one, the inventory,
# is not a binary). Then the same check on a copy without a row and on one with a planted row: both
# must fail.
#   benchmarks_doc.sh SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
src="$1"
registry="$src/data/benchmarks.csv"
doc="$src/docs/benchmarks.md"

# check DOC: the disagreements, one a line; nothing when DOC and the registry name the same binaries.
check() {
  local rows named
  rows=$(awk -F, 'NR > 1 { print $3 }' "$registry" | sort -u)
  named=$(grep -E '^\| `[a-z0-9_]+`' "$1" | sed -E 's/^\| `([a-z0-9_]+)`.*/\1/' | sort -u)
  comm -23 <(echo "$rows") <(echo "$named") | sed 's/^/a binary of the registry without a row in the table: /'
  comm -13 <(echo "$rows") <(echo "$named") | sed 's/^/a row of the table naming no binary of the registry: /'
}

out=$(check "$doc")
[[ -z $out ]] || fail "docs/benchmarks.md and data/benchmarks.csv disagree:
$out"
n=$(awk -F, 'NR > 1 { print $3 }' "$registry" | sort -u | wc -l)
echo "ok: docs/benchmarks.md's table names the registry's $n binaries"

first=$(grep -m1 -E '^\| `[a-z0-9_]+`' "$doc" | sed -E 's/^\| `([a-z0-9_]+)`.*/\1/')
grep -v "^| \`$first\`" "$doc" >"$tmp/without.md"
grep -q "without a row in the table: $first" <<<"$(check "$tmp/without.md")" || fail "a table without $first passed"
{ cat "$doc"; echo '| `planted_binary` | planted | none |'; } >"$tmp/extra.md"
grep -q "naming no binary of the registry: planted_binary" <<<"$(check "$tmp/extra.md")" ||
  fail "a table with a row for planted_binary passed"
echo "ok: a table without $first's rows, and one with a row for planted_binary, both fail"
