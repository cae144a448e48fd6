// fio's JSON output file (io_fio, io_dataloader): parse_fio_json for a read and a write job. Its
// only documented refusal is FioError, which io_fio catches per case (the case fails, the sweep
// goes on); anything else would end the whole benchmark.
#include "fio_driver.hpp"
#include "fuzz.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(fio_json) {
  const std::string path = write_input(data, size, "fio.json");
  for (const char* direction : {"read", "write"})
    refused_only_with<rigcheck::io::FioError>([&] { rigcheck::io::parse_fio_json(path, direction); });
  return 0;
}
