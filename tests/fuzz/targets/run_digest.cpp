// A run's digest as the results store keeps it (bench/compare/src/run_digest.cpp; docs/store.md,
// "Digests"): a store is outside data (a shared PostgreSQL, a file copied from elsewhere), and the
// SHA-256 kept beside a digest can be edited with it. decode_run_digest must refuse what it cannot
// read with a message, never crash or allocate beyond its input; what it accepts, encoded and read
// again, must give the same bytes each time.
#include <stdexcept>

#include "fuzz.hpp"
#include "rigcheck/compare/run_digest.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(run_digest) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  LoadedRun r;
  try {
    r = decode_run_digest(body, "store run 1/fuzz");
  } catch (const std::runtime_error& e) {
    check(e.what()[0] != '\0', "refusal without a message");
    return 0;
  }
  const std::string once = encode_run_digest(r);
  std::string twice;
  try {
    twice = encode_run_digest(decode_run_digest(once, "store run 1/fuzz"));
  } catch (const std::exception& e) {
    check(false, std::string("its own encoding of an accepted digest is refused: ") + e.what());
  }
  check(twice == once, "an accepted digest, encoded and read again, gives other bytes");
  return 0;
}
