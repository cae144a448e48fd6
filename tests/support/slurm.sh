# Sourced after lib.sh by the tests on a Slurm cluster (scripts/slurm-cluster.sh):
#   slurm_up SUBNET      brings up 2 Slurm nodes (n1, n2) on namespaced nodes as cluster $slurm_id,
#                        and sources its env (SLURM_CONF, its sbatch/squeue/... first on PATH); skips
#                        the test (77) without root, ip/tc or Slurm's packages
#   slurm_down_checked   takes it down and fails the test if anything of it is left: a live process,
#                        a namespace, a mount or its folder
# The cluster also comes down on exit, however the test ends.
slurm_cluster="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/slurm-cluster.sh"
slurm_id="sl$$"
slurm_id=${slurm_id:0:10}
slurm_dir=/run/rigcheck-slurm/$slurm_id
trap '"$slurm_cluster" --id "$slurm_id" down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

slurm_up() {
  local rc=0
  "$slurm_cluster" --id "$slurm_id" --subnet "$1" up 2 none 0ms >"$tmp/up.log" 2>&1 || rc=$?
  [[ $rc -eq 77 ]] && { grep SKIP "$tmp/up.log"; exit 77; }
  [[ $rc -eq 0 ]] || { cat "$tmp/up.log"; fail "slurm-cluster.sh up exited $rc"; }
  # shellcheck disable=SC1090
  source "$slurm_dir/env"
}

slurm_down_checked() {
  "$slurm_cluster" --id "$slurm_id" down
  local live
  live=$( (pgrep -f -- "$slurm_dir/" || true) | while read -r p; do
    [[ $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) == Z ]] || echo "$p"  # a zombie is only a pid no one reaped
  done)
  [[ -z $live ]] || fail "processes of the cluster still running: $live"
  [[ ! -e $slurm_dir ]] || fail "$slurm_dir left behind"
  [[ ! -e /run/rigcheck-netns/$slurm_id ]] || fail "the namespaces' state left behind"
  local ns
  for ns in "$slurm_id-head" "$slurm_id-n1" "$slurm_id-n2"; do [[ ! -e /run/netns/$ns ]] || fail "namespace $ns left behind"; done
  ! grep -q "$slurm_dir" /proc/self/mountinfo || fail "a mount of the cluster left behind"
  echo "ok: down left no process, namespace, mount or folder"
}
