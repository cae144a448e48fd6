// CSV records kept verbatim and the run identity (records.hpp).
#include "rigcheck/store/records.hpp"

#include "rigcheck/harness/sha256.hpp"

namespace rigcheck {

std::vector<std::string> split_csv_records(const std::string& text) {
  std::vector<std::string> out;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"')
      quoted = !quoted;  // "" inside quotes toggles twice: still quoted
    else if (text[i] == '\n' && !quoted) {
      out.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::vector<std::string> csv_record_fields(const std::string& record) {
  std::string r = record;
  if (!r.empty() && r.back() == '\n') r.pop_back();
  if (!r.empty() && r.back() == '\r') r.pop_back();
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (quoted) {
      if (c == '"' && i + 1 < r.size() && r[i + 1] == '"')
        fields.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string run_identity(const std::string& folder_name, const std::string& hostname, const std::string& started_utc) {
  Sha256 h;
  h.update("folder=" + folder_name + "\nhost=" + hostname + "\nstarted_utc=" + started_utc + "\n");
  return h.hex_digest();
}

}  // namespace rigcheck
