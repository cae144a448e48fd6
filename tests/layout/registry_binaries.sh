#!/usr/bin/env bash
# Every binary the suite builds for the runner has a row in the benchmark registry, and every row
# names a binary the build makes (or declares not built with its reason): a binary without a row
# would never run, a row without a binary would end not_built with no reason. The build lists what it
# declares in BUILD/suite-binaries.txt (cmake/rigcheck.cmake): "binary NAME" for each benchmark,
# "child NAME PARENT" for a binary another one starts (memory_host's memory_train_step), "tool NAME"
# for the CLI. Then the same check on copies of the registry with a row taken out and a row added:
# both must fail.
#   registry_binaries.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
build="$1" src="$2"
list="$build/suite-binaries.txt"
[[ -s $list ]] || fail "no $list: the build did not list its binaries"

# check REGISTRY: the mismatches, one a line; nothing when the registry and the build agree.
check() {
  local registry="$1"
  local rows; rows=$(tail -n +2 "$registry" | cut -d, -f3 | sort -u)
  local binaries; binaries=$(awk '$1 == "binary" { print $2 }' "$list" | sort -u)
  comm -23 <(echo "$binaries") <(echo "$rows") | sed 's/^/a built binary without a registry row: /'
  comm -13 <(echo "$binaries") <(echo "$rows") | sed 's/^/a registry row naming no binary the build declares: /'
  awk '$1 == "child" { print $2, $3 }' "$list" | while read -r child parent; do
    grep -qx "$parent" <<<"$rows" || echo "the parent $parent of $child has no registry row"
    grep -qx "$child" <<<"$rows" && echo "$child is started by $parent and also has a row of its own"
  done
  true
}

out=$(check "$src/data/benchmarks.csv")
[[ -z $out ]] || fail "$out"
echo "ok: $(awk '$1 == "binary"' "$list" | wc -l) binaries, each with its row in data/benchmarks.csv; $(awk '$1 == "child"' "$list" | wc -l) started by another"

first=$(awk '$1 == "binary" { print $2; exit }' "$list")
grep -v "^[^,]*,[^,]*,$first," "$src/data/benchmarks.csv" >"$tmp/without.csv"
out=$(check "$tmp/without.csv")
grep -q "a built binary without a registry row: $first" <<<"$out" || fail "a registry without $first's rows passed: $out"
cp "$src/data/benchmarks.csv" "$tmp/extra.csv"
echo "planted,cpu,planted_binary,,,,1,1,1,\"planted\",1,no,1" >>"$tmp/extra.csv"
out=$(check "$tmp/extra.csv")
grep -q "a registry row naming no binary the build declares: planted_binary" <<<"$out" ||
  fail "a registry row naming planted_binary passed: $out"
echo "ok: a registry without $first's rows, and one with a row naming planted_binary, both fail"
