// The other registries under data/, and `compare --prices`: the same bytes go to every
// reader (each one reads only the file with its own header, so mutations of one registry's seed
// exercise its reader while the others refuse), then to what consumes the accepted rows:
//   datasheets.csv          read_datasheets -> gpu_datasheets, device-name lookup, num, cite
//   cpu_caches.csv          read_cpu_cache_datasheets -> l3_implausible, cpu_cache_datasheet
//   confounders.csv         read_confounders
//   plots.csv               read_plot_specs -> plot_script over a fixture run
//   fc_layers.csv           read_fc_layers
//   guide_storage_classes   read_guide_classes
//   prices (compare)        read_prices
//   params.csv, metrics.csv read_case_rules (which params are requested, the headline metrics)
//   noise.csv (compare)     read_noise_csv -> the machine's typical noise, a case's lookup
//   renames.csv             read_renames -> apply_renames to a fixture run's rows
//   run_to_run_prior.csv    prediction::prior_of -> the run-to-run sd of a predicted scaling figure
#include <cmath>

#include "fuzz.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/claims/gpu_datasheet.hpp"
#include "rigcheck/claims/scaling_prediction.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/runfolder/renames.hpp"
#include "rigcheck/report/report_util.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

namespace {
// A small real run (tests/fixtures/runs/good) for plot_script, read once.
const RunData& fixture_run() {
  static const RunData run = read_run(std::string(RIGCHECK_FUZZ_FIXTURES) + "/runs/good");
  return run;
}
}  // namespace

RIGCHECK_FUZZ_TARGET(registries) {
  const std::string path = write_input(data, size, "registry.csv");

  std::vector<DatasheetRow> rows;
  if (!refused_with_input_error(path, [&] { rows = read_datasheets(path); })) {
    const std::vector<GpuDatasheet> sheets = gpu_datasheets(rows);
    for (const char* name : {"NVIDIA H200", "NVIDIA GeForce RTX 4090", "Tesla T4", ""})
      if (const GpuDatasheet* s = find_gpu_datasheet(sheets, name))
        for (const auto& [prop, row] : s->props) {
          s->num(prop);
          s->cite(prop);
        }
  }

  std::vector<CpuCacheDatasheet> caches;
  if (!refused_with_input_error(path, [&] { caches = read_cpu_cache_datasheets(path); })) {
    for (const CpuCacheDatasheet& d : caches) {
      l3_implausible(d.l3_instance_bytes, d.vendor, caches);
      cpu_cache_datasheet(d.vendor, d.family, d.model_first, caches);
    }
  }

  refused_with_input_error(path, [&] { read_confounders(path); });

  std::vector<PlotSpec> specs;
  if (!refused_with_input_error(path, [&] { specs = read_plot_specs(path); })) {
    const std::string sheets = std::string(RIGCHECK_FUZZ_DATA) + "/datasheets.csv";
    for (const PlotSpec& s : specs) plot_script(s, {{"fixture", &fixture_run()}}, sheets);
  }

  std::vector<FcLayer> layers;
  if (!refused_with_input_error(path, [&] { layers = read_fc_layers(path); }))
    for (const FcLayer& l : layers) check(l.in > 0 && l.out > 0, "accepted a layer without positive sizes");

  refused_with_input_error(path, [&] { read_guide_classes(path); });
  refused_with_input_error(path, [&] { read_prices(path); });
  Renames renames;
  if (!refused_with_input_error(path, [&] { renames = read_renames(path); })) {
    std::vector<ResultRow> rows = fixture_run().results;
    check(apply_renames(renames, rows) <= rows.size(), "renamed more rows than there are");
  }

  const std::string data_dir = RIGCHECK_FUZZ_DATA;
  refused_with_input_error(path,
                           [&] { read_case_rules(path, data_dir + "/metrics.csv", data_dir + "/benchmarks.csv"); });
  refused_with_input_error(path,
                           [&] { read_case_rules(data_dir + "/params.csv", path, data_dir + "/benchmarks.csv"); });
  NoiseProfile profile;
  if (!refused_with_input_error(path, [&] { profile = read_noise_csv(path); })) {
    check(profile.typical.known() && profile.typical.sd >= 0, "a noise profile without a typical noise");
    for (const auto& [key, n] : profile.noise) check(n.df >= 1 && n.sd >= 0, "a noise entry of fewer than two runs");
  }
  prediction::RunToRun prior;
  if (!refused_with_input_error(path,
                                [&] { prior = prediction::prior_of(fixture_run(), path, "e2_resnet50_train_step"); }))
    check(std::isfinite(prior.sd) && prior.sd >= 0 && prior.df >= 1,
          "a run-to-run prior without a finite sd of two or more runs");
  return 0;
}
