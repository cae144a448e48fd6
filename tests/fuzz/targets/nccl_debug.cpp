// NCCL's NCCL_DEBUG=INFO log (comm_allreduce_nccl reads the transport NCCL chose from it):
// parse_nccl_debug and the two texts made of its result. It never refuses: any text gives a
// (possibly empty) answer.
#include "comm_common.hpp"
#include "fuzz.hpp"

using namespace rigcheck::comm;

RIGCHECK_FUZZ_TARGET(nccl_debug) {
  const NcclTransport t = parse_nccl_debug(std::string(reinterpret_cast<const char*>(data), size));
  t.kinds();
  t.summary();
  return 0;
}
