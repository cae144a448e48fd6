// fast-cpp-csv-parser, included once here: its strncpy of file names trips GCC's
// -Wstringop-truncation in our translation units, a false alarm in a system header.
// Also the one place that turns its errors into InputError (file, line, reason).
#pragma once
#if defined(__GNUC__) && !defined(__clang__)  // clang has no such warning (tests/fuzz builds with it)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
#else
#include <libfccp/csv.h>
#endif

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

// fccp's error as InputError: the line it names (header problems: line 1; a file that cannot be
// opened: none), a plain reason, and `hint` appended to the reason when given.
[[noreturn]] inline void throw_csv_error(const std::string& path, const io::error::base& e,
                                         const std::string& hint = "") {
  if (dynamic_cast<const io::error::can_not_open_file*>(&e)) throw InputError(path, 0, "cannot open file");
  long line = 1;
  if (auto* wl = dynamic_cast<const io::error::with_file_line*>(&e); wl && wl->file_line > 0) line = wl->file_line;
  if (dynamic_cast<const io::error::header_missing*>(&e) ||
      dynamic_cast<const io::error::missing_column_in_header*>(&e) ||
      dynamic_cast<const io::error::extra_column_in_header*>(&e) ||
      dynamic_cast<const io::error::duplicated_column_in_header*>(&e))
    line = 1;
  std::string why = e.what();
  if (dynamic_cast<const io::error::too_few_columns*>(&e)) why = "too few columns";
  if (dynamic_cast<const io::error::too_many_columns*>(&e)) why = "too many columns";
  throw InputError(path, line, hint.empty() ? why : why + " " + hint);
}

// Runs body (which reads `path` with fccp), translating fccp's errors; InputError passes through.
template <typename F>
void with_csv_errors(const std::string& path, F body, const std::string& hint = "") {
  try {
    body();
  } catch (const InputError&) {
    throw;
  } catch (const io::error::base& e) {
    throw_csv_error(path, e, hint);
  }
}

// The reason fccp gives for a missing column, for the columns checked after an optional tail.
inline std::string fmt_missing_column(const char* name) {
  return std::string("Missing column \"") + name + "\" in header";
}

// fccp's reader as the suite reads every CSV: fields trimmed, quotes as RFC 4180 has them.
template <unsigned N>
using CsvReader = io::CSVReader<N, io::trim_chars<>, io::double_quote_escape<',', '"'>>;

// A reader of the file `path`, made in `slot`; or, when `text` is given, of those bytes in memory
// (a run read from the results store: bench/store), `path` then only naming the file in errors.
// The same parser either way: fccp's line reader takes a file or a buffer.
template <unsigned N>
CsvReader<N>& open_csv(std::optional<CsvReader<N>>& slot, const std::string& path, const std::string* text) {
  if (text) return slot.emplace(path, text->data(), text->data() + text->size());
  return slot.emplace(path);
}

// Every row of `path` with the named columns (in any order; other columns as `policy` says), given
// to `row(line, cells)` as strings, cells in the order of `names`; fccp's errors become InputError
// naming the file and line (`hint` added to the reason), and an InputError `row` throws passes.
// `required` < N: the columns after the first `required` may be missing (a file of an older
// version without them): their cells are then empty. `text`: the file's bytes in memory (open_csv).
template <unsigned N, typename F>
void for_each_csv_row(const std::string& path, io::ignore_column policy, const std::array<const char*, N>& names, F row,
                      const std::string& hint = "", unsigned required = N, const std::string* text = nullptr) {
  with_csv_errors(
      path,
      [&] {
        std::optional<CsvReader<N>> slot;
        CsvReader<N>& in = open_csv(slot, path, text);
        const io::ignore_column p = required < N ? policy | io::ignore_missing_column : policy;
        std::apply([&](auto... n) { in.read_header(p, n...); }, names);
        if (required < N)  // the columns before the optional tail are still required
          for (unsigned i = 0; i < required; ++i)
            if (!in.has_column(names[i])) throw InputError(path, 1, fmt_missing_column(names[i]));
        std::array<std::string, N> cells;
        while (std::apply([&](auto&... c) { return in.read_row(c...); }, cells))
          row(static_cast<long>(in.get_file_line()), cells);
      },
      hint);
}

}  // namespace rigcheck
