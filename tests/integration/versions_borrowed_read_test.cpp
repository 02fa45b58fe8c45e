// Borrowed reads over every version (versions.hpp): BodyReader::next() lends the
// staged bytes in place. A whole body arrives through it intact, mixed with read();
// a chunk the reader keeps still counts against the mark, so the transport stops as
// it would for an unread body; and giving it back lets the rest through.
#include <gtest/gtest.h>

#include <vector>

#include "integration/versions.hpp"
#include "sluice/sluice.hpp"

namespace sluice {
namespace {

using test::kPastTheAllowance;
using test::Need;
using test::wait_until;

class VersionsBorrowedRead : public test::VersionsTest {};

TEST_P(VersionsBorrowedRead, ChunksCarryTheWholeBody) {
  auto client = make_client();
  auto response = client.fetch(request_for(Need::files, "/1m.bin"));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  // max 0 is no limit, as in C's sluice_response_next (a chunk of at most 0 bytes
  // would be empty, which reads as the end).
  auto first = response->body.next(0);
  ASSERT_TRUE(first.ok()) << first.error().describe();
  ASSERT_FALSE(first->empty());
  const std::size_t first_size = first->size();
  test::Sha256 hash;
  hash.update(first->bytes());
  const test::BorrowOutcome borrowed = test::borrow_until_end(response->body, hash);
  ASSERT_FALSE(borrowed.read.error.has_value()) << borrowed.read.error->describe();
  EXPECT_EQ(first_size + borrowed.read.bytes, 1024u * 1024u);
  EXPECT_EQ(borrowed.read.sha256, env_.sha256_of("1m.bin"));
  EXPECT_EQ(response->body.bytes_read(), first_size + borrowed.read.bytes);
  // How many chunks it took is not asserted: a block is the size of the append that
  // made it when that is larger than the segment, and appends grow with the allowance,
  // which follows how fast this reader happened to be (it failed so under ASan).
}

TEST_P(VersionsBorrowedRead, NextAndReadMayAlternate) {
  auto client = make_client();
  auto response = client.fetch(request_for(Need::files, "/1m.bin"));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  test::Sha256 hash;
  std::vector<std::byte> piece(10'000);
  for (bool borrow = true;; borrow = !borrow) {
    if (borrow) {
      auto chunk = response->body.next(7'000);
      ASSERT_TRUE(chunk.ok()) << chunk.error().describe();
      if (chunk->empty()) break;
      EXPECT_LE(chunk->size(), 7'000u);
      hash.update(chunk->bytes());
    } else {
      auto got = response->body.read(piece);
      ASSERT_TRUE(got.ok()) << got.error().describe();
      if (*got == 0) break;
      hash.update(std::span<const std::byte>(piece).first(*got));
    }
  }
  EXPECT_EQ(hash.hex_digest(), env_.sha256_of("1m.bin"));
}

TEST_P(VersionsBorrowedRead, AKeptChunkHoldsTheStreamAtItsMark) {
  auto client = make_client();
  Request request = request_for(Need::files, "/1m.bin");
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  auto first = response->body.next();
  ASSERT_TRUE(first.ok()) << first.error().describe();
  ASSERT_FALSE(first->empty());
  test::Sha256 hash;
  hash.update(first->bytes());  // before anything else can touch it

  // Kept, the chunk has not been taken: the stream fills to its mark and stops.
  ASSERT_TRUE(wait_until(client, [&] { return client.stats().paused_receivers == 1; }))
      << "a kept chunk let the stream run past its mark; staged " << client.stats().staged_bytes;
  EXPECT_GE(client.stats().staged_bytes, request.allowance.initial_bytes);
  EXPECT_LE(client.stats().staged_bytes, request.allowance.initial_bytes + kPastTheAllowance);

  first->release();
  const test::BorrowOutcome rest = test::borrow_until_end(response->body, hash);
  ASSERT_FALSE(rest.read.error.has_value()) << rest.read.error->describe();
  EXPECT_EQ(rest.read.sha256, env_.sha256_of("1m.bin"));
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().staged_bytes == 0; }));
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsBorrowedRead, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
