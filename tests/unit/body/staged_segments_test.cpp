// StagedSegments: staged bytes in blocks that never move, so a lent front run stays
// valid while appends follow; drained blocks are reused (one spare) or freed.
#include "body/staged_segments.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/byte_queue.hpp"

namespace sluice {
namespace {

std::string text_of(std::span<const std::byte> bytes) { return std::string(as_text(bytes)); }

TEST(StagedSegments, AppendsFillTheTailThenOpenANewBlock) {
  StagedSegments staged(8);  // 5 + 5 bytes: 3 of the second append open a new block
  staged.append(as_bytes("abcde"));
  staged.append(as_bytes("fghij"));
  EXPECT_EQ(staged.size(), 10u);
  EXPECT_EQ(staged.capacity(), 16u);
  EXPECT_EQ(text_of(staged.front(100)), "abcdefgh");  // a run ends with its block
  EXPECT_EQ(text_of(staged.front(3)), "abc");
}

TEST(StagedSegments, AShortBodyOfKnownSizeGetsABlockOfItsSize) {
  StagedSegments staged(64);
  staged.expect_total(10);
  staged.append(as_bytes("abcd"));  // the first piece: room for the whole body
  staged.append(as_bytes("efghij"));
  EXPECT_EQ(staged.capacity(), 10u);
  EXPECT_EQ(text_of(staged.front(100)), "abcdefghij");
  StagedSegments larger(8);
  larger.expect_total(1000);  // longer than a block: blocks as usual
  larger.append(as_bytes("abc"));
  EXPECT_EQ(larger.capacity(), 8u);
}

TEST(StagedSegments, CopyFrontCrossesBlocksAndConsumesNothing) {
  StagedSegments staged(4);
  staged.append(as_bytes("0123456789"));
  std::vector<std::byte> into(7);
  EXPECT_EQ(staged.copy_front(into), 7u);
  EXPECT_EQ(text_of(into), "0123456");
  EXPECT_EQ(staged.size(), 10u);
}

TEST(StagedSegments, ALentRunDoesNotMoveWhileAppendsFollow) {
  StagedSegments staged(16);
  staged.append(as_bytes("first"));
  const std::span<const std::byte> lent = staged.front(100);
  for (int i = 0; i < 100; ++i) staged.append(as_bytes("more bytes behind it"));
  EXPECT_EQ(staged.front(100).data(), lent.data());
  EXPECT_EQ(text_of(lent), "first");
}

TEST(StagedSegments, ConsumeAcrossBlocksKeepsOneSpareAndFreesTheRest) {
  StagedSegments staged(4);
  for (const char* piece : {"aaaa", "bbbb", "cccc", "dd"}) staged.append(as_bytes(piece));
  EXPECT_EQ(staged.capacity(), 16u);  // four blocks of 4
  staged.consume(12);                 // three drained blocks: one kept as the spare, two freed
  EXPECT_EQ(text_of(staged.front(100)), "dd");
  EXPECT_EQ(staged.capacity(), 8u);
  staged.append(as_bytes("eeffgg"));  // the tail's room, then the spare
  EXPECT_EQ(staged.capacity(), 8u);
  std::vector<std::byte> into(8);
  EXPECT_EQ(staged.copy_front(into), 8u);
  EXPECT_EQ(text_of(into), "ddeeffgg");
}

TEST(StagedSegments, ADrainedTailStartsOverInPlace) {
  StagedSegments staged(8);
  staged.append(as_bytes("abc"));
  const std::byte* block = staged.front(1).data();
  staged.consume(3);
  EXPECT_TRUE(staged.empty());
  staged.append(as_bytes("xyz"));
  EXPECT_EQ(staged.front(1).data(), block);
  EXPECT_EQ(staged.capacity(), 8u);
}

TEST(StagedSegments, ALargeAppendGetsABlockOfItsOwnSizeThatIsNotKept) {
  StagedSegments staged(4);
  staged.append(as_bytes("x"));
  staged.append(as_bytes(std::string(100, 'y')));  // 3 fit the tail, 97 get their own block
  EXPECT_EQ(staged.capacity(), 4u + 97u);
  staged.consume(101);
  EXPECT_EQ(staged.capacity(), 4u) << "a drained outsized block is freed, not kept";
}

TEST(StagedSegments, ReleaseUnusedFreesTheSpareAndAnEmptyQueuesBlocks) {
  StagedSegments staged(4);
  staged.append(as_bytes("aaaa"));
  staged.append(as_bytes("bb"));
  staged.consume(4);  // a spare now
  EXPECT_EQ(staged.release_unused(), 4u) << "the spare goes, the staged bytes' block stays";
  EXPECT_EQ(text_of(staged.front(100)), "bb");
  staged.consume(2);
  EXPECT_EQ(staged.release_unused(), 4u);
  EXPECT_EQ(staged.capacity(), 0u);
  staged.append(as_bytes("again"));
  EXPECT_EQ(staged.size(), 5u);
}

TEST(StagedSegments, ALongFifoKeepsItsOrderAcrossManyBlocks) {
  StagedSegments staged(4);
  std::string expected;
  std::string got;
  for (int round = 0; round < 200; ++round) {
    // 25 appends (about 25 blocks of 4 bytes), then consumption down to 10 bytes:
    // the FIFO grows and shrinks, its drained records dropped on the way.
    const std::string piece = std::to_string(round) + ",";
    staged.append(as_bytes(piece));
    expected += piece;
    if (round % 25 == 24) {
      while (staged.size() > 10) {
        const std::span<const std::byte> run = staged.front(3);
        got += text_of(run);
        staged.consume(run.size());
      }
    }
  }
  while (!staged.empty()) {
    const std::span<const std::byte> run = staged.front(100);
    got += text_of(run);
    staged.consume(run.size());
  }
  EXPECT_EQ(got, expected);
}

TEST(StagedSegments, OnlyBytesInsideTheOpenRoomAreCommittedInPlace) {
  StagedSegments staged(16);
  staged.append(as_bytes("ab"));
  const std::span<std::byte> room = staged.prepare(8, 4);
  ASSERT_EQ(room.size(), 8u);
  // Received a little further in (as a parser may report them): slid to the room's start.
  std::memcpy(room.data() + 3, "cde", 3);
  EXPECT_TRUE(staged.commit_in_place(room.subspan(3, 3)));
  EXPECT_EQ(text_of(staged.front(100)), "abcde");
  // Past the room's end, or bytes that live elsewhere: not the room's, nothing staged.
  EXPECT_FALSE(staged.commit_in_place(room.subspan(3, 6)));
  const std::string elsewhere = "zz";
  EXPECT_FALSE(staged.commit_in_place(as_bytes(elsewhere)));
  EXPECT_EQ(staged.size(), 5u);
  staged.end_prepare();
  EXPECT_FALSE(staged.commit_in_place(room.subspan(3, 1))) << "the room closed";
}

}  // namespace
}  // namespace sluice
