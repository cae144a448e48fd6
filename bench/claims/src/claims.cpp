// The claims registry (data/claims.csv), read with fast-cpp-csv-parser.
#include <climits>
#include <cmath>
#include <array>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/runfolder/needs.hpp"
#include "rigcheck/claims/claim.hpp"

namespace rigcheck {

namespace {

double optional_number(const std::string& path, long line, const std::string& col, const std::string& s) {
  if (s.empty()) return kNaN;
  double v;
  if (!parse_double(s, v)) throw InputError(path, line, fmt::format("{} '{}' is not a number", col, s));
  return v;
}
}  // namespace

std::vector<Claim> read_claims(const std::string& path) {
  std::vector<Claim> out;
  for_each_csv_row<13>(path, io::ignore_no_column,
                       {"id", "section", "text_zh", "text_en", "guide_figure", "kind", "low", "high", "unit",
                        "tolerance", "needs", "needs_text", "guide_error"},
                       [&](long line, const std::array<std::string, 13>& f) {
                         Claim c{f[0], f[1], f[2],  f[3],  f[4], ClaimKind::fact, kNaN, kNaN,
                                 0,    f[8], f[10], f[11], f[12]};
                         c.low = optional_number(path, line, "low", f[6]);
                         c.high = optional_number(path, line, "high", f[7]);
                         c.tolerance = f[9].empty() ? 0 : optional_number(path, line, "tolerance", f[9]);
                         std::optional<ClaimKind> k = claim_kind_from_string(f[5]);
                         if (!k) throw InputError(path, line, fmt::format("unknown kind '{}'", f[5]));
                         c.kind = *k;
                         if (c.id.empty()) throw InputError(path, line, "empty claim id");
                         if (std::string why = needs_syntax_error(c.needs); !why.empty())
                           throw InputError(path, line, "needs: " + why);
                         for (const Claim& o : out)
                           if (o.id == c.id)
                             throw InputError(path, line, fmt::format("claim id {} appears twice", c.id));
                         out.push_back(c);
                       });
  return out;
}

}  // namespace rigcheck
