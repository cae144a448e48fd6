# Compiler caching: every compile goes through ccache when it is installed
# (scripts/setup.sh installs it), so a second build on the same machine (a fresh clone in CI, a
# build folder removed) takes its objects from ~/.cache/ccache instead of compiling them again.
# CCACHE_BASEDIR makes the paths under the repository relative, and CCACHE_NOHASHDIR leaves the
# build folder out of the key, so a clone at another path hits too. Without ccache, or with
# -DRIGCHECK_CCACHE=OFF, the compilers run as they are. ccache checks every input (the
# preprocessed source, the compiler and its flags) before it gives an object back: a stale hit
# is not possible, only a miss.
option(RIGCHECK_CCACHE "Compile through ccache when it is found" ON)
find_program(RIGCHECK_CCACHE_PROGRAM ccache)
if(RIGCHECK_CCACHE AND RIGCHECK_CCACHE_PROGRAM)
  get_filename_component(_rigcheck_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
  set(_rigcheck_launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${_rigcheck_root} CCACHE_NOHASHDIR=true
                         ${RIGCHECK_CCACHE_PROGRAM})
  foreach(_lang C CXX CUDA)
    if(NOT DEFINED CMAKE_${_lang}_COMPILER_LAUNCHER)
      set(CMAKE_${_lang}_COMPILER_LAUNCHER ${_rigcheck_launcher})
    endif()
  endforeach()
  set(RIGCHECK_CCACHE_USED ON)
else()
  set(RIGCHECK_CCACHE_USED OFF)
endif()
