# rigcheck_benchmark(NAME SOURCES... [LIBS libs...])
# One benchmark binary: its own source file(s) linked with the harness, which owns main().
function(rigcheck_benchmark name)
  cmake_parse_arguments(RB "" "" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE rigcheck_harness_main rigcheck_harness ${RB_LIBS})
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built)
endfunction()

# rigcheck_not_built(NAME REASON): a benchmark this configuration cannot build. `rigcheck run`
# reads the reason from bin/NAME.not-built and reports the benchmark as not_built with it.
function(rigcheck_not_built name reason)
  file(WRITE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built "${reason}")
  message(STATUS "${name}: not built: ${reason}")
endfunction()
