#include "core/byte_queue.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/memory_rules.hpp"

namespace sluice {
namespace {

TEST(ReserveForAppend, DoublesWhenDoublingIsEnough) {
  EXPECT_EQ(reserve_for_append(1000, 1500), 2000u);
  EXPECT_EQ(reserve_for_append(4 << 20, (4 << 20) + 1), std::size_t{8} << 20);
}

TEST(ReserveForAppend, FitsSmallRequestsExactly) {
  EXPECT_EQ(reserve_for_append(0, 100), 100u);
  EXPECT_EQ(reserve_for_append(10, 5000), 5000u);
}

TEST(ReserveForAppend, LargeExactFitGetsRoom) {
  const std::size_t mib = 1 << 20;
  EXPECT_EQ(reserve_for_append(0, mib), mib + kAppendRoom);
  EXPECT_EQ(reserve_for_append(100, 64 * mib), 64 * mib + kAppendRoom);
}

TEST(ReserveForAppend, ExactDoublingCountsAsAFit) {
  const std::size_t mib = 1 << 20;
  EXPECT_EQ(reserve_for_append(mib, 2 * mib), 2 * mib + kAppendRoom);
}

TEST(ReserveForAppend, KeepsCapacityThatAlreadyFits) {
  EXPECT_EQ(reserve_for_append(4096, 4096), 4096u);
}

TEST(ByteQueue, LargeWriteThenOneByteDoesNotRegrow) {
  ByteQueue queue;
  const std::string payload(8 << 20, 'a');
  queue.append(payload);
  const auto* block = queue.readable().data();
  EXPECT_EQ(queue.capacity(), (std::size_t{8} << 20) + kAppendRoom);
  queue.append("x");
  EXPECT_EQ(queue.capacity(), (std::size_t{8} << 20) + kAppendRoom);
  EXPECT_EQ(queue.readable().data(), block) << "the payload was copied";
  EXPECT_EQ(queue.size(), payload.size() + 1);
}

TEST(ByteQueue, ConsumeIsFifo) {
  ByteQueue queue;
  queue.append("hello ");
  queue.append("world");
  EXPECT_EQ(as_text(queue.readable()), "hello world");
  queue.consume(6);
  EXPECT_EQ(as_text(queue.readable()), "world");
  queue.consume(5);
  EXPECT_TRUE(queue.empty());
}

TEST(ByteQueue, ReadAsFastAsWrittenNeverGrows) {
  ByteQueue queue;
  const std::string chunk(1000, 'z');
  queue.append(chunk);
  queue.append(chunk);  // two chunks live at the moment of each append below
  queue.consume(chunk.size());
  const std::size_t capacity = queue.capacity();
  for (int i = 0; i < 1000; ++i) {
    queue.append(chunk);
    queue.consume(chunk.size());
  }
  EXPECT_EQ(queue.capacity(), capacity);
  EXPECT_EQ(queue.size(), chunk.size());
}

// A reader one read behind must not make the queue write into pages of its block it
// never used: the live bytes slide to the front instead (a staging buffer held at
// its mark stays as resident as the mark plus one receive, not as its whole block).
TEST(ByteQueue, LaggingReaderKeepsWritesWithinTheTouchedPrefix) {
  ByteQueue queue;
  const std::string receive(64 * 1024, 'r');
  for (int i = 0; i < 5; ++i) queue.append(receive);  // 320 KiB live in a 512 KiB block
  ASSERT_GT(queue.capacity(), 5 * receive.size());
  const auto* front = queue.readable().data();
  queue.consume(4 * receive.size());
  queue.append(receive);  // would land past 320 KiB: slides instead
  EXPECT_EQ(queue.readable().data(), front);
  EXPECT_EQ(queue.size(), 2 * receive.size());
  EXPECT_EQ(as_text(queue.readable()), receive + receive);
}

TEST(ByteQueue, PrepareCommitAppendsInPlace) {
  ByteQueue queue;
  auto room = queue.prepare(16);
  ASSERT_GE(room.size(), 16u);
  room[0] = std::byte{'o'};
  room[1] = std::byte{'k'};
  queue.commit(2);
  EXPECT_EQ(as_text(queue.readable()), "ok");
}

TEST(ByteQueue, ReleaseIfEmptyKeepsWaitingBytes) {
  ByteQueue queue;
  queue.append("waiting");
  EXPECT_EQ(queue.release_if_empty(), 0u);
  EXPECT_EQ(as_text(queue.readable()), "waiting");
  queue.consume(7);
  EXPECT_GT(queue.release_if_empty(), 0u);
  EXPECT_EQ(queue.capacity(), 0u);
}

TEST(ByteQueue, DrainedBlockAboveTheReleaseThresholdIsFreed) {
  ByteQueue queue;
  queue.append(std::string(kDefaultReleaseThreshold + 1, 'b'));
  queue.consume(kDefaultReleaseThreshold);
  EXPECT_GT(queue.capacity(), kDefaultReleaseThreshold) << "bytes still wait: the block stays";
  queue.consume(1);
  EXPECT_EQ(queue.capacity(), 0u);
}

TEST(ByteQueue, DrainedBlockAtOrBelowTheReleaseThresholdIsKept) {
  ByteQueue queue;
  queue.append(std::string(kDefaultReleaseThreshold, 'b'));
  const std::size_t capacity = queue.capacity();
  queue.consume(kDefaultReleaseThreshold);
  EXPECT_EQ(queue.capacity(), capacity);
}

TEST(ByteQueue, ReleaseThresholdIsPerQueue) {
  ByteQueue keeps;
  keeps.set_release_threshold(SIZE_MAX);
  keeps.append(std::string(2 << 20, 'k'));
  keeps.consume(2 << 20);
  EXPECT_GE(keeps.capacity(), std::size_t{2} << 20);

  ByteQueue frees;
  frees.set_release_threshold(0);
  frees.append("tiny");
  frees.consume(4);
  EXPECT_EQ(frees.capacity(), 0u);
  ByteQueue moved = std::move(frees);
  moved.append("again");
  moved.consume(5);
  EXPECT_EQ(moved.capacity(), 0u) << "a move keeps the queue's threshold";
}

}  // namespace
}  // namespace sluice
