// Where the suite's files are, found relative to the running executable: no build machine's
// absolute path is compiled in, so an installed suite (cmake --install), a GPU pack and the build
// tree all work from wherever they lie.
#pragma once
#include <string>

namespace rigcheck {

// The directory of the running executable (/proc/self/exe).
std::string executable_dir();

// The registries (claims, benchmarks, datasheets, plots...): $RIGCHECK_DATA_DIR when set, else
// <executable_dir>/../share/rigcheck/data (an install or a pack; in the build tree CMake links it
// to the source's data/). Throws std::runtime_error naming every place it looked.
std::string data_dir();
// data_dir() + "/" + name.
std::string data_path(const std::string& name);

}  // namespace rigcheck
