// Test helpers for files and folders, shared by the test files of every folder of tests/.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "rigcheck/harness/csv.hpp"

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

// `read` must refuse its input with an InputError naming `file` (when given) and `line`, whose
// message holds `text`. Returns the message.
template <class Read>
std::string expect_refused_at(Read read, long line, const std::string& text, const std::string& file = "") {
  try {
    read();
  } catch (const InputError& e) {
    if (!file.empty()) {
      EXPECT_EQ(e.file(), file);
    }
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted, expected a refusal at line " << line << ": " << text;
  return "";
}

}  // namespace rigcheck::testsupport
