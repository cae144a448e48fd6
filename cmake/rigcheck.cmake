# What the runner may start, as each binary's definition declares it: written to
# BUILD/suite-binaries.txt after the configure (tests/layout/registry_binaries.sh checks it against
# data/benchmarks.csv). "binary NAME": a benchmark with rows in the registry; "child NAME PARENT": a
# binary that PARENT starts itself (STARTED_BY); "peer NAME": a peer tool run beside a benchmark for a
# side-by-side figure (PEER). A binary only the tests use (TEST) is not listed.
function(rigcheck_declare_binary name test started_by peer)
  if(test)
    return()
  elseif(started_by)
    set(line "child ${name} ${started_by}")
  elseif(peer)
    set(line "peer ${name}")
  else()
    set(line "binary ${name}")
  endif()
  set_property(GLOBAL APPEND PROPERTY RIGCHECK_SUITE_BINARIES "${line}")
endfunction()

# rigcheck_benchmark(NAME SOURCES... [LIBS libs...] [TEST] [PEER] [STARTED_BY PARENT])
# One benchmark binary: its own source file(s) linked with the harness, which owns main().
# Installed beside `rigcheck` (bin/), unless TEST (a binary only the tests use).
function(rigcheck_benchmark name)
  cmake_parse_arguments(RB "TEST;PEER" "STARTED_BY" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE rigcheck_harness_main rigcheck_harness ${RB_LIBS})
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built)
  if(NOT RB_TEST)
    install(TARGETS ${name} RUNTIME DESTINATION bin)
  endif()
  rigcheck_declare_binary(${name} "${RB_TEST}" "${RB_STARTED_BY}" "${RB_PEER}")
endfunction()

# rigcheck_executable(NAME SOURCES... [LIBS libs...] [TOOL] [STARTED_BY PARENT]): a suite binary with
# its own main() (the runner's children that are not Google Benchmark binaries; TOOL: the CLI itself),
# installed beside `rigcheck`.
function(rigcheck_executable name)
  cmake_parse_arguments(RB "TOOL" "STARTED_BY" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${RB_LIBS})
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built)
  install(TARGETS ${name} RUNTIME DESTINATION bin)
  rigcheck_declare_binary(${name} "${RB_TOOL}" "${RB_STARTED_BY}" "")
endfunction()

# rigcheck_not_built(NAME REASON [PEER] [STARTED_BY PARENT]): a benchmark this configuration cannot
# build. `rigcheck run` reads the reason from bin/NAME.not-built and reports the benchmark as not_built
# with it.
function(rigcheck_not_built name reason)
  cmake_parse_arguments(RB "PEER" "STARTED_BY" "" ${ARGN})
  file(WRITE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built "${reason}")
  install(FILES ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built DESTINATION bin)
  message(STATUS "${name}: not built: ${reason}")
  rigcheck_declare_binary(${name} "" "${RB_STARTED_BY}" "${RB_PEER}")
endfunction()

# Writes BUILD/suite-binaries.txt from the declarations above (called once, after every subdirectory).
function(rigcheck_write_suite_binaries)
  get_property(lines GLOBAL PROPERTY RIGCHECK_SUITE_BINARIES)
  list(REMOVE_DUPLICATES lines)
  list(SORT lines)
  list(JOIN lines "\n" text)
  file(WRITE ${CMAKE_BINARY_DIR}/suite-binaries.txt "${text}\n")
endfunction()
