// What every fuzz target of tests/fuzz shares. A target is one reader of outside data; its body
// is written once, with RIGCHECK_FUZZ_TARGET(name), and built two ways:
//  - by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined): the body is libFuzzer's
//    LLVMFuzzerTestOneInput, one binary per target;
//  - by the main build (RIGCHECK_FUZZ_REPLAY, any compiler): the bodies are registered by name in
//    one `fuzz_replay` binary that feeds them the seed corpora and the crash fixtures
//    (tests/fixtures/fuzz/), so every input that once crashed stays an ordinary test.
// The rule each body enforces: a reader may refuse input only with its documented error (the
// one the tool catches and prints with file, line and reason); any other exception escapes, and
// libFuzzer (or fuzz_replay) reports it, like a sanitizer error or a failed check() below.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "rigcheck/harness/csv.hpp"

namespace rigcheck::fuzz {

using TargetFn = int (*)(const uint8_t* data, size_t size);
// fuzz_replay only: remembers a target under its name (the corpus folder's name).
bool register_target(const char* name, TargetFn fn);
TargetFn find_target(const std::string& name);

// A private scratch folder of this process on tmpfs (/dev/shm, else $TMPDIR or /tmp), removed at
// exit. The readers take paths (fast-cpp-csv-parser opens files itself), so inputs go there.
const std::string& scratch_dir();
// Writes bytes to scratch_dir()/name (the same file for every input of a run); returns the path.
std::string write_input(const uint8_t* data, size_t size, const std::string& name = "input.csv");
std::string write_input(const std::string& text, const std::string& name);
// Creates scratch_dir()/name (a folder); returns its path.
std::string make_dir(const std::string& name);
// Removes every file and folder below dir (dir itself stays).
void clear_dir(const std::string& dir);
// Aborts with the message when cond is false: a broken promise of a reader, reported like a
// crash, with the input that caused it.
void check(bool cond, const std::string& what);

// Runs body(); the documented refusal Error is the expected "no" (returns true). Anything else
// thrown propagates.
template <class Error, class Body>
bool refused_only_with(Body body) {
  try {
    body();
    return false;
  } catch (const Error& e) {
    check(e.what()[0] != '\0', "refusal without a message");
    return true;
  }
}

// The suite's readers refuse with InputError, which must name the file (or run folder) below
// `where` and give a reason: the tool prints "FILE:LINE: reason".
template <class Body>
bool refused_with_input_error(const std::string& where, Body body) {
  try {
    body();
    return false;
  } catch (const InputError& e) {
    check(e.file().compare(0, where.size(), where) == 0, "InputError names " + e.file() + ", not " + where);
    check(!e.reason().empty(), "InputError without a reason");
    return true;
  }
}

// The input written as a file named `name` and given to `read` (a reader of the suite): true with
// what it accepted in `out`, false where it refused the input, as it must, with an InputError
// naming the file.
template <class T, class Read>
bool accepted(const uint8_t* data, size_t size, const char* name, T& out, Read read) {
  const std::string path = write_input(data, size, name);
  return !refused_with_input_error(path, [&] { out = read(path); });
}

// The suite's own writer's copy of accepted input, read back: TEXT (what WRITER wrote) as the file
// NAME, given to READ, which must accept it (a refusal is a broken promise). Returns what it read.
template <class Read>
auto read_back(const std::string& text, const char* name, const std::string& writer, Read read) {
  decltype(read(std::string())) back;
  try {
    back = read(write_input(text, name));
  } catch (const InputError& e) {
    check(false, writer + "'s copy of accepted input is refused: " + e.what());
  }
  return back;
}

}  // namespace rigcheck::fuzz

#if defined(RIGCHECK_FUZZ_REPLAY)
#define RIGCHECK_FUZZ_TARGET(name)                                     \
  static int rigcheck_fuzz_##name(const uint8_t* data, size_t size);   \
  [[maybe_unused]] static const bool rigcheck_fuzz_registered_##name = \
      ::rigcheck::fuzz::register_target(#name, rigcheck_fuzz_##name);  \
  static int rigcheck_fuzz_##name(const uint8_t* data, size_t size)
#else
#define RIGCHECK_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#endif
