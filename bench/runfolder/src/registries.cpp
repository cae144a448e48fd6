// The registries read beside a run (registries.hpp): datasheets, the zoo's FC layers, the guide's
// storage classes. Strict readers: InputError with file and line.
#include "rigcheck/runfolder/registries.hpp"

#include <array>
#include <string>
#include <vector>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"

namespace rigcheck {

std::vector<DatasheetRow> read_datasheets(const std::string& path) {
  std::vector<DatasheetRow> out;
  for_each_csv_row<4>(path, io::ignore_no_column, {"product", "property", "value", "source"},
                      [&](long, const std::array<std::string, 4>& f) {
                        out.push_back({f[0], f[1], f[2], f[3]});
                      });
  return out;
}

std::vector<FcLayer> read_fc_layers(const std::string& path) {
  std::vector<FcLayer> out;
  with_csv_errors(path, [&] {
    CsvReader<5> in(path);
    in.read_header(io::ignore_no_column, "model", "layer", "in", "out", "source");
    FcLayer l;
    std::string a, b;
    while (in.read_row(l.model, l.layer, a, b, l.source)) {
      if (!parse_double(a, l.in) || !parse_double(b, l.out) || l.in <= 0 || l.out <= 0)
        throw InputError(path, static_cast<long>(in.get_file_line()), "in and out must be positive numbers");
      out.push_back(l);
    }
  });
  return out;
}

std::vector<GuideClass> read_guide_classes(const std::string& path) {
  std::vector<GuideClass> out;
  with_csv_errors(path, [&] {
    ::io::CSVReader<7, ::io::trim_chars<' '>, ::io::double_quote_escape<',', '"'>> in(path);
    in.read_header(::io::ignore_no_column, "class", "seq_read_gbps", "rand_read_iops", "kind", "tolerance_pct",
                   "section", "text_zh");
    GuideClass g;
    std::string a, b, t;
    while (in.read_row(g.cls, a, b, g.kind, t, g.section, g.text_zh)) {
      long line = static_cast<long>(in.get_file_line());
      if (!parse_double(a, g.gbps) || !parse_double(b, g.iops) || !parse_double(t, g.tol_pct))
        throw InputError(path, line, "seq_read_gbps, rand_read_iops and tolerance_pct must be numbers");
      if (g.kind != "approx" && g.kind != "at_least") throw InputError(path, line, "kind must be approx or at_least");
      out.push_back(g);
    }
  });
  return out;
}

}  // namespace rigcheck
