# NCCL (no CMake config of its own): its header and library, looked for in
#  - NCCL_ROOT (variable or environment),
#  - the CUDA toolkit (RIGCHECK_NCCL_CUDA_ROOT, default the toolkit found, else /usr/local/cuda),
#  - the site-packages of the python3 on PATH: pip's nvidia-nccl-cu13 / -cu12 (what a PyTorch
#    wheel brings) put nccl.h and libnccl.so.2 in nvidia/nccl/{include,lib}, with no unversioned
#    libnccl.so, hence the name libnccl.so.2 besides nccl. RIGCHECK_PYTHON_SITE_PACKAGES (a list)
#    overrides the folders asked of python3.
# Sets NCCL_INCLUDE_DIR and NCCL_LIBRARY (cache). Tested by tests/gpu/gpu_cmake/find_nccl.
set(_nccl_roots)
if(NCCL_ROOT)
  list(APPEND _nccl_roots ${NCCL_ROOT})
endif()
if(DEFINED ENV{NCCL_ROOT})
  list(APPEND _nccl_roots $ENV{NCCL_ROOT})
endif()
if(NOT DEFINED RIGCHECK_NCCL_CUDA_ROOT)
  if(CUDAToolkit_LIBRARY_ROOT)
    set(RIGCHECK_NCCL_CUDA_ROOT ${CUDAToolkit_LIBRARY_ROOT})
  else()
    set(RIGCHECK_NCCL_CUDA_ROOT /usr/local/cuda)
  endif()
endif()
list(APPEND _nccl_roots ${RIGCHECK_NCCL_CUDA_ROOT})
if(NOT DEFINED RIGCHECK_PYTHON_SITE_PACKAGES)
  find_program(RIGCHECK_PYTHON3 python3)
  set(_sp "")
  if(RIGCHECK_PYTHON3)
    execute_process(COMMAND ${RIGCHECK_PYTHON3} -c
                            "import site; print(';'.join(site.getsitepackages() + [site.getusersitepackages()]))"
                    OUTPUT_VARIABLE _sp OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET TIMEOUT 30)
  endif()
  set(RIGCHECK_PYTHON_SITE_PACKAGES "${_sp}" CACHE STRING "site-packages folders searched for pip's NCCL (nvidia/nccl)")
endif()
foreach(_sp ${RIGCHECK_PYTHON_SITE_PACKAGES})
  list(APPEND _nccl_roots ${_sp}/nvidia/nccl ${_sp}/nvidia/cu13 ${_sp}/nvidia/cu12)
endforeach()
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_roots} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_roots} PATH_SUFFIXES lib lib64 NAMES_PER_DIR)
unset(_nccl_roots)
unset(_sp)
