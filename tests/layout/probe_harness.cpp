// Must compile: a benchmark including the harness's and the inventory's headers (the positive
// control of tests/layout/layout_probe.sh).
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/inventory/inventory.hpp"

int main() { return 0; }
