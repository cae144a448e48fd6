#!/usr/bin/env bash
# The benchmark registry, data/benchmarks.csv, from the built binaries: each declares its entries in
# its source beside its registration (harness/registry_entry.hpp) and prints them with --describe.
# The two measured reference times (quick_ref_s, full_ref_s) are the file's own: kept by entry name,
# empty for a new entry until measured (docs/performance.md). The rows keep the file's order; a new
# entry goes at the end. A row whose binary this build declares but cannot build (BUILD/bin/NAME.not-built)
# is kept as it is.
#   scripts/registry.sh --update BUILD      write data/benchmarks.csv
#   scripts/registry.sh --print BUILD       print what --update would write
#   scripts/registry.sh --check BUILD       list where the file and the binaries disagree; exit 1 if any
#   scripts/registry.sh --benchmarks BUILD  "BINARY NAME" for each benchmark name a built binary writes
# The table of docs/benchmarks.md between its two marker lines is generated too: each binary declares
# its rows (harness/registry_entry.hpp, declare_doc; '# doc: | ... |' lines of --describe); the
# binaries go by area (cpu, memory, io, comm, gpu), within one in the order of their first row in the
# registry, a binary's rows in its declaration order; the inventory row, not a binary, ends it. --update
# rewrites the table, --check lists it as a disagreement when it differs, a binary declared not built
# keeps its rows as they are.
# --registry FILE (before the mode) reads and writes FILE in place of data/benchmarks.csv, and no table
# unless --doc FILE (before the mode) names one in place of docs/benchmarks.md. BUILD holds
# suite-binaries.txt (what the build declares for the runner, cmake/rigcheck.cmake) and bin/. Binary
# names after BUILD take the place of suite-binaries.txt's (the example: --registry
# examples/benchmarks.csv --update build example_triad).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
registry="$root/data/benchmarks.csv" doc="$root/docs/benchmarks.md"
while [[ ${1:-} == --registry || ${1:-} == --doc ]]; do
  if [[ $1 == --registry ]]; then
    registry="$2"
    [[ ${doc_given:-} ]] || doc=
  else
    doc="$2" doc_given=1
  fi
  shift 2
done
mode="${1:-}" build="${2:-}"
shift 2 || true
only=("$@")
usage() {
  echo "usage: scripts/registry.sh [--registry FILE] [--doc FILE] --update|--print|--check|--benchmarks BUILD" >&2
  exit 2
}
[[ $mode =~ ^--(update|print|check|benchmarks)$ && -n $build ]] || usage
if ((${#only[@]} > 0)); then
  declared=$(printf 'binary %s\n' "${only[@]}")
else
  [[ -s $build/suite-binaries.txt ]] ||
    { echo "registry.sh: no $build/suite-binaries.txt: configure first" >&2; exit 2; }
  declared=$(cat "$build/suite-binaries.txt")
fi
header="name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description"
header+=",quick_ref_s,takes_budget,full_ref_s"

declare -A row_of binary_of built=() not_built=() docs_of=()
order=() writes=() no_entry=()
# Every binary and peer the build declares: built (its --describe read) or declared not built.
while read -r kind name _; do
  [[ $kind == binary || $kind == peer ]] || continue
  if [[ -f $build/bin/$name.not-built ]]; then
    not_built[$name]=1
    continue
  fi
  [[ -x $build/bin/$name ]] || { echo "registry.sh: $build/bin/$name is not built yet: build first" >&2; exit 2; }
  # The answer is kept in BUILD/describe-cache/NAME while the binary is not newer (a LibTorch binary takes a
  # second to start; the tests check the registry and planted copies of it many times over).
  cache="$build/describe-cache/$name"
  if [[ -s $cache && $cache -nt $build/bin/$name ]]; then
    out=$(<"$cache")
  else
    # shellcheck disable=SC2086 # the exec prefix is a command line (an emulator and its options)
    out=$(${RIGCHECK_EXEC_PREFIX:-} "$build/bin/$name" --describe) ||
      { echo "registry.sh: $name --describe failed" >&2; exit 1; }
    mkdir -p "$build/describe-cache" && printf '%s\n' "$out" >"$cache.$$" && mv "$cache.$$" "$cache"
  fi
  [[ $(head -n 1 <<<"$out") == "$header" ]] ||
    { echo "registry.sh: $name --describe does not start with the registry's header" >&2; exit 1; }
  built[$name]=1
  described_any=
  while IFS= read -r line; do
    if [[ $line == "# writes: "* ]]; then
      writes+=("$name ${line#"# writes: "}")
    elif [[ $line == "# doc: "* ]]; then
      docs_of[$name]+="${line#"# doc: "}"$'\n'
    elif [[ -n $line ]]; then
      entry="${line%%,*}"
      [[ -z ${row_of[$entry]:-} ]] ||
        { echo "registry.sh: entry $entry is described by ${binary_of[$entry]} and by $name" >&2; exit 1; }
      row_of[$entry]="$line" binary_of[$entry]="$name"
      order+=("$entry")
      described_any=1
    fi
  done < <(tail -n +2 <<<"$out")
  [[ -n $described_any || $kind == peer ]] || no_entry+=("$name")
done <<<"$declared"

if [[ $mode == --benchmarks ]]; then
  printf '%s\n' "${writes[@]}"
  exit 0
fi

[[ $(head -n 1 "$registry") == "$header" ]] || { echo "registry.sh: $registry's header is not $header" >&2; exit 1; }
# The registry as the binaries describe it: each described row with the file's reference times (its
# last three fields, quick_ref_s, takes_budget and full_ref_s, hold no comma), in the file's order.
declare -A in_file
merged=("$header") problems=()
while IFS= read -r line; do
  [[ -n $line ]] || continue
  entry="${line%%,*}"
  in_file[$entry]=1
  IFS=, read -r _ _ binary _ <<<"$line"
  if [[ -n ${row_of[$entry]:-} ]]; then
    full="${line##*,}" rest="${line%,*}"
    quick="${rest%,*}"
    quick="${quick##*,}"
    described="${row_of[$entry]}"
    takes="${described%,*}"
    takes="${takes##*,}"
    want="${described%,*,*,*},$quick,$takes,$full"
    merged+=("$want")
    [[ $want == "$line" ]] || problems+=("row $entry disagrees with ${binary_of[$entry]} --describe:
  data/benchmarks.csv: $line
  described, its reference times kept: $want")
  elif [[ -n ${not_built[$binary]:-} ]]; then
    merged+=("$line")
  elif [[ -n ${built[$binary]:-} ]]; then
    problems+=("row $entry is described by no built binary ($binary describes no entry $entry)")
  else
    merged+=("$line")
    problems+=("row $entry names binary $binary, which the build does not declare")
  fi
done < <(tail -n +2 "$registry")
for entry in "${order[@]}"; do
  [[ -n ${in_file[$entry]:-} ]] && continue
  merged+=("${row_of[$entry]}")
  problems+=("entry $entry that ${binary_of[$entry]} describes has no row in data/benchmarks.csv")
done

for name in "${no_entry[@]}"; do
  problems+=("binary $name declares no registry entry: the runner would never start it")
done
# An entry is its binary run with one set of arguments and environment: named after the binary, or after it
# with a suffix naming the variant (io_fio_disk), so --select, the result file and the binary agree.
for entry in "${order[@]}"; do
  b=${binary_of[$entry]}
  [[ $entry == "$b" || $entry == "${b}_"* ]] ||
    problems+=("entry $entry of $b is not named after its binary ($b, or ${b}_ and its variant)")
done


# The table of $doc as the binaries describe it, from the header to the inventory row.
begin_marker="<!-- generated by scripts/registry.sh from the binaries' --describe: do not edit -->"
end_marker="<!-- end of the generated table -->"
inventory="| inventory | CPU, caches (sysfs, hwloc, cpuinfo, datasheet: each with its source, implausible sizes"
inventory+=" flagged), the CPUs this process may use (affinity mask, cgroup quota), ISA, memory, THP, governor,"
inventory+=" measured clock, kernel, compiler, library versions, GPUs | CPU-4, CPU-6 and every \`not_measurable\` |"
# doc_table: prints the table the binaries describe; a built binary with no row is a problem (in $doc_problems).
doc_table() {
  local line binary area seen_order=() b rows
  declare -A area_of=()
  for line in "${merged[@]:1}"; do
    IFS=, read -r _ area binary _ <<<"$line"
    [[ -n ${area_of[$binary]:-} ]] && continue
    area_of[$binary]=$area
    seen_order+=("$binary")
  done
  echo "| binary | what | claims |"
  echo "|---|---|---|"
  for area in cpu memory io comm gpu other; do
    for b in "${seen_order[@]}"; do
      case ${area_of[$b]} in cpu | memory | io | comm | gpu) [[ ${area_of[$b]} == "$area" ]] || continue ;;
        *) [[ $area == other ]] || continue ;;
      esac
      if [[ -n ${not_built[$b]:-} ]]; then
        rows=$(grep -E "^\\| \`$b\`( |\$)" <<<"$current_table" || true)
      else
        rows="${docs_of[$b]:-}"
        rows="${rows%$'\n'}"
      fi
      [[ -n $rows ]] || echo "binary $b declares no row of $doc's table (declare_doc)" >>"$doc_problems"
      [[ -z $rows ]] || printf '%s\n' "$rows"
    done
  done
  echo "$inventory"
}
if [[ -n $doc ]]; then
  doc_problems=$(mktemp)
  trap 'rm -f "$doc_problems" "$doc.new"' EXIT
  grep -qxF "$begin_marker" "$doc" && grep -qxF "$end_marker" "$doc" ||
    { echo "registry.sh: $doc lacks the lines around its generated table: $begin_marker, $end_marker" >&2; exit 1; }
  current_table=$(awk -v b="$begin_marker" -v e="$end_marker" '$0 == e { f = 0 } f { print } $0 == b { f = 1 }' "$doc")
  want_table=$(doc_table)
  while IFS= read -r p; do problems+=("$p"); done <"$doc_problems"
  if [[ $want_table != "$current_table" ]]; then
    problems+=("$doc's table differs from what the binaries describe (<: the file, >: described):
$({ diff <(echo "$current_table") <(echo "$want_table") || true; } | grep "^[<>]")")
  fi
fi
case $mode in
  --print) printf '%s\n' "${merged[@]}" ;;
  --update)
    printf '%s\n' "${merged[@]}" >"$registry.new"
    mv "$registry.new" "$registry"
    if [[ -n $doc ]]; then
      # The table through the environment: awk -v would read its backslashes as escapes.
      table="$want_table" awk -v b="$begin_marker" -v e="$end_marker" \
        '$0 == e { f = 0 } !f { print } $0 == b { f = 1; print ENVIRON["table"] }' "$doc" >"$doc.new"
      mv "$doc.new" "$doc"
    fi
    for p in "${problems[@]}"; do echo "updated: $p" | head -n 1; done
    ;;
  --check)
    ((${#problems[@]} == 0)) || { printf '%s\n' "${problems[@]}"; exit 1; }
    echo "ok: the $((${#merged[@]} - 1)) rows of $registry are what the built binaries describe" \
      "(${#built[@]} built, ${#not_built[@]} declared not built)${doc:+, and so is the table of $doc}"
    ;;
esac
