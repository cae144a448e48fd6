// Helpers shared by the files of bench/report/src/html (not part of the tool's interface).
#pragma once
#include <string>
#include <vector>

namespace rigcheck::html_detail {

// Splits at sep, dropping empty pieces ("a  b" -> a, b).
std::vector<std::string> split(const std::string& s, char sep);

}  // namespace rigcheck::html_detail
