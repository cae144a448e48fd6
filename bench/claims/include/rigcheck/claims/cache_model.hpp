// The L3 working-set sweep's analysis (claims CPU-3, CPU-4; docs/methodology.md "L3"): the knee of
// a bandwidth-versus-working-set curve (the measured effective L3), and the emulation of a cache of
// another size from that one curve, used where Linux resctrl cache allocation is absent.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

// One point of a curve: working set in bytes, and the rate's median, min and max over repetitions.
struct CurvePoint {
  double bytes = 0;
  double median = 0, low = 0, high = 0;
};

struct Knee {
  bool found = false;
  double below = 0;                        // largest working set still served from the cache (bytes)
  double above = 0;                        // next measured working set, served from memory (bytes)
  double at = 0;                           // where the smoothed curve crosses the plateaus' middle, log-interpolated
                                           // between below and above: the figure that moves little when one side
                                           // of the step shifts by a few percent (a run's headline)
  double cache_rate = 0, memory_rate = 0;  // the two plateaus
  std::string why;                         // how it was found, or why not
};

// The memory plateau is the median rate of the three largest working sets; the cache plateau the
// highest point of the curve smoothed by a running median of 3 neighbouring sizes (one disturbed size
// cannot make or move a knee), which must be at least `ratio` x the memory plateau. The knee lies
// between the largest working set whose smoothed rate is at least the plateaus' middle (mean) and
// the next one measured.
// Needs at least 5 points sorted by size; the largest must be at least 4x the knee, else the curve
// may not have reached memory yet (found = false, why says so).
Knee find_knee(std::vector<CurvePoint> curve, double ratio = 1.5);

// Rate at working set x by linear interpolation of log(rate) over log(bytes); which = 0 median,
// -1 low, +1 high. in_range is false (and the nearest end is returned) outside the curve.
double curve_rate(const std::vector<CurvePoint>& curve, double bytes, int which, bool& in_range);

// Emulated gain of a cache of size c_big over one of c_small, for a working set w, from a curve
// measured with an effective cache c_eff: a cache of size C running working set W behaves as the
// measured cache running W * c_eff / C (everything above the cache level scaled alike). Returns
// X_big / X_small - 1 using the given side of the curve (0, -1, +1 as in curve_rate).
struct EmulatedGain {
  double gain = 0;
  bool in_range = true;           // both scaled working sets lie within the measured curve
  double w_small = 0, w_big = 0;  // the scaled working sets read off the curve (bytes)
};
EmulatedGain emulate_cache_gain(const std::vector<CurvePoint>& curve, double w, double c_eff, double c_small,
                                double c_big, int which_small, int which_big);

}  // namespace rigcheck
