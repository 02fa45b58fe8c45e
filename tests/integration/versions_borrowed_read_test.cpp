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
  auto nothing = response->body.next(0);  // an empty chunk would read as the end
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.error().category(), ErrorCategory::usage);
  test::Sha256 hash;
  const test::BorrowOutcome borrowed = test::borrow_until_end(response->body, hash);
  ASSERT_FALSE(borrowed.read.error.has_value()) << borrowed.read.error->describe();
  EXPECT_EQ(borrowed.read.bytes, 1024u * 1024u);
  EXPECT_EQ(borrowed.read.sha256, env_.sha256_of("1m.bin"));
  EXPECT_EQ(response->body.bytes_read(), borrowed.read.bytes);
  EXPECT_GE(borrowed.chunks, 16u)
      << "a chunk is at most one staged block (64 KiB at the default mark)";
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
