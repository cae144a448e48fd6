# rigcheck_benchmark(NAME SOURCES... [LIBS libs...] [TEST])
# One benchmark binary: its own source file(s) linked with the harness, which owns main().
# Installed beside `rigcheck` (bin/), unless TEST (a binary only the tests use).
function(rigcheck_benchmark name)
  cmake_parse_arguments(RB "TEST" "" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE rigcheck_harness_main rigcheck_harness ${RB_LIBS})
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built)
  if(NOT RB_TEST)
    install(TARGETS ${name} RUNTIME DESTINATION bin)
  endif()
endfunction()

# rigcheck_executable(NAME SOURCES... [LIBS libs...]): a suite binary with its own main() (the
# runner's children that are not Google Benchmark binaries), installed beside `rigcheck`.
function(rigcheck_executable name)
  cmake_parse_arguments(RB "" "" "LIBS" ${ARGN})
  add_executable(${name} ${RB_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${RB_LIBS})
  file(REMOVE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built)
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()

# rigcheck_not_built(NAME REASON): a benchmark this configuration cannot build. `rigcheck run`
# reads the reason from bin/NAME.not-built and reports the benchmark as not_built with it.
function(rigcheck_not_built name reason)
  file(WRITE ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built "${reason}")
  install(FILES ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.not-built DESTINATION bin)
  message(STATUS "${name}: not built: ${reason}")
endfunction()
