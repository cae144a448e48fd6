// Writes a result CSV the way every benchmark binary does: rows appended to <stem>.csv.partial
// (flushed per row, so a killed run keeps what it measured), renamed to <stem>.csv at the end.
#pragma once
#include <fstream>
#include <string>

#include "rigcheck/schema.hpp"

namespace rigcheck {

class ResultWriter {
 public:
  // Opens final_path + ".partial" and writes the header; throws std::runtime_error.
  explicit ResultWriter(std::string final_path);
  void write(const ResultRow& r);
  // Closes the partial file and renames it to the final path; throws std::runtime_error.
  void finish();

 private:
  std::string final_, partial_;
  std::ofstream out_;
};

}  // namespace rigcheck
