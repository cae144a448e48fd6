// Small helpers the runner and the recovery of a dead run share (runner_internal.hpp).
#include <sys/stat.h>

#include <sstream>
#include <string>
#include <vector>

#include "rigcheck/runfolder/integrity.hpp"
#include "runner_internal.hpp"

namespace rigcheck::run_detail {

bool is_file(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The output file's rows and SHA-256 in its manifest row, once the benchmark has ended and its
// file is final (integrity.hpp: what report, compare and history verify).
void record_checksum(const std::string& dir, ManifestRow& m) {
  m.rows = -1;
  m.sha256.clear();
  if (m.output.empty()) return;
  FileDigest d = digest_file(dir + "/" + m.output);
  if (!d.exists) return;
  m.rows = d.rows;
  m.sha256 = d.sha256;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The words of a manifest command line (shell_quote's quoting undone, well enough for paths).
std::vector<std::string> command_words(const std::string& command) {
  std::vector<std::string> out = split_ws(command);
  for (std::string& w : out)
    if (w.size() >= 2 && w.front() == '\'' && w.back() == '\'') w = w.substr(1, w.size() - 2);
  return out;
}

}  // namespace rigcheck::run_detail
