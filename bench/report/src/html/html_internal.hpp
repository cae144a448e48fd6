// Helpers shared by the files of bench/report/src/html (not part of the tool's interface).
#pragma once
#include <string>
#include <vector>

#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck::html_detail {

// <section id="shape">: the machine drawn from the inventory's core_layout (packages, NUMA nodes,
// last-level caches, cores, CPUs; disallowed CPUs grey, those behind CPU-1 and CPU-2 marked); "" for a
// run whose inventory has no core_layout (made before it existed).
std::string machine_svg(const RunData& run);

// Splits at sep, dropping empty pieces ("a  b" -> a, b).
std::vector<std::string> split(const std::string& s, char sep);

}  // namespace rigcheck::html_detail
