# Sourced by the memory area's shell tests that start memory_host's child processes:
#   source "$(dirname "$0")/needs_host.sh" MEMORY_HOST MIN_AVAILABLE_KB
# Sets $exe (memory_host) and $train (memory_train_step beside it); skips the test (exit 77) with
# the reason unless both are built and MemAvailable is at least MIN_AVAILABLE_KB.
exe=$1
train="$(dirname "$exe")/memory_train_step"
[ -x "$exe" ] || { echo "memory_host not built"; exit 77; }
[ -x "$train" ] || { echo "memory_train_step not built: $(cat "$train.not-built" 2>/dev/null)"; exit 77; }
avail_kb=$(awk '/^MemAvailable:/{print $2}' /proc/meminfo)
if [ "${avail_kb:-0}" -lt "$2" ]; then echo "MemAvailable ${avail_kb} kB < $2 kB: skipped"; exit 77; fi
