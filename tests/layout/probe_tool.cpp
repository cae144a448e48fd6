// Must NOT compile: a benchmark including a header of the rigcheck tool (tests/layout/layout_probe.sh).
#include "rigcheck/report/report.hpp"

int main() { return 0; }
