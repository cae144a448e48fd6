// Must NOT compile: a file of the runfolder layer including a header of the report layer, above it
// (tests/layout/layers.sh).
#include "rigcheck/report/report.hpp"
