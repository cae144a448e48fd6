// bench/harness/src/sha256.cpp: the FIPS 180-4 test vectors, and the same digest whatever the pieces.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "rigcheck/harness/sha256.hpp"

using namespace rigcheck;

TEST(Sha256, Fips180Vectors) {
  // FIPS 180-4 / NIST CSRC example values, one-block, two-block and long messages.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                 "mnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  Sha256 million;
  const std::string a(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.update(a);
  EXPECT_EQ(million.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in pieces of every size, the digest is the one of the whole (the 55/56/64-byte padding edges).
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('!' + i % 90);
  for (size_t len : {0, 1, 55, 56, 63, 64, 65, 119, 128, 300}) {
    const std::string whole = sha256_hex(text.substr(0, len));
    for (size_t piece : {1, 3, 17, 64}) {
      Sha256 h;
      for (size_t o = 0; o < len; o += piece) h.update(text.data() + o, std::min(piece, len - o));
      EXPECT_EQ(h.hex_digest(), whole) << "length " << len << " in pieces of " << piece;
    }
  }
}
