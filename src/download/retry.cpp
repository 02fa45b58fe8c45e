#include "sluice/retry.hpp"

#include <algorithm>
#include <charconv>


namespace sluice {
namespace {

constexpr std::chrono::milliseconds kMaxWait{60'000};

}  // namespace

bool is_transient_status(int status) noexcept {
  switch (status) {
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

AttemptFailure failure_from_error(Error error) {
  const bool transient = error.retryable();
  return AttemptFailure{std::move(error), transient, std::nullopt};
}

AttemptFailure failure_from_status(int status, const Headers& headers, const std::string& url) {
  AttemptFailure failure{
      Error(ErrorCode::http_status, "HTTP " + std::to_string(status) + " from " + url),
      is_transient_status(status), std::nullopt};
  if (auto value = headers.get("retry-after")) failure.retry_after = parse_retry_after(*value);
  return failure;
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  unsigned long long seconds = 0;
  if (value.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
  seconds = std::min<unsigned long long>(seconds, 60);
  return std::chrono::milliseconds(seconds * 1000);
}

bool should_retry(const AttemptFailure& failure, int attempt, const RetryPolicy& policy) {
  if (attempt >= policy.retries) return false;
  const ErrorCategory category = failure.error.category();
  if (category == ErrorCategory::usage || category == ErrorCategory::cancelled) return false;
  return failure.transient || policy.all_errors;
}

std::chrono::milliseconds retry_wait(const AttemptFailure& failure, int attempt,
                                     const RetryPolicy& policy) {
  if (policy.delay.count() > 0) return std::min(policy.delay, kMaxWait);
  if (failure.retry_after) return std::min(*failure.retry_after, kMaxWait);
  std::chrono::milliseconds wait{1000};
  for (int i = 0; i < attempt && wait < kMaxWait; ++i) wait *= 2;
  return std::min(wait, kMaxWait);
}

}  // namespace sluice
