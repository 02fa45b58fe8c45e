// The staging buffer's state machine: Flowing -> Paused at the mark, back to Flowing
// below half the mark with exactly one notification, end and error ordering.
#include "body/staging_buffer.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sluice {
namespace {

using namespace std::chrono_literals;

std::span<const std::byte> bytes_of(const std::string& text) { return as_bytes(text); }

struct Fixture {
  std::atomic<int> notifications{0};
  StagingBuffer staging{1000, [this] {
                          ++notifications;
                          return true;
                        }};

  std::string read(std::size_t n) {
    std::vector<std::byte> into(n);
    auto got = staging.read(into, std::chrono::steady_clock::now() + 10ms);
    EXPECT_TRUE(got.ok());
    if (!got.ok() || !*got) return "<timeout>";
    return std::string(reinterpret_cast<const char*>(into.data()), **got);
  }
};

TEST(StagingBuffer, PausesAtTheMarkNotBefore) {
  Fixture f;
  f.staging.append(bytes_of(std::string(999, 'a')));
  EXPECT_FALSE(f.staging.paused());
  EXPECT_EQ(f.staging.room(), 1u);
  f.staging.append(bytes_of("b"));
  EXPECT_TRUE(f.staging.paused());
  EXPECT_EQ(f.staging.room(), 0u);
}

TEST(StagingBuffer, ResumesBelowHalfTheMarkWithOneNotification) {
  Fixture f;
  f.staging.append(bytes_of(std::string(1200, 'a')));
  ASSERT_TRUE(f.staging.paused());
  f.read(600);  // 600 left: still at or above half
  EXPECT_TRUE(f.staging.paused());
  EXPECT_EQ(f.notifications, 0);
  f.read(101);  // 499 left: below half
  EXPECT_FALSE(f.staging.paused());
  EXPECT_EQ(f.notifications, 1);
  f.read(100);  // already flowing: no more posts
  EXPECT_EQ(f.notifications, 1);
}

TEST(StagingBuffer, ReadTimesOutWhenNothingArrives) {
  Fixture f;
  EXPECT_EQ(f.read(10), "<timeout>");
}

TEST(StagingBuffer, BytesBeforeAnErrorAreStillDelivered) {
  Fixture f;
  f.staging.append(bytes_of("partial"));
  f.staging.fail(Error(ErrorCategory::protocol, "cut short"));
  EXPECT_EQ(f.read(100), "partial");
  std::vector<std::byte> into(10);
  auto after = f.staging.read(into, std::nullopt);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().message(), "cut short");
}

// A cancel fails the buffer from the consumer's thread while the HTTP thread may
// still be appending: what it appends after the failure is dropped, not delivered.
TEST(StagingBuffer, AppendsAfterAFailureAreDroppedAndUncounted) {
  auto budget = std::make_shared<StagedBudget>(0, [] {});
  StagingBuffer staging(
      1000, [] { return true; }, budget);
  staging.append(bytes_of("before"));
  staging.fail(Error(ErrorCategory::cancelled, "request cancelled"));
  staging.append(bytes_of("after"));
  EXPECT_EQ(staging.staged_bytes(), 6u);
  EXPECT_EQ(budget->staged(), 6u);
  std::vector<std::byte> into(100);
  auto got = staging.read(into, std::nullopt);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(into.data()), **got), "before");
  auto after = staging.read(into, std::nullopt);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().category(), ErrorCategory::cancelled);
}

TEST(StagingBuffer, AFailureAfterTheEndChangesNothing) {
  Fixture f;
  f.staging.append(bytes_of("whole"));
  f.staging.finish({}, steady_now());
  f.staging.fail(Error(ErrorCategory::cancelled, "request cancelled"));
  EXPECT_EQ(f.read(100), "whole");
  std::vector<std::byte> into(10);
  auto end = f.staging.read(into, std::nullopt);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(**end, 0u);
}

TEST(StagingBuffer, EndReadsAsZeroAfterTheBytes) {
  Fixture f;
  f.staging.append(bytes_of("all"));
  f.staging.finish({}, steady_now());
  EXPECT_EQ(f.read(100), "all");
  std::vector<std::byte> into(10);
  auto end = f.staging.read(into, std::nullopt);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(**end, 0u);
}

TEST(StagingBuffer, BlockedReaderWakesOnAppend) {
  Fixture f;
  // The reader reports when it starts waiting, under the buffer's lock: the append
  // below takes that lock, so it lands while the reader sleeps, not before it reads.
  std::promise<void> reader_waits;
  std::atomic<bool> reported{false};
  f.staging.on_reader_waits([&] {
    if (!reported.exchange(true)) reader_waits.set_value();
  });
  // No deadline: a lost wake leaves the reader asleep, and the test says so below.
  std::promise<std::string> got;
  std::future<std::string> woke = got.get_future();
  std::thread reader([&] {
    std::vector<std::byte> into(100);
    auto n = f.staging.read(into, std::nullopt);
    got.set_value(n.ok() && *n ? std::string(reinterpret_cast<const char*>(into.data()), **n)
                               : "<no bytes>");
  });
  EXPECT_EQ(reader_waits.get_future().wait_for(30s), std::future_status::ready)
      << "the reader never blocked";
  f.staging.append(bytes_of("wake"));
  f.staging.wake_reader();
  const bool woken = woke.wait_for(30s) == std::future_status::ready;
  EXPECT_TRUE(woken) << "the append never woke the reader";
  if (!woken) f.staging.fail(Error(ErrorCategory::cancelled, "test over"));  // frees it
  reader.join();
  if (woken) {
    EXPECT_EQ(woke.get(), "wake");
  }
}

TEST(StagingBuffer, ClosedReaderStopsStagingAndNotifies) {
  Fixture f;
  f.staging.append(bytes_of("kept"));
  f.staging.close_reader();
  EXPECT_EQ(f.notifications, 1);
  EXPECT_TRUE(f.staging.reader_gone());
  f.staging.append(bytes_of("dropped"));
  EXPECT_EQ(f.staging.drop_staged(), 4u);
  EXPECT_EQ(f.staging.staged_bytes(), 0u);
}

TEST(StagingBuffer, SweepFreesOnlyAnEmptyQueue) {
  Fixture f;
  f.staging.append(bytes_of("waiting"));
  EXPECT_EQ(f.staging.release_empty_capacity(), 0u);
  f.read(100);
  EXPECT_GT(f.staging.release_empty_capacity(), 0u);
  EXPECT_EQ(f.staging.retained_capacity(), 0u);
}

TEST(StagingBuffer, CallbacksReceiveStagedBytesThenTheEnd) {
  Fixture f;
  f.staging.append(bytes_of("abc"));
  std::string seen;
  bool ended = false;
  f.staging.set_callbacks(
      [&](std::span<const std::byte> piece) {
        seen.append(reinterpret_cast<const char*>(piece.data()), piece.size());
        return true;
      },
      [&](Result<void> status) { ended = status.ok(); });
  EXPECT_EQ(f.notifications, 1);  // asks the HTTP thread to deliver
  f.staging.deliver_callbacks();
  EXPECT_EQ(seen, "abc");
  f.staging.append(bytes_of("def"));
  f.staging.finish({}, steady_now());
  f.staging.deliver_callbacks();
  EXPECT_EQ(seen, "abcdef");
  EXPECT_TRUE(ended);
}

TEST(StagingBuffer, CallbackReturningFalsePausesDelivery) {
  Fixture f;
  f.staging.append(bytes_of("one"));
  int calls = 0;
  f.staging.set_callbacks([&](std::span<const std::byte>) { return ++calls > 1; },
                          [](Result<void>) {});
  f.staging.deliver_callbacks();
  f.staging.append(bytes_of("two"));
  f.staging.deliver_callbacks();
  EXPECT_EQ(calls, 1);
  f.staging.resume_callbacks();
  f.staging.deliver_callbacks();
  EXPECT_EQ(calls, 2);
}

// --- lending (BodyReader::next) ---

std::string text_of(std::span<const std::byte> bytes) { return std::string(as_text(bytes)); }

StagingBuffer::Lent lend_now(StagingBuffer& staging, std::size_t max = SIZE_MAX) {
  auto lent = staging.lend(max, std::chrono::steady_clock::now() + 10ms);
  EXPECT_TRUE(lent.ok());
  EXPECT_TRUE(lent.ok() && lent->has_value()) << "nothing to lend";
  return lent.ok() && *lent ? **lent : StagingBuffer::Lent{};
}

TEST(StagingBuffer, LentBytesStayInPlaceWhileTheHttpThreadAppends) {
  Fixture f;
  f.staging.append(bytes_of("lent"));
  const StagingBuffer::Lent lent = lend_now(f.staging);
  EXPECT_EQ(text_of(lent.bytes), "lent");
  for (int i = 0; i < 50; ++i) f.staging.append(bytes_of("behind"));
  EXPECT_EQ(text_of(lent.bytes), "lent");
  EXPECT_EQ(f.read(6), "behind") << "reading gives the lend back and goes on after it";
}

TEST(StagingBuffer, LentBytesCountAgainstTheMarkUntilGivenBack) {
  Fixture f;
  f.staging.append(bytes_of(std::string(1200, 'a')));
  ASSERT_TRUE(f.staging.paused());
  const StagingBuffer::Lent lent = lend_now(f.staging, 1000);
  EXPECT_EQ(lent.bytes.size(), 1000u);
  EXPECT_TRUE(f.staging.paused()) << "a reader holding a chunk has not taken it";
  EXPECT_EQ(f.staging.staged_bytes(), 1200u);
  EXPECT_EQ(f.notifications, 0);
  f.staging.give_back(lent.id);
  EXPECT_FALSE(f.staging.paused());
  EXPECT_EQ(f.staging.staged_bytes(), 200u);
  EXPECT_EQ(f.notifications, 1) << "one resume once the chunk came back";
  EXPECT_EQ(f.staging.held().taken, 1000u);
}

TEST(StagingBuffer, AStaleLendIsNotGivenBackTwice) {
  Fixture f;
  f.staging.append(bytes_of("abcdef"));
  const StagingBuffer::Lent first = lend_now(f.staging, 2);
  const StagingBuffer::Lent second = lend_now(f.staging, 2);  // gives the first back
  EXPECT_EQ(text_of(first.bytes), "ab");
  EXPECT_EQ(text_of(second.bytes), "cd");
  f.staging.give_back(first.id);  // already back: nothing happens
  EXPECT_EQ(f.staging.staged_bytes(), 4u);
  f.staging.give_back(second.id);
  EXPECT_EQ(f.staging.staged_bytes(), 2u);
}

TEST(StagingBuffer, LendingEndsWithAnEmptyRunOrTheError) {
  Fixture ended;
  ended.staging.append(bytes_of("x"));
  ended.staging.finish({}, steady_now());
  EXPECT_EQ(text_of(lend_now(ended.staging).bytes), "x");
  EXPECT_TRUE(lend_now(ended.staging).bytes.empty());

  Fixture failed;
  failed.staging.append(bytes_of("partial"));
  failed.staging.fail(Error(ErrorCategory::protocol, "cut short"));
  EXPECT_EQ(text_of(lend_now(failed.staging).bytes), "partial");
  auto after = failed.staging.lend(SIZE_MAX, std::nullopt);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().message(), "cut short");
}

// --- receiving in place (StagingBuffer::prepare) ---

std::span<const std::byte> write_into(std::span<std::byte> room, std::string_view text) {
  EXPECT_GE(room.size(), text.size());
  std::memcpy(room.data(), text.data(), text.size());
  return room.first(text.size());
}

TEST(StagingBuffer, BytesReceivedInThePreparedRoomAreStagedWithoutACopy) {
  Fixture f;
  const std::span<std::byte> room = f.staging.prepare(100);
  ASSERT_GE(room.size(), 100u);
  f.staging.append(write_into(room, "in place"));
  const StagingBuffer::Lent lent = lend_now(f.staging);
  EXPECT_EQ(lent.bytes.data(), room.data()) << "staged where it was received";
  EXPECT_EQ(text_of(lent.bytes), "in place");
  EXPECT_EQ(f.staging.staged_bytes(), 8u);
}

// The HTTP thread receives into the room without the lock: a reader that drains
// every staged byte meanwhile must not move the tail's end under it.
TEST(StagingBuffer, APreparedRoomStaysPutWhileTheReaderDrainsEverything) {
  Fixture f;
  f.staging.append(bytes_of("before"));
  const std::span<std::byte> room = f.staging.prepare(100);
  EXPECT_EQ(f.read(100), "before");
  f.staging.append(write_into(room, "after"));
  EXPECT_EQ(f.read(100), "after");
}

TEST(StagingBuffer, OtherBytesAreCopiedAndEndThePrepare) {
  Fixture f;
  const std::span<std::byte> room = f.staging.prepare(100);
  f.staging.append(bytes_of("copied"));
  EXPECT_EQ(f.read(100), "copied");
  f.staging.append(write_into(room, "stale"));  // no longer prepared: copied in, not committed
  EXPECT_EQ(f.read(100), "stale");
}

TEST(StagingBuffer, NoRoomIsPreparedOnceNothingMayBeStaged) {
  Fixture ended;
  ended.staging.finish({}, steady_now());
  EXPECT_TRUE(ended.staging.prepare(100).empty());
  Fixture gone;
  gone.staging.close_reader();
  EXPECT_TRUE(gone.staging.prepare(100).empty());
}

TEST(StagingBuffer, LendTimesOutWhenNothingArrives) {
  Fixture f;
  auto lent = f.staging.lend(SIZE_MAX, std::chrono::steady_clock::now() + 10ms);
  ASSERT_TRUE(lent.ok());
  EXPECT_FALSE(lent->has_value());
}

TEST(StagingBuffer, AClosedReadersLendIsDroppedWithTheRest) {
  Fixture f;
  f.staging.append(bytes_of("held"));
  const StagingBuffer::Lent lent = lend_now(f.staging);
  f.staging.close_reader();
  EXPECT_EQ(f.staging.drop_staged(), 4u);
  f.staging.give_back(lent.id);  // a chunk that outlived its reader: nothing to give
  EXPECT_EQ(f.staging.held().taken, 0u);
}

// The total timeout is a deadline for the reader: bytes it has not taken by then
// are withheld, lent ones included, so a slow (rate-limited) reader stops at once.
TEST(StagingBuffer, AWithheldFailureComesBeforeTheStagedBytes) {
  Fixture f;
  f.staging.append(bytes_of("staged before the deadline"));
  const StagingBuffer::Lent lent = lend_now(f.staging, 6);
  EXPECT_EQ(text_of(lent.bytes), "staged");
  f.staging.fail(Error(ErrorCode::total_timeout, "too late"), steady_now(),
                 StagingBuffer::Staged::withheld);
  auto after = f.staging.lend(100, std::nullopt);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code(), ErrorCode::total_timeout);
  std::vector<std::byte> into(10);
  EXPECT_FALSE(f.staging.read(into, std::nullopt).ok());
}

TEST(StagingBuffer, CallbacksHearAWithheldFailureWithoutTheStagedBytes) {
  Fixture f;
  f.staging.append(bytes_of("abc"));
  f.staging.fail(Error(ErrorCode::total_timeout, "too late"), steady_now(),
                 StagingBuffer::Staged::withheld);
  std::string seen;
  std::optional<ErrorCode> ended;
  f.staging.set_callbacks(
      [&](std::span<const std::byte> piece) {
        seen.append(reinterpret_cast<const char*>(piece.data()), piece.size());
        return true;
      },
      [&](Result<void> status) { ended = status.ok() ? ErrorCode{} : status.error().code(); });
  f.staging.deliver_callbacks();
  EXPECT_EQ(seen, "");
  EXPECT_EQ(ended, ErrorCode::total_timeout);
}

}  // namespace
}  // namespace sluice
