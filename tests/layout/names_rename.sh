#!/usr/bin/env bash
# One name per metric (bench/harness/include/rigcheck/harness/names.hpp), used by the writer of a
# row and by its readers alike: renaming a constant must break the build of both, never compile
# into rows no evaluator selects. A copy of names.hpp with kIops renamed shadows the real one, and
# a writer (io/fio.cpp) and a reader (the IO claims' evaluators) are compiled against it with their
# own flags from compile_commands.json; each must fail on the old name. Then the unchanged header
# compiles both, so the failure is the rename's.
#   names_rename.sh BUILD_DIR SOURCE_DIR
source "$(dirname "$0")/../support/lib.sh"
build="$1" src="$(cd "$2" && pwd)"
db="$build/compile_commands.json"
[[ -f $db ]] || fail "no $db (CMAKE_EXPORT_COMPILE_COMMANDS)"
mkdir -p "$tmp/inc/rigcheck/harness"
sed 's/\bkIops\[\]/kIopsRenamed[]/' "$src/bench/harness/include/rigcheck/harness/names.hpp" \
  >"$tmp/inc/rigcheck/harness/names.hpp"
grep -q kIopsRenamed "$tmp/inc/rigcheck/harness/names.hpp" || fail "kIops not found in names.hpp"
compile() {  # FILE [EXTRA-INCLUDE]: compile FILE with its own command, syntax only
  local file="$src/$1" cmd dir
  cmd=$(grep -B1 -F "\"file\": \"$file\"" "$db" | grep -m1 '"command"') || true
  dir=$(grep -B2 -F "\"file\": \"$file\"" "$db" | grep -m1 -oP '"directory": "\K[^"]+') || true
  [[ -n $cmd ]] || { echo "no compile command for $1" >"$tmp/out"; return 2; }
  cmd=$(sed -E 's/^ *"command": "//; s/",? *$//; s/\\"/"/g; s/ -o [^ ]+ / /; s/ -c / -fsyntax-only /' <<<"$cmd")
  # the shadowing folder first, before the project's own include folders
  [[ -n ${2:-} ]] && cmd=$(sed -E "s#^([^ ]+) #\\1 -I$2 #" <<<"$cmd")
  (cd "${dir:-$build}" && eval "$cmd") >"$tmp/out" 2>&1
}
for f in io/fio.cpp bench/claims/src/evaluators_io.cpp; do
  compile "$f" || fail "$f does not compile with the real names.hpp: $(head -5 "$tmp/out")"
  if compile "$f" "$tmp/inc"; then fail "$f compiled with kIops renamed: it does not use the constant"; fi
  grep -q "kIops" "$tmp/out" || fail "$f failed to compile with kIops renamed, but not on kIops: $(head -5 "$tmp/out")"
  echo "$f: breaks on the renamed kIops, as it should"
done
