// A row written to the result CSV NOW, beside harness.hpp (a header of its own so that the many
// benchmark translation units that do not use it are not rebuilt for it).
#pragma once
#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

// For a measurement a kernel makes before its case ends (a child process's peak RSS, memory_host):
// one write(2) to the result CSV, run_id filled in, so that a binary cut short later (the runner's
// timeout, a kill) keeps it, where derived rows (register_derived_rows) come only at the end.
// Throws std::logic_error outside a running harness_main (no result file open), and what
// Session::row throws (a full disk).
void write_row_now(ResultRow r);

}  // namespace rigcheck
