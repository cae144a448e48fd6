#include "rigcheck/harness/result_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

ResultWriter::ResultWriter(std::string final_path) : final_(std::move(final_path)), partial_(final_ + ".partial") {
  fd_ = ::open(partial_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: cannot write: {}", partial_, std::strerror(errno)));
  append(result_header() + "\n");
}

ResultWriter::~ResultWriter() {
  if (fd_ >= 0) ::close(fd_);
}

// One write(2) per row, straight to the kernel: a SIGKILL loses no row that was written, and
// a row cut by a full disk is the last line, which readers of a .partial drop.
void ResultWriter::append(const std::string& text) {
  if (broken_) throw std::runtime_error(broken_msg_);
  if (int err = write_all(fd_, text)) {
    broken_ = true;
    broken_msg_ =
        fmt::format("{}: cannot write a result row: {} (the rows before it are kept)", partial_, std::strerror(err));
    throw std::runtime_error(broken_msg_);
  }
}

void ResultWriter::write(const ResultRow& r) {
  append(format_result_row(r) + "\n");
  written_.push_back(r);
}

void ResultWriter::finish() {
  if (broken_) throw std::runtime_error(broken_msg_);
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    throw std::runtime_error(fmt::format("{}: cannot flush: {}", partial_, std::strerror(errno)));
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) throw std::runtime_error(fmt::format("{}: cannot close: {}", partial_, std::strerror(errno)));
  // link + unlink, not rename: an existing result of that name is never replaced.
  if (::link(partial_.c_str(), final_.c_str()) != 0)
    throw std::runtime_error(fmt::format("{}: cannot rename to {}: {}", partial_, final_, std::strerror(errno)));
  ::unlink(partial_.c_str());
}

}  // namespace rigcheck
