// Core counts from sysfs, cheap enough for every binary to call at start.
#pragma once
#include <string>

namespace rigcheck {
int physical_core_count();    // distinct (package, core) pairs among online CPUs
int hardware_thread_count();  // online CPUs
std::string host_name();
std::string utc_timestamp_compact();  // 20261202T114501Z
}  // namespace rigcheck
