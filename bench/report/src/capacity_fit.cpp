// The lines of rigcheck capacity (capacity.hpp): the least-squares fit, the largest batch under a
// line, and the depth probes (DepthProbe): a transformer cut to a few of its layers at one batch
// near the limit (memory_host's ".../layersN" cases, params layers and model_layers), its whole
// peak there extrapolated in depth.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

LinearFit fit_linear(const std::vector<std::pair<double, double>>& xy) {
  std::set<double> xs;
  for (auto& p : xy) xs.insert(p.first);
  if (xs.size() < 2) throw std::invalid_argument("fit_linear: fewer than two distinct x values");
  const double n = static_cast<double>(xy.size());
  double sx = 0, sy = 0;
  for (auto& [x, y] : xy) sx += x, sy += y;
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (auto& [x, y] : xy) sxx += (x - mx) * (x - mx), sxy += (x - mx) * (y - my), syy += (y - my) * (y - my);
  LinearFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.points = static_cast<int>(xs.size());
  double ssr = 0;
  for (auto& [x, y] : xy) ssr += (y - f.at(x)) * (y - f.at(x));
  f.r2 = syy > 0 ? 1 - ssr / syy : 1;
  return f;
}

long largest_batch(const LinearFit& fit, double usable) {
  if (fit.at(1) > usable) return 0;
  if (!(fit.slope > 0)) return -1;
  // A fit of hostile or degenerate figures (a NaN, an infinite intercept) draws no limit rather
  // than a cast out of range.
  const double q = std::floor((usable - fit.intercept) / fit.slope);
  if (!std::isfinite(q)) return -1;
  long b = static_cast<long>(std::clamp(q, 1.0, 1e12));
  while (b > 1 && fit.at(static_cast<double>(b)) > usable) --b;  // rounding
  return std::max(1L, b);
}

bool is_depth_probe(const ResultRow& r) { return std::atoi(param_value(r.params, "layers", "0").c_str()) > 0; }

DepthProbe depth_probe(const RunData& run, const std::string& model, int seq, int model_layers, int above_batch) {
  DepthProbe p;
  std::map<int, std::map<int, std::vector<const ResultRow*>>> by;  // batch -> layers -> peak rows
  for (auto& [c, rows] : run.select(names::kHostMemoryTraining, names::kPeakRssBytes, {{"model", model}}))
    for (const ResultRow* r : rows)
      if (is_depth_probe(*r) && std::atoi(param_value(r->params, "seq", "0").c_str()) == seq)
        by[std::atoi(param_value(r->params, "batch").c_str())][std::atoi(param_value(r->params, "layers").c_str())]
            .push_back(r);
  for (auto& [b, by_layers] : by) {  // ascending: the largest batch probed at two depths or more wins
    if (b <= above_batch || by_layers.size() < 2 || model_layers < 2) continue;
    std::vector<std::pair<double, double>> xy;
    std::map<int, double> med;
    for (auto& [l, rows] : by_layers) {
      med[l] = measure(rows).value;
      xy.push_back({double(l), med[l]});
    }
    const LinearFit f = fit_linear(xy);
    p.batch = b;
    p.model_layers = model_layers;
    p.peak_by_layers = med;
    p.per_layer = f.slope;
    p.whole = f.at(model_layers);
  }
  return p;
}

}  // namespace rigcheck
