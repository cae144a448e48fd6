// Test helpers for files and folders, shared by the test files of every folder of tests/.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rigcheck::testsupport {

// An empty folder NAME-PID under gtest's temporary folder (emptied if it was there).
inline std::string fresh_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(::testing::TempDir()) / (name + "-" + std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

// The whole of a file ("" when it cannot be read).
inline std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Writes `content` to NAME under gtest's temporary folder; returns its path.
inline std::string temp_file(const std::string& name, const std::string& content) {
  std::string p = ::testing::TempDir() + "/" + name;
  std::ofstream(p) << content;
  return p;
}

}  // namespace rigcheck::testsupport
