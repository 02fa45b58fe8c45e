#pragma once
/// @file
/// When a transfer tries again and how long it waits first, as curl's --retry
/// decides it: transient failures (an Error that says it is retryable(): by default
/// connect, dns, timeout and protocol ones; HTTP 408/429/500/502/503/504) are
/// retried up to RetryPolicy::retries times. sluice::download() applies it to every
/// range, and the `sluice` command to a single fetch; both resume from the bytes
/// already written rather than starting over.
/// Pure functions and values: any thread.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/headers.hpp"

namespace sluice {

/// How often and how patiently to retry (curl's --retry, --retry-delay,
/// --retry-all-errors).
struct RetryPolicy {
  /// Attempts after the first.
  int retries = 0;
  /// Wait before a retry; 0 = 1 s doubling per attempt up to 60 s (or Retry-After).
  std::chrono::milliseconds delay{0};
  /// Retry on every error, not only transient ones.
  bool all_errors = false;
  /// Start no retry once this long has passed since the first attempt began, and cut
  /// a wait short at that point (curl's --retry-max-time); 0: no limit.
  std::chrono::milliseconds max_time{0};
};

/// One failed attempt: the error, whether trying again may help, and how long the
/// server asked us to wait (Retry-After), when it did.
struct AttemptFailure {
  Error error;
  bool transient = false;
  std::optional<std::chrono::milliseconds> retry_after;
};

/// 408, 429, 500, 502, 503 and 504: a status that another attempt may not get.
SLUICE_API bool is_transient_status(int status) noexcept;

/// A failure from an Error of the library (connect refused, body ended early, ...).
SLUICE_API AttemptFailure failure_from_error(Error error);
/// As failure_from_error(), for a request of `method`: when it is a GET or a HEAD
/// (a download's range is one), a connection the peer reset or closed while the
/// request went or the body came (send_failed, receive_failed) is transient too, as
/// asking again for what was not yet received has no effect. Error::retryable()
/// stays false for those because another method may have had its effect before the
/// reset: even an idempotent one (is_idempotent_method()), a PUT or DELETE, would act
/// again on what may have changed since.
SLUICE_API AttemptFailure failure_from_error(Error error, std::string_view method);
/// A failure from an unwanted status: "HTTP 404 from URL", with the server's
/// Retry-After when it sent one.
SLUICE_API AttemptFailure failure_from_status(int status, const Headers& headers,
                                              const std::string& url);

/// Retry-After as the wait it asks for: delay-seconds, or an HTTP-date (as
/// parse_http_date() reads it) less `now`, clamped to 0 for a date in the past. Both
/// forms are capped at 60 s. std::nullopt for garbage.
SLUICE_API std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);
/// The same, with `now` read from the system clock.
SLUICE_API std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

/// Whether attempt number `attempt` (0 for the first) that ended in `failure` is
/// followed by another: transient (or all_errors, except usage and cancelled) and
/// attempts left.
SLUICE_API bool should_retry(const AttemptFailure& failure, int attempt, const RetryPolicy& policy);

/// The wait before retry number `attempt` + 1: policy.delay when set; else the
/// server's Retry-After; else 1 s doubling per attempt. At most 60 s.
SLUICE_API std::chrono::milliseconds retry_wait(const AttemptFailure& failure, int attempt,
                                                const RetryPolicy& policy);

/// The wait before trying again after `failure`, which was attempt `attempt` (0 for
/// the first), `elapsed` after the first attempt began: retry_wait(), cut to what is
/// left of policy.max_time; nullopt when no retry follows (should_retry() says no,
/// or max_time has passed).
SLUICE_API std::optional<std::chrono::milliseconds> next_retry_wait(
    const AttemptFailure& failure, int attempt, const RetryPolicy& policy,
    std::chrono::milliseconds elapsed);

}  // namespace sluice
