#include "io/byte_queue.hpp"

#include <gtest/gtest.h>

#include <string>

#include "io/memory_rules.hpp"

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

}  // namespace
}  // namespace sluice
