// Small CSV helpers shared by every writer and reader of the suite.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace rigcheck {

// An error in an input file: carries file and line so the message names them.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, long line, const std::string& reason);
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  long line_;
  std::string reason_;
};

// RFC 4180 quoting: quoted when the field holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);
std::string csv_line(const std::vector<std::string>& fields);
// A whole CSV file: the header line, then csv_line(fields(row)) for each row, every line ended.
template <class Rows, class Fields>
std::string format_csv(const std::string& header, const Rows& rows, Fields fields) {
  std::string s = header + "\n";
  for (const auto& r : rows) s += csv_line(fields(r)) + "\n";
  return s;
}
// The text on one line: every line break (\n or \r\n) becomes " | ". The suite's readers
// (fast-cpp-csv-parser) read a quoted field only within one line, so writers of files the suite
// reads back (result rows, the manifest) pass free text through this.
std::string one_line(const std::string& s);

// Writes all of s to fd, again after EINTR and short writes. Returns 0, or the errno that stopped it.
int write_all(int fd, const std::string& s);

// Writes `content` to path through path.tmp and rename(2): readers never see half a file.
void write_file_atomic(const std::string& path, const std::string& content);
// Writes `content` to a new file `path`, never replacing one: written whole to a temporary name
// beside it, then linked there (link(2) fails where a file appeared meanwhile), so a reader never sees
// half a file either. Throws InputError naming the path: "exists: never overwritten", or why not.
void write_new_file(const std::string& path, const std::string& content);

// Shortest text that reads back as the same double ("nan" never written: empty instead).
std::string format_double(double v);
// Strict: the whole text must be a finite number.
bool parse_double(const std::string& s, double& out);

// Reads a two-column CSV with the given header names (key,value) into pairs, strictly; `text`: the
// file's bytes when they are in memory (open_csv in fccp.hpp), `path` then only naming it in errors.
std::vector<std::pair<std::string, std::string>> read_key_value_csv(const std::string& path, const char* key_col,
                                                                    const char* value_col,
                                                                    const std::string* text = nullptr);

}  // namespace rigcheck
