#!/usr/bin/env bash
# Prints docs/cli.md, the command-line reference, from the built binaries' own --help: `rigcheck`, each
# of its subcommands (and theirs), and the options every benchmark binary shares (the harness's,
# shown by the example benchmark). The test cli_reference fails while docs/cli.md differs from this.
#   scripts/cli-doc.sh BUILD_BIN_DIR > docs/cli.md
set -euo pipefail
bin=${1:?usage: scripts/cli-doc.sh BUILD_BIN_DIR}
[[ -x $bin/rigcheck && -x $bin/example_triad ]] || { echo "cli-doc: no rigcheck or example_triad in $bin" >&2; exit 2; }
export COLUMNS=120 LC_ALL=C

# The help as the user's shell shows it, with the path of the binary left out.
help_of() { (cd "$bin" && "./$1" "${@:2}" --help) | sed -E "s#\./$1#$1#"; }

# The subcommands a help text lists: the first word of each line after "Subcommands:".
subcommands() { awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' <<<"$1"; }

section() {  # section "HEADING" BINARY ARGS...
  local text
  text=$(help_of "${@:2}")
  printf '\n## `%s`\n\n```\n%s\n```\n' "$1" "$text"
  for sub in $(subcommands "$text"); do section "$1 $sub" "${@:2}" "$sub"; done
}

cat <<'HEAD'
# Command-line reference

Every command and option of `rigcheck` and of the benchmark binaries, as their `--help` prints it.
This page is made from the built binaries (`scripts/cli-doc.sh build/bin > docs/cli.md`); the test
`cli_reference` fails while it differs from them. Back to the [README](../README.md).
HEAD
section rigcheck rigcheck
printf '\n## Every benchmark binary\n\nThe options each benchmark binary shares (the harness'"'"'s), shown by the example benchmark:\n'
printf '\n```\n%s\n```\n' "$(help_of example_triad)"
