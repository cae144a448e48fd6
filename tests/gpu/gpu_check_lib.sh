# Sourced by the GPU check tests (gpu_pack.sh, gpu_check_plan.sh) after tests/support/lib.sh: a PATH
# without one command, and what a GPU machine gives back of the check's output folder.
# strip_tool NAME: sets $stripped, a PATH of one folder holding links to every command on PATH but NAME.
# One `ln` for all of them (one per command took about 10 s of each mode that strips a tool).
strip_tool() {
  local d f n
  local -A seen=()
  local -a links=()
  mkdir -p "$tmp/path-$1"
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    [[ -n $d && -d $d ]] || continue
    for f in "$d"/*; do
      n=${f##*/}
      [[ -x $f && ! -d $f && $n != "$1" && -z ${seen[$n]:-} ]] || continue
      seen[$n]=1
      links+=("$f")
    done
  done
  ((${#links[@]} == 0)) || ln -s -t "$tmp/path-$1" -- "${links[@]}"
  stripped=$tmp/path-$1
  PATH=$stripped command -v "$1" >/dev/null && fail "$1 still on the test's PATH"
  return 0
}
# comes_back OUT DEST: what a GPU machine gives back of OUT (at most 8 files, at most two folders
# down, the rest dropped) copied to DEST; fails unless that is everything the check promises: OUT
# holds only preflight.txt, summary.txt and one archive (no result folder), and the archive holds
# the result folder with its logs and summary. The archive is unpacked into DEST/res.
comes_back() {
  local o=$1 d=$2 f
  mkdir -p "$d"
  local all
  all=$(cd "$o" && find . -mindepth 1 | sort)
  local files
  files=$(cd "$o" && find . -mindepth 1 -maxdepth 3 -type f | sort | head -8)
  while read -r f; do [[ -n $f ]] && mkdir -p "$d/$(dirname "$f")" && cp "$o/$f" "$d/$f"; done <<<"$files"
  [[ $(cd "$d" && find . -mindepth 1 | sort) == "$all" ]] ||
    fail "not everything in the output folder comes back (8 files, two folders down): it holds $(echo $all)"
  [[ $(echo $all) =~ ^\./gpu-check-[^/]*\.tar\.gz\ \./preflight\.txt\ \./summary\.txt$ ]] ||
    fail "the output folder holds more or less than one archive, preflight.txt and summary.txt: $(echo $all)"
  mkdir -p "$d/res"
  tar -C "$d/res" --strip-components=1 -xzf "$d"/gpu-check-*.tar.gz || fail "the archive does not unpack"
  for f in logs/precheck.log logs/gpu-check.log summary.txt preflight.txt; do
    [[ -s $d/res/$f ]] || fail "no $f in the archive"
  done
  cmp -s "$d/res/summary.txt" "$d/summary.txt" || fail "the summary beside the archive differs from the one inside"
  grep -q '^rigcheck GPU check, ' "$d/summary.txt" || fail "the summary has no headline"
  grep -q '^GPU: ' "$d/summary.txt" && grep -q '^torch side: ' "$d/summary.txt" && grep -q '^steps: precheck ' "$d/summary.txt" ||
    fail "the summary lacks the GPU/driver/torch line, the torch side or the steps"
  echo "ok: the output folder gives back all it holds: $(echo $all)"
}
