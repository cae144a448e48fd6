// fast-cpp-csv-parser, included once here: its strncpy of file names trips GCC's
// -Wstringop-truncation in our translation units, a false alarm in a system header.
#pragma once
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop
