#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include <fmt/format.h>

#include "rigcheck/harness/sha256.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

const char* to_string(FileState s) {
  return enum_name(s, {{FileState::verified, "verified"},
                       {FileState::not_verifiable, "not verifiable"},
                       {FileState::broken, "broken"}});
}

bool RunFiles::has(const std::string& name) const {
  if (in_memory) return files.count(name) > 0;
  struct stat sb;
  return ::stat(path(name).c_str(), &sb) == 0;
}

const std::string* RunFiles::text(const std::string& name) const {
  if (!in_memory) return nullptr;
  auto it = files.find(name);
  return it == files.end() ? nullptr : &it->second;
}

FileDigest digest_bytes(const std::string& bytes, const std::string& sha256) {
  FileDigest d;
  d.exists = true;
  d.size = static_cast<long long>(bytes.size());
  d.ends_with_newline = !bytes.empty() && bytes.back() == '\n';
  const long lines = static_cast<long>(std::count(bytes.begin(), bytes.end(), '\n'));
  d.rows = lines > 0 ? lines - 1 : 0;  // the header is the first line
  d.sha256 = sha256.empty() ? sha256_hex(bytes) : sha256;
  return d;
}

FileDigest digest_file(const std::string& path) {
  FileDigest d;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return d;
  struct stat sb;
  if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd);
    return d;
  }
  Sha256 h;
  char buf[1 << 16];
  long lines = 0;
  char last = 0;
  long long size = 0;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return d;
    }
    if (n == 0) break;
    h.update(buf, static_cast<size_t>(n));
    lines += std::count(buf, buf + n, '\n');
    last = buf[n - 1];
    size += n;
  }
  ::close(fd);
  d.exists = true;
  d.size = size;
  d.ends_with_newline = size > 0 && last == '\n';
  d.rows = lines > 0 ? lines - 1 : 0;  // the header is the first line
  d.sha256 = h.hex_digest();
  return d;
}

bool IntegrityReport::ok() const { return count(FileState::broken) == 0; }

size_t IntegrityReport::count(FileState s) const {
  return static_cast<size_t>(
      std::count_if(files.begin(), files.end(), [&](const FileIntegrity& f) { return f.state == s; }));
}

std::string IntegrityReport::summary() const {
  if (files.empty()) return "no result files to verify";
  std::vector<std::string> parts;
  if (size_t n = count(FileState::verified))
    parts.push_back(fmt::format("{} of {} result files verified (rows and SHA-256 as the manifest recorded them)", n,
                                files.size()));
  // Not verifiable, grouped by reason: "not verifiable (written before checksums): a.csv, b.csv".
  std::map<std::string, std::string> by_why;
  for (const FileIntegrity& f : files)
    if (f.state == FileState::not_verifiable) by_why[f.why] += (by_why[f.why].empty() ? "" : ", ") + f.file;
  for (auto& [why, names] : by_why) {
    const size_t n = static_cast<size_t>(std::count(names.begin(), names.end(), ',')) + 1;
    parts.push_back(n <= 4 ? fmt::format("{}: {}", why, names)
                           : fmt::format("{}: {} result files{}", why, n, n == files.size() ? " (all)" : ""));
  }
  for (const FileIntegrity& f : files)
    if (f.state == FileState::broken) parts.push_back(fmt::format("{}: {}", f.file, f.why));
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

namespace {
bool own_file(const std::string& n) {  // the folder's own CSVs, not results
  return n == "inventory.csv" || n == "manifest.csv" || n == "verdicts.csv" || n == "concurrent_runs.csv";
}
bool csv_name(const std::string& n) { return n.size() >= 5 && n.compare(n.size() - 4, 4, ".csv") == 0; }
}  // namespace

std::vector<std::string> result_file_names(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (csv_name(n) && !own_file(n)) files.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> result_file_names(const RunFiles& run) {
  if (!run.in_memory) return result_file_names(run.dir);
  std::vector<std::string> files;  // the folder's own files: none below it (logs/...)
  for (const auto& [n, text] : run.files)
    if (n.find('/') == std::string::npos && csv_name(n) && !own_file(n)) files.push_back(n);
  return files;  // sorted: a map's order is std::string's, as std::sort's
}

namespace {
std::string short_hash(const std::string& h) { return h.size() > 16 ? h.substr(0, 16) + "..." : h; }

// What differs between a file and what the manifest recorded; empty when nothing does.
std::string difference(const FileDigest& d, const ManifestRow* m) {
  if (d.size == 0) return "empty: not even a header line (cut short or emptied after the run)";
  if (!d.ends_with_newline) {
    std::string s =
        fmt::format("cut: it ends in the middle of a row (no newline at its end; {} whole rows before it", d.rows);
    if (m && m->rows >= 0) s += fmt::format(", the manifest recorded {}", m->rows);
    return s + ")";
  }
  if (!m || m->sha256.empty()) return "";
  if (d.rows != m->rows)
    return fmt::format("{} rows, the manifest recorded {}: rows were {} after the run", d.rows, m->rows,
                       d.rows < m->rows ? "removed" : "added");
  if (d.sha256 != m->sha256)
    return fmt::format(
        "edited after the run: the {} rows the manifest recorded are there, but the content differs "
        "(SHA-256 {}, the manifest recorded {})",
        d.rows, short_hash(d.sha256), short_hash(m->sha256));
  return "";
}
}  // namespace

IntegrityReport verify_run_folder(const std::string& dir) { return verify_run_folder(RunFiles{dir, false, {}, {}}); }

IntegrityReport verify_run_folder(const RunFiles& run) {
  IntegrityReport rep;
  rep.dir = run.dir;
  const bool has_manifest = run.has("manifest.csv");
  std::vector<ManifestRow> manifest;
  if (has_manifest) manifest = read_manifest(run.path("manifest.csv"), run.text("manifest.csv"));
  // The manifest row that names each output file; a benchmark running or pending has none yet.
  std::map<std::string, const ManifestRow*> named;
  bool any_checksum = false;
  for (const ManifestRow& m : manifest) {
    if (m.output.empty() || m.status == "running" || m.status == "pending") continue;
    named.emplace(m.output, &m);
    any_checksum = any_checksum || !m.sha256.empty();
  }
  std::vector<std::string> present = result_file_names(run);
  std::vector<std::string> names = present;
  for (auto& [f, m] : named)
    if (!std::binary_search(present.begin(), present.end(), f)) names.push_back(f);
  std::sort(names.begin(), names.end());
  for (const std::string& f : names) {
    FileIntegrity fi;
    fi.file = f;
    auto it = named.find(f);
    const ManifestRow* m = it == named.end() ? nullptr : it->second;
    const std::string* text = run.text(f);
    const auto known = run.sha256.find(f);
    FileDigest d = !run.in_memory ? digest_file(run.path(f))
                   : text         ? digest_bytes(*text, known == run.sha256.end() ? "" : known->second)
                                  : FileDigest{};
    if (!d.exists) {
      fi.state = FileState::broken;
      fi.why = m && !m->sha256.empty() ? fmt::format("missing: the manifest says {} wrote it ({} rows, SHA-256 {})",
                                                     m->benchmark, m->rows, short_hash(m->sha256))
                                       : fmt::format("missing: the manifest says {} wrote it", m ? m->benchmark : f);
    } else if (std::string diff = difference(d, m); !diff.empty()) {
      fi.state = FileState::broken;
      fi.why = diff;
    } else if (!has_manifest) {
      fi.why = "not verifiable (no manifest.csv in the folder)";
    } else if (!m) {
      if (any_checksum) {
        fi.state = FileState::broken;
        fi.why = "not in the manifest: no benchmark of this run wrote it (added to the folder after the run?)";
      } else {
        fi.why = "not verifiable (not named in manifest.csv)";
      }
    } else if (m->sha256.empty()) {
      fi.why = "not verifiable (written before checksums)";
    } else {
      fi.state = FileState::verified;
    }
    rep.files.push_back(fi);
  }
  return rep;
}

}  // namespace rigcheck
