# Before find_package(Torch): what LibTorch's CMake config (share/cmake/Caffe2/public/cuda.cmake)
# needs from a CUDA toolkit of 12.9 or newer, which has no libnvToolsExt (only the header-only
# nvtx3). Where that config cannot find its own NVTX3 headers it falls back to a target
# torch::nvtoolsext linking CUDA::nvToolsExt, a target CMake defines only when the library exists:
# the generate step then fails ("The link interface of target torch::nvtoolsext contains:
# CUDA::nvToolsExt but the target was not found"). So: USE_SYSTEM_NVTX, which makes it take the
# toolkit's nvtx3 headers, and a stand-in CUDA::nvToolsExt (an INTERFACE target over the nvtx3
# headers) for the fallback. Harmless with a CPU LibTorch or an older toolkit (each only where
# absent). Tested by tests/gpu/gpu_cmake/nvtx_shim.
if(NOT CUDAToolkit_FOUND)
  find_package(CUDAToolkit QUIET)
endif()
if(CUDAToolkit_FOUND)
  set(USE_SYSTEM_NVTX ON)
  if(NOT TARGET CUDA::nvtx3)
    add_library(CUDA::nvtx3 INTERFACE IMPORTED GLOBAL)
    target_include_directories(CUDA::nvtx3 SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
    target_link_libraries(CUDA::nvtx3 INTERFACE ${CMAKE_DL_LIBS})
  endif()
  if(NOT TARGET CUDA::nvToolsExt)
    add_library(CUDA::nvToolsExt INTERFACE IMPORTED GLOBAL)
    target_link_libraries(CUDA::nvToolsExt INTERFACE CUDA::nvtx3)
    set(RIGCHECK_NVTOOLSEXT_STAND_IN ON)
  endif()
endif()
