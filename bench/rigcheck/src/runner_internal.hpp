// Helpers shared by the files of bench/rigcheck/src (runner.cpp, recover.cpp): not part of the
// tool's interface.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck::run_detail {

bool is_file(const std::string& p);
std::vector<std::string> split_ws(const std::string& s);
// The output file's rows and SHA-256 in its manifest row, once the benchmark has ended and its
// file is final (integrity.hpp: what report, compare and history verify).
void record_checksum(const std::string& dir, ManifestRow& m);
std::string join(const std::vector<std::string>& v);
// The words of a manifest command line (shell_quote's quoting undone, well enough for paths).
std::vector<std::string> command_words(const std::string& command);

}  // namespace rigcheck::run_detail
