#include "rigcheck/result_writer.hpp"

#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

namespace rigcheck {

ResultWriter::ResultWriter(std::string final_path)
    : final_(std::move(final_path)), partial_(final_ + ".partial") {
  out_.open(partial_, std::ios::trunc);
  if (!out_) throw std::runtime_error(fmt::format("{}: cannot write", partial_));
  out_ << result_header() << '\n' << std::flush;
}

void ResultWriter::write(const ResultRow& r) {
  out_ << format_result_row(r) << '\n' << std::flush;
  written_.push_back(r);
}

void ResultWriter::finish() {
  out_.close();
  if (std::rename(partial_.c_str(), final_.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: cannot rename to {}", partial_, final_));
}

}  // namespace rigcheck
