#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/split.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

namespace rigcheck {

InputError::InputError(const std::string& file, long line, const std::string& reason)
    : std::runtime_error(line > 0 ? fmt::format("{}:{}: {}", file, line, reason) : fmt::format("{}: {}", file, reason)),
      file_(file),
      line_(line),
      reason_(reason) {}

std::string csv_field(const std::string& s) {
  // A NUL byte ends the reader's line in the middle of the field (fast-cpp-csv-parser reads C
  // strings): a child's output can hold some (Open MPI 5's does), and a reason quotes it. Dropped.
  if (s.find('\0') != std::string::npos) {
    std::string t;
    for (char c : s)
      if (c != '\0') t += c;
    return csv_field(t);
  }
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  return out;
}

std::string one_line(const std::string& s) {
  if (s.find('\n') == std::string::npos) return s;
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') continue;  // \r\n: one break
    if (s[i] == '\n')
      out += " | ";
    else
      out += s[i];
  }
  return out;
}

int write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    off += static_cast<size_t>(n);
  }
  return 0;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  // Written whole to <path>.tmp, flushed to the disk, then renamed: a reader sees the old file or
  // the new one, never a part. On any failure (a full disk: ENOSPC; a file-size limit: EFBIG) the
  // .tmp is removed, so nothing that looks like a result is left, and the error names the file.
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
  int err = write_all(fd, content);
  if (!err && ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: write failed: {}", tmp, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: cannot rename to {}: {}", tmp, path, std::strerror(err)));
  }
}

void write_new_file(const std::string& path, const std::string& content) {
  if (::access(path.c_str(), F_OK) == 0) throw InputError(path, 0, "exists: never overwritten");
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(tmp, 0, std::string("cannot create: ") + std::strerror(errno));
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::link(tmp.c_str(), path.c_str()) != 0) err = errno;
  ::unlink(tmp.c_str());
  if (err == EEXIST) throw InputError(path, 0, "exists: never overwritten");
  if (err != 0) throw InputError(path, 0, std::string("cannot write: ") + std::strerror(err));
}

std::string format_double(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{}", v);
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  const char* b = s.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(b, &end);
  if (end != b + s.size() || errno == ERANGE || !std::isfinite(v)) return false;
  out = v;
  return true;
}

std::vector<std::pair<std::string, std::string>> read_key_value_csv(const std::string& path, const char* key_col,
                                                                    const char* value_col, const std::string* text) {
  std::vector<std::pair<std::string, std::string>> out;
  with_csv_errors(path, [&] {
    std::optional<CsvReader<2>> slot;
    CsvReader<2>& in = open_csv(slot, path, text);
    in.read_header(io::ignore_no_column, key_col, value_col);
    std::string k, v;
    while (in.read_row(k, v)) out.emplace_back(k, v);
  });
  return out;
}

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (size_t b = 0, e; b < s.size(); b = e + 1) {
    e = s.find(sep, b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
  }
  return out;
}

}  // namespace rigcheck
