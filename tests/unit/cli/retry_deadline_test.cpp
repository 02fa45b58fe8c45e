// --retry-max-time: no retry after the limit, no wait past it.
#include "cli/retry_deadline.hpp"

#include <gtest/gtest.h>

namespace sluice::cli {
namespace {

using std::chrono::milliseconds;

TEST(RetryDeadline, NoLimitKeepsThePolicysWait) {
  EXPECT_EQ(wait_within_retry_time(milliseconds(4000), milliseconds(99'000), milliseconds(0)),
            milliseconds(4000));
}

TEST(RetryDeadline, AWaitIsCutToWhatIsLeft) {
  EXPECT_EQ(wait_within_retry_time(milliseconds(4000), milliseconds(1000), milliseconds(10'000)),
            milliseconds(4000));
  EXPECT_EQ(wait_within_retry_time(milliseconds(4000), milliseconds(8000), milliseconds(10'000)),
            milliseconds(2000));
}

TEST(RetryDeadline, NoRetryOnceTheTimeIsUp) {
  EXPECT_FALSE(
      wait_within_retry_time(milliseconds(1000), milliseconds(10'000), milliseconds(10'000)));
  EXPECT_FALSE(
      wait_within_retry_time(milliseconds(1000), milliseconds(12'000), milliseconds(10'000)));
}

}  // namespace
}  // namespace sluice::cli
