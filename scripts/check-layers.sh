#!/usr/bin/env bash
# The layers of bench/ (docs/architecture.md), lowest first: a file of one layer may include its own
# layer's headers and those of the layers below it, never one above. Reads every #include
# "rigcheck/LAYER/..." line of bench/ and prints each arrow that runs back up; exit 1 when any does.
#   scripts/check-layers.sh [SOURCE_DIR]
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
# layer folder under bench/ -> its rank; the include namespace of each (rigcheck/NAME/) -> its folder
declare -A rank=([harness]=0 [inventory]=1 [runfolder]=2 [store]=3 [claims]=4 [report]=5 [compare]=6 [rigcheck]=7)
declare -A folder_of=([harness]=harness [inventory]=inventory [runfolder]=runfolder [store]=store [claims]=claims
                      [report]=report [compare]=compare [run]=rigcheck)
bad=0 arrows=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"; rest="${rest#*:}"
  # bash's own matching, no process per line: a tree has hundreds of these lines
  [[ $rest =~ \#include\ *\"rigcheck/([a-z_]+)/ ]] || continue
  ns=${BASH_REMATCH[1]}
  layer=${file#"$src"/bench/}
  layer=${layer%%/*}
  to="${folder_of[$ns]:-}"
  [[ -n $to && -n ${rank[$layer]:-} ]] || continue
  arrows=$((arrows + 1))
  if ((rank[$to] > rank[$layer])); then
    echo "UP: ${file#"$src"/} ($layer) includes rigcheck/$ns/ ($to)"
    bad=$((bad + 1))
  fi
done < <(grep -rnE '^#include *"rigcheck/' "$src/bench" --include=*.hpp --include=*.cpp)
echo "$arrows includes between the layers of bench/, $bad running back up"
((bad == 0))
