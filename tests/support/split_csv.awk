# split_csv(line, f): the fields of one CSV line into f[1..n], returns n. Quoted fields may hold commas
# and doubled quotes (params and notes do); mawk has no FPAT. Prepended to the awk programs of
# tests/support/threads_as_stated.sh and tests/vm/vm_numa_check.sh.
function split_csv(line, f,   n, i, c, q, cur) {
  n = 0; q = 0; cur = ""
  for (i = 1; i <= length(line); i++) {
    c = substr(line, i, 1)
    if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 } else cur = cur c }
    else if (c == "\"") q = 1
    else if (c == ",") { f[++n] = cur; cur = "" }
    else cur = cur c
  }
  f[++n] = cur
  return n
}
