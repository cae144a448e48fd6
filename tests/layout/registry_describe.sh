#!/usr/bin/env bash
# data/benchmarks.csv is what the built binaries describe (BINARY --describe, scripts/registry.sh):
# each entry a binary declares has its row, each row an entry of a built binary (or a binary this
# build declares not built), and every field but the measured reference times agrees. Then the same
# check on planted copies, each of which must fail: a row taken out, a row no binary describes, a
# field changed, an entry not named after its binary; and on a build where one binary is declared not built, whose rows must pass as kept.
#   registry_describe.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
build="$(cd "$1" && pwd)" src="$2"
script="$src/scripts/registry.sh"
registry="$src/data/benchmarks.csv"
"$script" --check "$build" ||
  fail "data/benchmarks.csv disagrees with the built binaries (scripts/registry.sh --update BUILD writes it)"

# plant NAME EXPECTED: the check on $tmp/NAME.csv must fail saying EXPECTED.
plant() { planted_fails "$1" "$2" "$script" --registry "$tmp/$1.csv" --check "$build"; }
first=$(sed -n 2p "$registry" | cut -d, -f1)
grep -v "^$first," "$registry" >"$tmp/row_taken_out.csv"
plant row_taken_out "entry $first that"
binary=$(sed -n 2p "$registry" | cut -d, -f3)
{ cat "$registry"; echo "planted_entry,cpu,$binary,,,,1,1,1,\"planted\",,,"; } >"$tmp/row_undescribed.csv"
plant row_undescribed "row planted_entry is described by no built binary"
sed "2s/^\([^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,\)[0-9]*,/\19999,/" "$registry" >"$tmp/field_changed.csv"
plant field_changed "row $first disagrees with $binary --describe"

# A binary whose entry is not named after it: a wrapper renaming its first entry.
mkdir -p "$tmp/misnamed/bin"
cp "$build/suite-binaries.txt" "$tmp/misnamed/"
for f in "$build"/bin/*; do ln -s "$f" "$tmp/misnamed/bin/"; done
rm "$tmp/misnamed/bin/$binary"
printf '#!/bin/sh\n"%s" "$@" | sed "s/^%s,/planted_%s,/"\n' "$build/bin/$binary" "$first" "$first" >"$tmp/misnamed/bin/$binary"
chmod +x "$tmp/misnamed/bin/$binary"
planted_fails misnamed_entry "entry planted_$first of $binary is not named after its binary" \
  "$script" --registry "$registry" --check "$tmp/misnamed"

# A build declaring $binary not built: its rows are kept, not refused.
mkdir -p "$tmp/build/bin"
cp "$build/suite-binaries.txt" "$tmp/build/"
for f in "$build"/bin/*; do ln -s "$f" "$tmp/build/bin/"; done
rm -f "$tmp/build/bin/$binary"
echo "planted: not built here" >"$tmp/build/bin/$binary.not-built"
"$script" --check "$tmp/build" >/dev/null || fail "the rows of $binary, declared not built, were refused"
"$script" --print "$tmp/build" | cmp -s - "$registry" || fail "the rows of $binary, declared not built, were not kept"
echo "ok: the rows of $binary are kept where the build declares it not built"
