// Writes a result CSV the way every benchmark binary does: rows go to <stem>.csv.partial,
// one write(2) per row (a killed run keeps what it measured; a full disk gives an error naming the file), renamed to
// <stem>.csv when the run completes. Shared by the Google Benchmark harness and the binaries with their own main (io/).
#pragma once
#include <string>
#include <vector>

#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

class ResultWriter {
 public:
  // Throws std::runtime_error when the .partial file cannot be created.
  explicit ResultWriter(std::string final_path);
  ~ResultWriter();
  ResultWriter(const ResultWriter&) = delete;
  ResultWriter& operator=(const ResultWriter&) = delete;
  // Throws std::runtime_error naming the file and the cause (ENOSPC, EFBIG) when the row cannot
  // be written; every later write and finish() then throw too.
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
  void append(const std::string& text);
  int fd_ = -1;
  bool broken_ = false;
  std::string broken_msg_;
};

}  // namespace rigcheck
