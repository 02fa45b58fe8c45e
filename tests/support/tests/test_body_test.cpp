// Self-tests of the test bodies (tests/support/test_body.hpp) that H2TestPeer and
// H3TestPeer send: the generator, SHA-256 and BodyQueue. They live in unit_http2
// because the unit programs follow src/ and the peers' support code has no program
// of its own.

#include "support/test_body.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice::test {
namespace {

TEST(TestBody, GeneratedBytesAreTheSameWhateverPiecesTheyAreMadeIn) {
  const std::string whole = generated_bytes(5, 0, 1000);
  EXPECT_EQ(whole.size(), 1000u);
  // Pieces that start and end off word boundaries.
  std::string pieces;
  for (std::size_t at = 0; at < whole.size(); at += 37) {
    pieces += generated_bytes(5, at, std::min<std::size_t>(37, whole.size() - at));
  }
  EXPECT_EQ(pieces, whole);
  EXPECT_EQ(generated_bytes(5, 3, 10), whole.substr(3, 10));
}

TEST(TestBody, GeneratedBytesDependOnTheSeedAndLookRandom) {
  const std::string a = generated_bytes(1, 0, 4096);
  const std::string b = generated_bytes(2, 0, 4096);
  EXPECT_NE(a, b);
  std::size_t zeros = 0;
  for (char c : a) zeros += c == 0 ? 1 : 0;
  EXPECT_LT(zeros, 64u);  // about 16 expected; a constant or counting pattern fails
}

TEST(TestBody, Sha256OfAbcIsTheStandardDigest) {
  Sha256 sha;
  sha.update(std::string_view("ab"));
  sha.update(std::string_view("c"));
  EXPECT_EQ(sha.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TestBody, GeneratedSha256IsTheDigestOfTheGeneratedBytes) {
  const std::size_t size = 3 * 1024 * 1024 + 5;  // more than one hashing piece
  Sha256 sha;
  sha.update(generated_bytes(9, 0, size));
  EXPECT_EQ(generated_sha256(size, 9), sha.hex_digest());
}

TEST(TestBody, QueueReadsGivenAndGeneratedPiecesInOrder) {
  BodyQueue queue;
  queue.push("head-");
  queue.push_generated(100, 4);
  queue.push("-tail");
  EXPECT_EQ(queue.size(), 110u);
  std::string out(7, '\0');
  EXPECT_EQ(queue.read(std::as_writable_bytes(std::span<char>(out))), 7u);
  EXPECT_EQ(out, "head-" + generated_bytes(4, 0, 2));
  std::string rest(200, '\0');
  const std::size_t n = queue.read(std::as_writable_bytes(std::span<char>(rest)));
  rest.resize(n);
  EXPECT_EQ(rest, generated_bytes(4, 2, 98) + "-tail");
  EXPECT_TRUE(queue.empty());
}

TEST(TestBody, QueueTakeMovesGivenPiecesWholeAndCutsGeneratedOnes) {
  BodyQueue queue;
  queue.push(std::string(50, 'x'));
  queue.push_generated(100, 6);
  EXPECT_EQ(queue.take(10), std::string(50, 'x'));  // whole, although longer than 10
  EXPECT_EQ(queue.take(60), generated_bytes(6, 0, 60));
  EXPECT_EQ(queue.take(60), generated_bytes(6, 60, 40));
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.take(60), "");
}

}  // namespace
}  // namespace sluice::test
