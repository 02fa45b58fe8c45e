// LowSpeedCheck: curl's low-speed rule on samples a second apart, with no clock but
// the test's time points.
#include "client/fetch/low_speed_check.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

using namespace std::chrono_literals;

const TimePoint kStart{};

LowSpeedLimit limit(std::uint64_t bytes_per_second, std::chrono::seconds time) {
  LowSpeedLimit made;
  made.bytes_per_second = bytes_per_second;
  made.time = time;
  return made;
}

TEST(LowSpeedCheck, AStalledTransferFailsTheLimitsTimeAfterItStarted) {
  LowSpeedCheck check(limit(1000, 3s), kStart);
  EXPECT_FALSE(check.too_slow(kStart + 1s, 0, false));
  EXPECT_FALSE(check.too_slow(kStart + 2s, 0, false));
  EXPECT_TRUE(check.too_slow(kStart + 3s, 0, false));
}

TEST(LowSpeedCheck, ATransferAtTheLimitNeverFails) {
  LowSpeedCheck check(limit(1000, 3s), kStart);
  for (int second = 1; second <= 60; ++second) {
    ASSERT_FALSE(check.too_slow(kStart + std::chrono::seconds(second), 1000u * second, false))
        << "at second " << second;
  }
}

TEST(LowSpeedCheck, TheRateIsTheAverageOfTheLastFiveSeconds) {
  LowSpeedCheck check(limit(1000, 3s), kStart);
  // 5000 bytes in the first second, then nothing: the five-second average stays at
  // the limit until the burst leaves the window.
  EXPECT_FALSE(check.too_slow(kStart + 1s, 5000, false));
  for (int second = 2; second <= 5; ++second) {
    EXPECT_FALSE(check.too_slow(kStart + std::chrono::seconds(second), 5000, false));
    EXPECT_GE(check.last_rate(), 1000.0) << "at second " << second;
  }
  // From second 6 on the window no longer holds the burst's start: under the limit
  // from there, failing three seconds later.
  EXPECT_FALSE(check.too_slow(kStart + 6s, 5000, false));
  EXPECT_LT(check.last_rate(), 1000.0);
  EXPECT_FALSE(check.too_slow(kStart + 7s, 5000, false));
  EXPECT_FALSE(check.too_slow(kStart + 8s, 5000, false));
  EXPECT_TRUE(check.too_slow(kStart + 9s, 5000, false));
}

TEST(LowSpeedCheck, BytesThatBringTheRateBackStartTheCountAgain) {
  LowSpeedCheck check(limit(1000, 3s), kStart);
  EXPECT_FALSE(check.too_slow(kStart + 1s, 0, false));
  EXPECT_FALSE(check.too_slow(kStart + 2s, 0, false));
  EXPECT_FALSE(check.too_slow(kStart + 3s, 10'000, false));  // over the limit again
  EXPECT_FALSE(check.too_slow(kStart + 4s, 10'000, false));
  EXPECT_FALSE(check.too_slow(kStart + 5s, 10'000, false));
}

// A reader holding the body: its seconds are not the transfer's. The count starts
// again when the hold ends.
TEST(LowSpeedCheck, SecondsTheReaderHoldsTheBodyDoNotCount) {
  LowSpeedCheck check(limit(1000, 3s), kStart);
  for (int second = 1; second <= 100; ++second) {
    ASSERT_FALSE(check.too_slow(kStart + std::chrono::seconds(second), 0, true));
  }
  EXPECT_FALSE(check.too_slow(kStart + 101s, 0, false));
  EXPECT_FALSE(check.too_slow(kStart + 102s, 0, false));
  EXPECT_TRUE(check.too_slow(kStart + 103s, 0, false));
}

}  // namespace
}  // namespace sluice
