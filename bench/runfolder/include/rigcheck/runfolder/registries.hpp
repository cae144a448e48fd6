// The registries in data/ that the evaluators and the report read beside a run: vendors'
// datasheets, the zoo's fully connected layers, the guide's storage classes. Each reads its file
// strictly; throws InputError naming file and line.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

struct DatasheetRow {
  std::string product, property, value, source;
};
std::vector<DatasheetRow> read_datasheets(const std::string& path);

// The fully connected layers of the zoo's models (data/fc_layers.csv), for CPU-4.
struct FcLayer {
  std::string model, layer, source;
  double in = 0, out = 0;
};
std::vector<FcLayer> read_fc_layers(const std::string& path);

// The guide's table of storage classes, section 4.2 (data/guide_storage_classes.csv), for IO-2.
struct GuideClass {
  std::string cls, kind, section, text_zh;
  double gbps = 0, iops = 0, tol_pct = 0;
};
std::vector<GuideClass> read_guide_classes(const std::string& path);

}  // namespace rigcheck
