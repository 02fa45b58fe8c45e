#pragma once
// When a download tries again and how long it waits first: transient failures
// (an Error that says it is retryable(): by default connect, dns, timeout and
// protocol ones; HTTP 408/429/500/502/503/504) are retried up to
// DownloadOptions::retries times, each resuming from the bytes already written.
// Pure functions and values: any thread.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"

namespace sluice {

struct DownloadOptions;

/// One failed attempt: the error, whether trying again may help, and how long the
/// server asked us to wait (Retry-After), when it did.
struct AttemptFailure {
  Error error;
  bool transient = false;
  std::optional<std::chrono::milliseconds> retry_after;
};

bool is_transient_status(int status) noexcept;

/// A failure from an Error of the library (connect refused, body ended early, ...).
AttemptFailure failure_from_error(Error error);
/// A failure from an unwanted status: "HTTP 404 from URL".
AttemptFailure failure_from_status(int status, const Headers& headers, const std::string& url);

/// Retry-After as delay-seconds; std::nullopt for an HTTP-date or garbage.
std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value);

/// Whether attempt number `attempt` (0 for the first) that ended in `failure` is
/// followed by another: transient (or retry_all_errors, except usage and cancelled)
/// and attempts left.
bool should_retry(const AttemptFailure& failure, int attempt, const DownloadOptions& options);

/// The wait before retry number `attempt` + 1: retry_delay when set; else the
/// server's Retry-After; else 1 s doubling per attempt. At most 60 s.
std::chrono::milliseconds retry_wait(const AttemptFailure& failure, int attempt,
                                     const DownloadOptions& options);

}  // namespace sluice
