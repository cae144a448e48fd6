#include "rigcheck/runfolder/needs.hpp"

#include "rigcheck/harness/split.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck {

NeedsResult evaluate_needs(const std::string& expr, const std::map<std::string, std::string>& facts) {
  NeedsResult res;
  std::vector<std::string> unmet;
  for (const std::string& term : split_fields(expr, ';')) {
    static const char* ops[] = {">=", "<=", "!=", ">", "<", "="};
    size_t pos = std::string::npos;
    std::string op;
    for (const char* o : ops) {
      size_t p = term.find(o);
      if (p != std::string::npos && p > 0) {
        pos = p;
        op = o;
        break;
      }
    }
    if (pos == std::string::npos) throw std::invalid_argument(fmt::format("needs term '{}' has no operator", term));
    std::string key = term.substr(0, pos), want = term.substr(pos + op.size());
    auto it = facts.find(key);
    std::string have = it == facts.end() ? "" : it->second;
    bool ok = false;
    if (op == "=" || op == "!=") {
      ok = (have == want) == (op == "=");
    } else {
      double h = 0, w = 0;
      if (!parse_double(want, w))
        throw std::invalid_argument(fmt::format("needs term '{}': '{}' is not a number", term, want));
      if (parse_double(have, h)) ok = op == ">=" ? h >= w : op == ">" ? h > w : op == "<=" ? h <= w : h < w;
    }
    if (!ok) unmet.push_back(fmt::format("{} (this machine: {})", term, have.empty() ? "unknown" : have));
  }
  for (size_t i = 0; i < unmet.size(); ++i) res.missing += (i ? "; " : "") + unmet[i];
  res.met = unmet.empty();
  return res;
}

std::string needs_syntax_error(const std::string& expr) {
  try {
    evaluate_needs(expr, {});  // the terms are checked whatever the facts
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

}  // namespace rigcheck
