// Test helpers for the text the tool writes (evidence, reasons, reports).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace rigcheck::testsupport {

// Every one of `parts` appears in `text`. For EXPECT_TRUE: a failure names the parts that are
// missing and prints the whole text.
inline ::testing::AssertionResult has_all(const std::string& text, std::initializer_list<const char*> parts) {
  std::string missing;
  for (const char* p : parts)
    if (text.find(p) == std::string::npos) missing += std::string(missing.empty() ? "" : ", ") + "\"" + p + "\"";
  if (missing.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing " << missing << " in: " << text;
}

}  // namespace rigcheck::testsupport
