// fuzz_replay TARGET FILE_OR_FOLDER...: runs the fuzz target TARGET (tests/fuzz/targets/TARGET.cpp,
// built without libFuzzer) on each file, as the ordinary tests do with the seed corpora and the
// crash fixtures. A crash, a sanitizer report or an unexpected exception ends it non-zero, the
// file named on the line before.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s TARGET FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  const rigcheck::fuzz::TargetFn fn = rigcheck::fuzz::find_target(argv[1]);
  if (!fn) {
    std::fprintf(stderr, "%s: no fuzz target '%s'\n", argv[0], argv[1]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& e : fs::directory_iterator(argv[i]))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(argv[i])) {
      files.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: %s: no such file or folder\n", argv[0], argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "fuzz_replay %s %s\n", argv[1], f.c_str());
    fn(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("fuzz_replay %s: %zu inputs, none crashed\n", argv[1], files.size());
  return 0;
}
