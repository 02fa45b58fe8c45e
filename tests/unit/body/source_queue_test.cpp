// SourceQueue's promise to a producer that waits for room: its when_writable callback
// runs exactly once, when the queue drains below the mark or when the request ends.
// A callback dropped at the end would leave a binding's upload pump waiting forever.
#include "body/source_queue.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/byte_queue.hpp"

namespace sluice {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

// A queue at its mark (4 bytes written of a mark of 4), so when_writable waits.
struct FullQueue {
  SourceQueue queue{4};
  FullQueue() { EXPECT_TRUE(*queue.write(bytes_of("abcd"), std::nullopt)); }
};

TEST(SourceQueue, AWaitingProducerHearsWhenTheRequestEnds) {
  FullQueue full;
  int calls = 0;
  full.queue.when_writable([&] { ++calls; });
  EXPECT_EQ(calls, 0) << "ran while the queue was at its mark";
  full.queue.shut(Error(ErrorCategory::cancelled, "the request ended"));
  EXPECT_EQ(calls, 1);
  auto write = full.queue.write(bytes_of("e"), std::nullopt);
  ASSERT_FALSE(write.ok()) << "a write after the end succeeded";
  EXPECT_EQ(write.error().category(), ErrorCategory::cancelled);
  EXPECT_EQ(write.error().message(), "the request ended");
  full.queue.shut(Error(ErrorCategory::protocol, "again"));
  EXPECT_EQ(calls, 1) << "a second shut ran the callback again";
}

TEST(SourceQueue, WithAUserRunnerTheEndsCallbackGoesToIt) {
  FullQueue full;
  std::vector<std::function<void()>> handed;
  full.queue.set_user_runner(
      [&](std::function<void()> task) { handed.push_back(std::move(task)); });
  int calls = 0;
  full.queue.when_writable([&] { ++calls; });
  full.queue.shut(Error(ErrorCategory::cancelled, "the request ended"));
  ASSERT_EQ(handed.size(), 1u) << "the callback was not handed to the host's queue";
  EXPECT_EQ(calls, 0) << "ran on the HTTP thread instead of the host's";
  handed.front()();
  EXPECT_EQ(calls, 1);
}

TEST(SourceQueue, DrainingBelowTheMarkRunsTheCallbackOnce) {
  FullQueue full;
  int calls = 0;
  full.queue.when_writable([&] { ++calls; });
  ByteQueue out;
  auto taken = full.queue.take(out, 1);
  EXPECT_EQ(taken.bytes, 1u);
  EXPECT_EQ(calls, 1);
  full.queue.shut(Error(ErrorCategory::cancelled, "the request ended"));
  EXPECT_EQ(calls, 1) << "the end ran a callback that had run already";
}

TEST(SourceQueue, ShutWithNobodyWaitingRunsNothingAndFreesTheBytes) {
  FullQueue full;
  full.queue.shut(Error(ErrorCategory::cancelled, "the request ended"));
  EXPECT_EQ(full.queue.queued(), 0u);
}

}  // namespace
}  // namespace sluice
