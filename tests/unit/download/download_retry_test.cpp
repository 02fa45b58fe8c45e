#include <gtest/gtest.h>

#include "sluice/download.hpp"
#include "sluice/retry.hpp"
#include "tools/rate_limiter.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

AttemptFailure failure_of(ErrorCategory category) {
  return failure_from_error(Error(category, "x"));
}

TEST(RetryPolicy, TransientCategoriesAndStatuses) {
  for (auto category : {ErrorCategory::connect, ErrorCategory::dns, ErrorCategory::timeout,
                        ErrorCategory::protocol}) {
    EXPECT_TRUE(failure_of(category).transient) << to_string(category);
  }
  for (auto category :
       {ErrorCategory::tls, ErrorCategory::io, ErrorCategory::usage, ErrorCategory::cancelled,
        ErrorCategory::too_large, ErrorCategory::decode}) {
    EXPECT_FALSE(failure_of(category).transient) << to_string(category);
  }
  for (int status : {408, 429, 500, 502, 503, 504})
    EXPECT_TRUE(is_transient_status(status)) << status;
  for (int status : {400, 401, 403, 404, 410, 416, 501, 505}) {
    EXPECT_FALSE(is_transient_status(status)) << status;
  }
}

// The policy reads the error's own word: a protocol error its raiser marked as
// recurring (a TLS close without close_notify) is not retried, while one left at
// its default is.
TEST(RetryPolicy, AnErrorMarkedNotRetryableIsNotTransientWhateverItsCategory) {
  Error recurring = Error(ErrorCode::body_truncated, "x").set_retryable(false);
  EXPECT_FALSE(failure_from_error(recurring).transient);
  EXPECT_TRUE(failure_from_error(Error(ErrorCode::body_truncated, "x")).transient);
  RetryPolicy options;
  options.retries = 3;
  EXPECT_FALSE(should_retry(failure_from_error(recurring), 0, options));
  options.all_errors = true;  // curl's --retry-all-errors still may
  EXPECT_TRUE(should_retry(failure_from_error(recurring), 0, options));
}

// A downloader that loses its connection mid-range asks for the rest again (a GET of
// bytes not yet written is always safe to repeat); a request in general does not, as
// it may have had its effect. Even an idempotent PUT or DELETE is not retried: it
// would act again on what may have changed, and send its upload again.
TEST(RetryPolicy, AResetOrClosedConnectionIsTransientOnlyForAGetOrHead) {
  for (ErrorCode code : {ErrorCode::send_failed, ErrorCode::receive_failed}) {
    const Error reset(code, "connection reset by peer");
    for (const char* method : {"GET", "HEAD"}) {
      EXPECT_TRUE(failure_from_error(reset, method).transient) << to_string(code) << " " << method;
    }
    for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get", ""}) {
      EXPECT_FALSE(failure_from_error(reset, method).transient) << to_string(code) << " " << method;
    }
    EXPECT_FALSE(failure_from_error(reset).transient) << to_string(code);
  }
  // Other errors are as failure_from_error() says, whatever the method.
  EXPECT_FALSE(failure_from_error(Error(ErrorCode::io_failed, "disk full"), "GET").transient);
  EXPECT_TRUE(failure_from_error(Error(ErrorCode::body_truncated, "cut"), "GET").transient);
  EXPECT_TRUE(failure_from_error(Error(ErrorCode::body_truncated, "cut"), "POST").transient);
}

TEST(RetryPolicy, StatusFailureNamesStatusAndUrl) {
  const auto failure = failure_from_status(404, Headers{}, "http://h/missing");
  EXPECT_EQ(failure.error.message(), "HTTP 404 from http://h/missing");
  EXPECT_EQ(failure.error.category(), ErrorCategory::http);
  EXPECT_FALSE(failure.transient);
}

TEST(RetryPolicy, RetriesOnlyWhileAttemptsRemain) {
  RetryPolicy options;
  options.retries = 2;
  const auto transient = failure_of(ErrorCategory::connect);
  EXPECT_TRUE(should_retry(transient, 0, options));
  EXPECT_TRUE(should_retry(transient, 1, options));
  EXPECT_FALSE(should_retry(transient, 2, options));
  options.retries = 0;
  EXPECT_FALSE(should_retry(transient, 0, options));
}

// max_time (curl's --retry-max-time): no retry after it, no wait past it.
TEST(RetryPolicy, MaxTimeCutsTheWaitAndThenEndsTheRetries) {
  RetryPolicy policy;
  policy.retries = 5;
  policy.delay = 4000ms;
  const auto transient = failure_of(ErrorCategory::connect);
  EXPECT_EQ(next_retry_wait(transient, 0, policy, 99'000ms), 4000ms) << "0 is no limit";
  policy.max_time = 10'000ms;
  EXPECT_EQ(next_retry_wait(transient, 0, policy, 1000ms), 4000ms);
  EXPECT_EQ(next_retry_wait(transient, 0, policy, 8000ms), 2000ms);
  EXPECT_FALSE(next_retry_wait(transient, 0, policy, 10'000ms));
  EXPECT_FALSE(next_retry_wait(transient, 0, policy, 12'000ms));
  EXPECT_FALSE(next_retry_wait(transient, 5, policy, 0ms)) << "no attempts left";
  EXPECT_FALSE(next_retry_wait(failure_of(ErrorCategory::usage), 0, policy, 0ms));
}

TEST(RetryPolicy, RetryAllErrorsSparesUsageAndCancel) {
  RetryPolicy options;
  options.retries = 3;
  EXPECT_FALSE(should_retry(failure_of(ErrorCategory::tls), 0, options));
  options.all_errors = true;
  EXPECT_TRUE(should_retry(failure_of(ErrorCategory::tls), 0, options));
  EXPECT_TRUE(should_retry(failure_from_status(404, Headers{}, "u"), 0, options));
  EXPECT_FALSE(should_retry(failure_of(ErrorCategory::usage), 0, options));
  EXPECT_FALSE(should_retry(failure_of(ErrorCategory::cancelled), 0, options));
}

TEST(RetryPolicy, WaitDoublesFromOneSecondUpToAMinute) {
  RetryPolicy options;
  const auto failure = failure_of(ErrorCategory::connect);
  EXPECT_EQ(retry_wait(failure, 0, options), 1000ms);
  EXPECT_EQ(retry_wait(failure, 1, options), 2000ms);
  EXPECT_EQ(retry_wait(failure, 3, options), 8000ms);
  EXPECT_EQ(retry_wait(failure, 6, options), 60000ms);
  EXPECT_EQ(retry_wait(failure, 40, options), 60000ms);
}

TEST(RetryPolicy, RetryAfterSecondsAreHonouredAndCapped) {
  RetryPolicy options;
  Headers headers{{"Retry-After", "7"}};
  EXPECT_EQ(retry_wait(failure_from_status(503, headers, "u"), 0, options), 7000ms);
  Headers huge{{"Retry-After", "86400"}};
  EXPECT_EQ(retry_wait(failure_from_status(503, huge, "u"), 0, options), 60000ms);
  // An HTTP-date in the past: the server's wait is over (tests/unit/client/
  // http_date_test.cpp drives the clock for dates ahead).
  Headers date{{"Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"}};
  EXPECT_EQ(retry_wait(failure_from_status(503, date, "u"), 2, options), 0ms);
  Headers garbage{{"Retry-After", "soon"}};
  EXPECT_EQ(retry_wait(failure_from_status(503, garbage, "u"), 2, options), 4000ms);
  options.delay = 250ms;
  EXPECT_EQ(retry_wait(failure_from_status(503, headers, "u"), 5, options), 250ms)
      << "an explicit delay wins";
}

TEST(RetryPolicy, ParsesRetryAfter) {
  EXPECT_EQ(parse_retry_after(" 12 "), 12000ms);
  EXPECT_EQ(parse_retry_after("0"), 0ms);
  EXPECT_EQ(parse_retry_after("-1"), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.5"), std::nullopt);
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
}

TEST(RateLimiter, GrantsAtMostATenthOfASecond) {
  RateLimiter limiter(1'000'000);
  const auto grant = limiter.take(1'000'000);
  EXPECT_EQ(grant.bytes, 100'000u);
}

TEST(RateLimiter, DebtPushesTheNextReaderBackByItsSize) {
  RateLimiter limiter(1'000'000);
  const auto before = RateLimiter::Clock::now();
  const auto first = limiter.take(100'000);
  const auto second = limiter.take(100'000);
  // The bucket starts empty: the first grant waits ~0.1 s, the second ~0.2 s.
  EXPECT_GE(first.ready_at - before, 90ms);
  EXPECT_GE(second.ready_at - before, 190ms);
  EXPECT_GT(second.ready_at, first.ready_at);
}

TEST(RateLimiter, RefundedBytesShortenTheWait) {
  RateLimiter limiter(1'000'000);
  const auto before = RateLimiter::Clock::now();
  const auto first = limiter.take(100'000);
  limiter.refund(first.bytes);
  const auto second = limiter.take(100'000);
  EXPECT_LT(second.ready_at - before, 150ms);
}

}  // namespace
}  // namespace sluice
