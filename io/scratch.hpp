// Scratch files for the storage benchmarks, and the rules that keep them from touching
// anything else (fio's users have lost disks to a wrong filename=):
// - files are created only by this code, only inside one directory the user names (--scratch)
//   or a new temporary directory, with O_CREAT|O_EXCL|O_NOFOLLOW;
// - refused: block and character devices, existing entries, symbolic links, any path with a
//   ".." component and any path that resolves outside the scratch directory;
// - free space is checked before a file is created;
// - every file created is removed on exit, on SIGINT, SIGTERM and SIGHUP (a running child such
//   as fio is killed first).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace rigcheck::io {

// A refusal: names the path and the reason. Nothing has been written when it is thrown.
class Refusal : public std::runtime_error {
 public:
  Refusal(const std::string& path, const std::string& reason);
  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_, reason_;
};

// Checks a name the user gave for a scratch entry without touching the file system: not empty,
// no ".." component. Throws Refusal.
void check_name_syntax(const std::string& name);

class Scratch {
 public:
  // dir empty: a new directory rigcheck-io.XXXXXX under $TMPDIR (or /var/tmp), removed at the
  // end. Otherwise dir must be an existing directory (not a device, not a symbolic link, no
  // ".." component); it is left in place, only the files created in it are removed.
  // Throws Refusal.
  explicit Scratch(const std::string& dir);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const std::string& root() const { return root_; }
  bool created_root() const { return created_root_; }

  // The absolute path `name` (relative to the root, or absolute inside it) would have, after
  // every refusal rule; throws Refusal.
  std::string check_new_path(const std::string& name) const;
  // Refusal unless `bytes` (plus a margin of 64 MiB, or 5% of the file system) fit in the free
  // space of the root's file system.
  void check_free_space(int64_t bytes, const std::string& what) const;

  // Creates a file of `bytes` pseudo-random bytes (never zeros) from `seed`, synced to the
  // device. Returns its path; *checksum gets checksum64() of its content.
  std::string create_file(const std::string& name, int64_t bytes, uint64_t seed, uint64_t* checksum = nullptr,
                          bool sync = true);
  // Syncs the root's file system, then drops our own files (never others') from the page cache.
  void sync_and_drop(const std::vector<std::string>& paths) const;
  // Creates an empty file (for a tool's output), registered for removal.
  std::string create_empty(const std::string& name);
  // Creates a sub-directory, registered for removal (after its files).
  std::string create_dir(const std::string& name);
  // Removes every file and directory created, in reverse order. Idempotent.
  void remove_all();

 private:
  std::string root_;
  bool created_root_ = false;
};

// Installs handlers for SIGINT, SIGTERM and SIGHUP: kill the registered child (SIGKILL, reaped),
// remove every registered scratch entry, then die of the same signal.
void install_cleanup_handlers();
// The child process the handlers kill first, with its whole process group (0: none).
void set_running_child(pid_t pid);

// Fills buf with the pseudo-random stream of (seed, offset in bytes / 8); offset must be a
// multiple of 8, len a multiple of 8. Never all zeros.
void fill_random(void* buf, size_t len, uint64_t seed, uint64_t word_offset);
// 64-bit checksum of a byte string: FNV-1a over its 8-byte words in 8 independent lanes (word i
// goes to lane i % 8, so the multiplies do not wait on one another: about 1 cycle a word, where
// one chain costs 4 and took ~15% of a 108 KiB sample's read time), then the lanes and the tail.
class Checksum64 {
 public:
  // len must be a multiple of 8 except in the last call.
  void update(const void* buf, size_t len);
  uint64_t digest() const;

 private:
  uint64_t lane_[8] = {0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL,
                       0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL, 0xcbf29ce484222325ULL};
  uint64_t words_ = 0;
  uint64_t tail_ = 0xcbf29ce484222325ULL;
  bool ended_ = false;
};
uint64_t checksum64(const void* buf, size_t len);

}  // namespace rigcheck::io
