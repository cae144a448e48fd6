#!/usr/bin/env bash
# docs/benchmarks.md's table is what the built binaries describe (declare_doc, --describe), as
# scripts/registry.sh --update writes it between the doc's marker lines. Then the same check on
# planted copies, each of which must fail: a cell edited by hand, a row taken out, a built binary
# declaring no row; prose edited outside the table passes, and --update gives the doc back.
#   benchmarks_doc.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
build="$(cd "$1" && pwd)" src="$2"
script="$src/scripts/registry.sh"
registry="$src/data/benchmarks.csv"
doc="$src/docs/benchmarks.md"
"$script" --check "$build" >"$tmp/check.log" ||
  fail "docs/benchmarks.md or data/benchmarks.csv disagrees with the built binaries (scripts/registry.sh \
--update BUILD writes both): $(cat "$tmp/check.log")"
echo "ok: docs/benchmarks.md's table is what the built binaries describe"

# plant NAME EXPECTED [BUILD]: the check of $tmp/NAME.md against BUILD must fail saying EXPECTED.
plant() { planted_fails "$1" "$2" "$script" --doc "$tmp/$1.md" --check "${3:-$build}"; }
first=$(grep -m1 -E '^\| `[a-z0-9_]+`' "$doc" | sed -E 's/^\| `([a-z0-9_]+)`.*/\1/')
sed "0,/^| \`$first\`/s/ |\$/ (planted) |/" "$doc" >"$tmp/cell_edited.md"
! cmp -s "$doc" "$tmp/cell_edited.md" || fail "planting an edited cell changed nothing"
plant cell_edited "table differs from what the binaries describe"
grep -v "^| \`$first\`" "$doc" >"$tmp/row_taken_out.md"
plant row_taken_out "table differs from what the binaries describe"

# A build whose $first describes no row: its --describe without the "# doc:" lines.
mkdir -p "$tmp/build/bin"
cp "$build/suite-binaries.txt" "$tmp/build/"
for f in "$build"/bin/*; do ln -s "$f" "$tmp/build/bin/"; done
rm "$tmp/build/bin/$first"
printf '#!/usr/bin/env bash\n${RIGCHECK_EXEC_PREFIX:-} %q "$@" | grep -v "^# doc: "\n' "$build/bin/$first" \
  >"$tmp/build/bin/$first"
chmod +x "$tmp/build/bin/$first"
cp "$doc" "$tmp/no_row.md"
RIGCHECK_EXEC_PREFIX='' plant no_row "binary $first declares no row" "$tmp/build"

# Prose outside the table is the doc's own; --update writes the table back byte for byte.
sed '1s/$/ (planted)/' "$doc" >"$tmp/prose.md"
"$script" --doc "$tmp/prose.md" --check "$build" >/dev/null || fail "an edit outside the table failed the check"
cp "$registry" "$tmp/registry.csv"
"$script" --registry "$tmp/registry.csv" --doc "$tmp/cell_edited.md" --update "$build" >/dev/null
cmp -s "$doc" "$tmp/cell_edited.md" ||
  fail "--update did not write the table back: $(diff "$doc" "$tmp/cell_edited.md")"
echo "ok: prose edited outside the table passes; --update writes the table back"
