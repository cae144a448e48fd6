// Writes a result CSV the way every benchmark binary does: rows go to <stem>.csv.partial,
// flushed per row (a killed run keeps what it measured), renamed to <stem>.csv when the run
// completes. Shared by the Google Benchmark harness and the binaries with their own main (io/).
#pragma once
#include <fstream>
#include <string>
#include <vector>

#include "rigcheck/schema.hpp"

namespace rigcheck {

class ResultWriter {
 public:
  // Throws std::runtime_error when the .partial file cannot be created.
  explicit ResultWriter(std::string final_path);
  void write(const ResultRow& r);
  // Closes and renames .partial to the final name; throws std::runtime_error on failure.
  void finish();
  const std::string& final_path() const { return final_; }
  // Every row written so far (for register_derived_rows, harness.hpp).
  const std::vector<ResultRow>& written() const { return written_; }
  const std::string& partial_path() const { return partial_; }

 private:
  std::string final_, partial_;
  std::vector<ResultRow> written_;
  std::ofstream out_;
};

}  // namespace rigcheck
