# rigcheck_fccp_blocks(LOG2 DIR): a copy of fast-cpp-csv-parser's header in DIR/libfccp/csv.h whose read
# blocks are 2^LOG2 bytes instead of 16 MiB, put first on the include path of what this directory builds.
# Why: fccp allocates a buffer of 3 blocks (48 MiB) per file it opens. Under AddressSanitizer every
# free of it writes 6 MiB of shadow memory, 1,536 first touches at ~15 us each in these VMs
# (docs/machines.md): about 25 ms per CSV file read, most of the sanitizer stage's system time. The
# parser is the same but for the block length, which also bounds the longest line it accepts (a longer
# one is refused either way); the builds that use it say how long their inputs can be.
function(rigcheck_fccp_blocks log2 dir)
  file(READ ${FCCP_INCLUDE_DIR}/libfccp/csv.h _fccp)
  string(REPLACE "static const int block_len = 1<<24;" "static const int block_len = 1<<${log2};" _small "${_fccp}")
  if(_small STREQUAL _fccp)
    message(FATAL_ERROR "${FCCP_INCLUDE_DIR}/libfccp/csv.h: no 'block_len = 1<<24' to shrink (another fccp version?)")
  endif()
  file(WRITE ${dir}/libfccp/csv.h "${_small}")
  include_directories(BEFORE ${dir})
endfunction()
