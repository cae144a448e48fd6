# Sourced by scripts/netns-cluster.sh and scripts/slurm-cluster.sh (after setting `name`, `id`,
# `subnet`, `base`): usage (lines 8-10 of the script), die, skip, and the options [--id ID]
# [--subnet A.B.C] before the command, which it leaves in `cmd` (the positional parameters: the
# command's own), and `dir`, the cluster's folder under `base`.
usage() {
  sed -n '8,10p' "$0" | sed 's/^# *//' >&2
  exit 2
}
die() { echo "$name: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --id) id=$2; shift 2 ;;
    --subnet) subnet=$2; shift 2 ;;
    -h|--help) usage ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
cmd=$1; shift
[[ $id =~ ^[a-z][a-z0-9]{0,9}$ ]] || { echo "$name: --id '$id': 1-10 lower-case letters and digits, starting with a letter" >&2; exit 2; }
[[ $subnet =~ ^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){2}$ ]] ||
  { echo "$name: --subnet '$subnet': the first three octets of an IPv4 /24 (A.B.C)" >&2; exit 2; }
dir=$base/$id
