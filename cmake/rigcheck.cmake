# rigcheck_benchmark(NAME SOURCES... [LIBS libs...])
# One benchmark binary: its own source file(s) linked with the harness, which owns main().
function(rigcheck_benchmark name)
  cmake_parse_arguments(RB "" "" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE rigcheck_harness_main rigcheck_harness ${RB_LIBS})
  set_property(GLOBAL APPEND PROPERTY RIGCHECK_BENCHMARKS ${name})
endfunction()
