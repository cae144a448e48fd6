#!/usr/bin/env bash
# Every parameter a run's rows hold is declared in data/params.csv (requested, observed or a
# description of the method), so that runs of later suite versions pair with it:
# `rigcheck compare RUN RUN` prints an UNDECLARED PARAM line for each one that is not.
#   params_declared.sh RIGCHECK RUN_DIR    (exit 1 naming them)
set -uo pipefail
out=$("$1" compare "$2" "$2" 2>&1) || { echo "$out" | tail -5; echo "FAIL: rigcheck compare of $2 with itself: exit $?"; exit 1; }
if grep -q '^UNDECLARED PARAM' <<<"$out"; then
  grep '^UNDECLARED PARAM' <<<"$out" | sort -u
  echo "FAIL: $2 holds parameters data/params.csv does not declare"
  exit 1
fi
exit 0
