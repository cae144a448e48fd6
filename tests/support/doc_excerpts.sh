#!/usr/bin/env bash
# A walk-through cannot drift from the code it quotes: every fenced block of DOC whose first line
# names a file (`// PATH`, `# PATH` or `<!-- PATH -->`, PATH relative to SRC) is found in that file
# line for line (blank lines and lines with "..." are skipped: they stand for what is left out).
# Fails naming the first line that is not there, a file that does not exist, or fewer than MIN
# blocks that name their file; else prints how many it found.
#   doc_excerpts.sh DOC SRC MIN
source "$(dirname "$0")/lib.sh"  # strict mode, fail(), $tmp removed on exit
doc="$1" src="$2" min="$3"
awk '!inb && /^```[a-z]*$/ { inb = 1; n++; next } inb && /^```$/ { inb = 0; next } inb { print n "\t" $0 }' "$doc" \
  >"$tmp/blocks.tsv"
blocks=0
while IFS= read -r n; do
  head=$(awk -F'\t' -v n="$n" '$1 == n { sub(/^[^\t]*\t/, ""); print; exit }' "$tmp/blocks.tsv")
  file=$(sed -nE 's#^(// |\# |<!-- )([A-Za-z0-9_./-]+\.[A-Za-z]+)( -->)?$#\2#p' <<<"$head")
  [[ -n "$file" ]] || continue
  [[ -f "$src/$file" ]] || fail "$(basename "$doc") quotes $file, which does not exist"
  blocks=$((blocks + 1))
  while IFS= read -r line; do
    [[ -z "${line// /}" || "$line" == "$head" || "$line" == *"..."* ]] && continue
    grep -qxF -- "$line" "$src/$file" || fail "$(basename "$doc") excerpt $n: not in $file: $line"
  done < <(awk -F'\t' -v n="$n" '$1 == n { sub(/^[^\t]*\t/, ""); print }' "$tmp/blocks.tsv")
done < <(cut -f1 "$tmp/blocks.tsv" | uniq)
((blocks >= min)) || fail "only $blocks excerpts of $(basename "$doc") name their file (at least $min expected)"
echo "$blocks excerpts of $(basename "$doc") found in their files"
