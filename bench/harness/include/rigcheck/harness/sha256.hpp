// SHA-256 (FIPS 180-4), for the checksums a run's manifest records of its result files
// (bench/runfolder/include/rigcheck/runfolder/integrity.hpp) and the results store's records. OpenSSL's
// libcrypto where the build found it (its SHA-256 uses the CPU's SHA extensions: about 8x this
// file's own code on the 2-vCPU Zen 5 VM, docs/performance.md), else this file's FIPS 180-4 code.
// Checked against the FIPS 180-4 / NIST example vectors (tests).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rigcheck {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  void update(const std::string& s) { update(s.data(), s.size()); }
  // The digest as 64 lowercase hex digits. Ends the computation: call once.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  uint32_t h_[8];
  unsigned char buf_[64];
  size_t used_ = 0;
  uint64_t bytes_ = 0;
  [[maybe_unused]] void* evp_ = nullptr;  // OpenSSL's EVP_MD_CTX, where built with it (unused without)
};

// The SHA-256 of a string, as 64 lowercase hex digits.
std::string sha256_hex(const std::string& data);

}  // namespace rigcheck
