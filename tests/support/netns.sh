# Sourced after lib.sh by the tests on a namespace cluster (scripts/netns-cluster.sh):
#   cluster_up ID SUBNET RATE  brings up 2 nodes behind a veth star shaped to RATE ("none": not
#                              shaped), or skips the test (77) where there is no mpirun or no
#                              namespaces can be made (not root, no ip/tc)
#   cluster_down               takes cluster ID down (quietly; for the test's own teardown too)
# On exit the test's cleanup function runs (define it; it may call cluster_down), then $tmp goes.
cluster="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/netns-cluster.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (Debian: openmpi-bin)"; exit 77; }
cleanup() { cluster_down; }
trap 'cleanup; rm -rf "$tmp"' EXIT

cluster_up() {
  cluster_id="$1"
  local rc=0
  "$cluster" --id "$1" --subnet "$2" up 2 "$3" 0ms >"$tmp/up.log" 2>&1 || rc=$?
  cat "$tmp/up.log"
  [[ $rc -eq 77 ]] && exit 77
  [[ $rc -eq 0 ]] || fail "netns-cluster.sh up exited $rc"
}

cluster_down() { [[ -z ${cluster_id:-} ]] || "$cluster" --id "$cluster_id" down >/dev/null 2>&1 || true; }
