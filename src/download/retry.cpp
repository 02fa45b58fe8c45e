#include "sluice/retry.hpp"

#include <algorithm>
#include <charconv>

#include "sluice/http_date.hpp"
#include "sluice/url.hpp"

namespace sluice {
namespace {

constexpr std::chrono::milliseconds kMaxWait{60'000};

// Retry-After's HTTP-date form: the time left until then, in whole milliseconds
// rounded up (so a retry never starts before the date), between 0 and kMaxWait.
std::optional<std::chrono::milliseconds> retry_after_date(
    std::string_view value, std::chrono::system_clock::time_point now) {
  const auto when = parse_http_date(value);
  if (!when) return std::nullopt;
  // In seconds first: a date as far as 9999 overflows the clock's nanoseconds.
  const std::chrono::seconds ahead = *when - std::chrono::floor<std::chrono::seconds>(now);
  if (ahead <= std::chrono::seconds{0}) return std::chrono::milliseconds{0};
  if (ahead > kMaxWait) return kMaxWait;
  return std::min(std::chrono::ceil<std::chrono::milliseconds>(*when - now), kMaxWait);
}

// GET and HEAD ask for a representation and nothing else (RFC 9110 sections 9.3.1
// and 9.3.2), so retrying one cut off mid-way asks for the rest and can do no harm.
// Narrower than is_idempotent_method(): a PUT or DELETE retried would act again on
// what may have changed since, and the command would send an upload again.
bool only_retrieves(std::string_view method) noexcept {
  return method == "GET" || method == "HEAD";
}

}  // namespace

bool is_transient_status(int status) noexcept {
  switch (status) {
    case 408:
    case 429:
    case 500:
    case 502:
    case 503:
    case 504: return true;
    default: return false;
  }
}

AttemptFailure failure_from_error(Error error) {
  const bool transient = error.retryable();
  return AttemptFailure{std::move(error), transient, std::nullopt};
}

AttemptFailure failure_from_error(Error error, std::string_view method) {
  AttemptFailure failure = failure_from_error(std::move(error));
  const ErrorCode code = failure.error.code();
  const bool cut = code == ErrorCode::send_failed || code == ErrorCode::receive_failed;
  if (cut && only_retrieves(method)) failure.transient = true;
  return failure;
}

AttemptFailure failure_from_status(int status, const Headers& headers, const std::string& url) {
  AttemptFailure failure{Error(ErrorCode::http_status, "HTTP " + std::to_string(status) + " from " +
                                                           url_without_credentials(url)),
                         is_transient_status(status), std::nullopt};
  if (auto value = headers.get("retry-after")) failure.retry_after = parse_retry_after(*value);
  return failure;
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value) {
  return parse_retry_after(value, std::chrono::system_clock::now());
}

std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  unsigned long long seconds = 0;
  if (value.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end != value.data() + value.size()) return retry_after_date(value, now);
  seconds = std::min<unsigned long long>(seconds, kMaxWait.count() / 1000);
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

std::optional<std::chrono::milliseconds> next_retry_wait(const AttemptFailure& failure, int attempt,
                                                         const RetryPolicy& policy,
                                                         std::chrono::milliseconds elapsed) {
  if (!should_retry(failure, attempt, policy)) return std::nullopt;
  const std::chrono::milliseconds wait = retry_wait(failure, attempt, policy);
  if (policy.max_time.count() <= 0) return wait;
  if (elapsed >= policy.max_time) return std::nullopt;
  return std::min(wait, policy.max_time - elapsed);
}

}  // namespace sluice
