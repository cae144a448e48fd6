// Compiles against the NVTX3 headers through torch::nvtoolsext -> CUDA::nvToolsExt (the stand-in).
#include <nvtx3/nvToolsExt.h>

int main() {
  nvtxRangePushA("probe");
  nvtxRangePop();
  return 0;
}
