#include "download/download_fetch.hpp"

#include <algorithm>
#include <span>
#include <thread>

#include "core/time_source.hpp"
#include "download/file/download_file.hpp"
#include "download/file/download_sha256.hpp"
#include "tools/rate_limiter.hpp"

namespace sluice {
namespace {

constexpr std::uint64_t kUnbounded = ~std::uint64_t{0};

std::string range_text(std::uint64_t first, std::optional<std::uint64_t> end) {
  return std::to_string(first) + "-" + (end ? std::to_string(*end - 1) : std::string());
}

}  // namespace

Result<void> RangeFetch::run(std::optional<Response> first) {
  slot_.active.store(true, std::memory_order_release);
  std::optional<Response> response = std::move(first);
  Result<void> outcome;
  // Each source gets the policy's retries for this range; one it leaves is never
  // asked again by this range, so the loop ends.
  for (int attempt = 0;; ++attempt) {
    auto failure = this->attempt(response);
    response.reset();
    if (!failure) break;
    if (shared_.stopping()) {
      outcome = std::move(failure->error);
      break;
    }
    // A mirror whose failure no retry mends (it serves another file) is not asked
    // again; a transient one (refused, cut, 503) gets its retries first.
    const bool mirror_at_fault =
        DownloadSources::is_mirror(source_) && blames_source(*failure) && !failure->transient;
    const std::optional<std::chrono::milliseconds> wait =
        mirror_at_fault ? std::nullopt
                        : next_retry_wait(*failure, attempt, shared_.options.retry,
                                          std::chrono::duration_cast<std::chrono::milliseconds>(
                                              steady_now() - shared_.began));
    if (wait) {
      if (!sleep_until(steady_now() + *wait)) {
        outcome = stopped().error;
        break;
      }
      shared_.retries.fetch_add(1, std::memory_order_acq_rel);
      continue;
    }
    if (!blames_source(*failure)) {
      outcome = std::move(failure->error);
      break;
    }
    if (!leave_source(*failure, attempt)) {
      outcome = nowhere_left(std::move(failure->error));
      break;
    }
    attempt = -1;  // the range goes elsewhere, with that source's retries
  }
  slot_.active.store(false, std::memory_order_release);
  return outcome;
}

// The range has given up on source_ after `retries` retries there: a mirror is
// dropped for every range; the primary only for this one (noted), since other ranges
// may still do well on it. False when no live source is left to this range.
bool RangeFetch::leave_source(const AttemptFailure& failure, int retries) {
  if (left_.empty()) left_.assign(shared_.sources->count(), false);
  left_[source_] = true;
  std::string why = failure.error.message();
  if (retries > 0)
    why += " (after " + std::to_string(retries) + (retries == 1 ? " retry)" : " retries)");
  const std::size_t from = source_;
  if (DownloadSources::is_mirror(from)) shared_.sources->drop(from, why);
  const auto next = shared_.sources->next_for_range(from, left_);
  if (!next) return false;
  if (!DownloadSources::is_mirror(from)) {
    shared_.sources->note_move("range " + std::to_string(slot_.index + 1) + " moved from " +
                               shared_.sources->url(from) + " to the mirror " +
                               shared_.sources->url(*next) + ": " + why);
  }
  source_ = *next;
  return true;
}

// One request (unless `response` is already there) and its body into the file.
std::optional<AttemptFailure> RangeFetch::attempt(std::optional<Response>& response) {
  if (slot_.spec().complete()) return std::nullopt;
  std::optional<AttemptFailure> failure;
  skip_ = 0;
  if (!response) failure = request_range(response);
  if (!failure && skip_ > 0) failure = skip_written(response->body);
  if (!failure) failure = stream(response->body);
  response.reset();  // a range that stopped at its end leaves the rest of a body unread
  return failure;
}

std::optional<AttemptFailure> RangeFetch::request_range(std::optional<Response>& response) {
  Request request = shared_.sources->request_for(source_);
  const RangeSpec spec = slot_.spec();
  asked_end_ = spec.end;
  request.headers.set("Range", range_header_value(spec));
  if (!shared_.validator.empty()) request.headers.set("If-Range", shared_.validator);
  PendingResponse pending = shared_.client.send(std::move(request));
  for (;;) {
    if (shared_.stopping()) return stopped();  // dropping `pending` cancels it
    auto decided = pending.wait_for(kDownloadSlice);
    if (!decided) {
      look_around();
      continue;
    }
    if (!*decided)
      return failure_from_error(std::move(*decided).error(), shared_.options.request.method);
    if (auto wrong = check_response(decided->value())) return wrong;
    response.emplace(std::move(*decided).value());
    return std::nullopt;
  }
}

bool RangeFetch::same_file(const Response& response) const {
  return is_same_resource(response.headers, shared_.validator, shared_.total);
}

// A range's answer must be 206 with exactly the bytes asked for, or a 200 that is
// the same file (a server that stopped answering ranges): its first bytes are then
// read past, as -C - does with a server that ignores the range.
std::optional<AttemptFailure> RangeFetch::check_response(const Response& response) {
  if (response.status != 206 && response.status != 200) {
    return failure_from_status(response.status, response.headers, shared_.sources->url(source_));
  }
  const std::string asked = describe();
  if (response.status == 200) {
    if (same_file(response)) {
      skip_ = slot_.spec().next();
      return std::nullopt;
    }
    if (DownloadSources::is_mirror(source_)) {
      return AttemptFailure{
          Error(ErrorCategory::protocol, asked + ": the mirror answered 200 with another file (its "
                                                 "validator or size is not the URL's)"),
          false, std::nullopt};
    }
    return AttemptFailure{
        Error(ErrorCategory::protocol,
              asked + ": the server answered 200 with another file (its validator or size "
                      "changed since the download began); run the download again with -C - "
                      "to restart it"),
        false, std::nullopt};
  }
  const auto header = response.headers.get("content-range");
  const auto range = header ? parse_content_range(*header) : std::nullopt;
  const auto spec = slot_.spec();
  const bool exact = range && range->first == spec.next() &&
                     (!asked_end_ || range->last == *asked_end_ - 1) &&
                     (!shared_.total || range->total == shared_.total);
  if (exact) return check_mirror_validator(response);
  return AttemptFailure{
      Error(ErrorCategory::protocol, asked + ": the server answered Content-Range '" +
                                         std::string(header.value_or("")) + "'"),
      false, std::nullopt};
}

// If-Range already makes a server with another validator answer 200 (refused above
// unless it is the same file); this also refuses a mirror that ignores If-Range or
// sends no validator at all, so the bytes of two files never mix.
std::optional<AttemptFailure> RangeFetch::check_mirror_validator(const Response& response) const {
  const std::string& validator = shared_.validator;
  if (!DownloadSources::is_mirror(source_) || validator.empty()) return std::nullopt;
  const bool is_etag = validator.front() == '"' || validator.rfind("W/", 0) == 0;
  const char* name = is_etag ? "ETag" : "Last-Modified";
  const auto own = response.headers.get(is_etag ? "etag" : "last-modified");
  if (own && *own == validator) return std::nullopt;
  const std::string what = own ? "'" + std::string(*own) + "', not the URL's '" + validator + "'"
                               : "missing (the URL's is '" + validator + "')";
  return AttemptFailure{
      Error(ErrorCategory::protocol, describe() + ": the mirror's " + name + " is " + what), false,
      std::nullopt};
}

bool RangeFetch::blames_source(const AttemptFailure& failure) {
  const ErrorCategory category = failure.error.category();
  return category != ErrorCategory::io && category != ErrorCategory::cancelled &&
         category != ErrorCategory::usage;
}

// The last failure, and with mirrors why each of them is out too: a person sees every
// source's story, not only the last one's.
Error RangeFetch::nowhere_left(Error last) const {
  if (shared_.sources->count() == 1) return last;
  std::string message = last.message() + "; no source is left for this range";
  for (const DownloadSourceReport& source : shared_.sources->reports()) {
    if (!source.dropped.empty())
      message += " (mirror " + source.url + " dropped: " + source.dropped + ")";
  }
  return Error(last.code(), std::move(message)).set_retryable(last.retryable());
}

std::string RangeFetch::describe() const {
  const auto spec = slot_.spec();
  return "download: range " + std::to_string(slot_.index + 1) + " of " +
         std::to_string(shared_.range_count.load()) + " (bytes " +
         range_text(spec.next(), spec.end) + ") of " + shared_.sources->url(source_);
}

AttemptFailure RangeFetch::stopped() const {
  const bool cancelled = shared_.options.cancel && shared_.options.cancel->load();
  return AttemptFailure{
      Error(ErrorCategory::cancelled,
            cancelled ? "download: cancelled" : "download: stopped because another range failed"),
      false, std::nullopt};
}

bool RangeFetch::sleep_until(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (shared_.stopping()) return false;
    const auto now = steady_now();
    if (now >= deadline) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(deadline - now, kDownloadSlice));
    look_around();
  }
}

std::optional<std::size_t> RangeFetch::rate_grant(std::size_t want) {
  if (!shared_.limiter) return want;
  const auto grant = shared_.limiter->take(want);
  if (!sleep_until(grant.ready_at)) {
    shared_.limiter->refund(grant.bytes);
    return std::nullopt;
  }
  return grant.bytes;
}

std::optional<AttemptFailure> RangeFetch::skip_written(BodyReader& body) {
  while (skip_ > 0) {
    if (shared_.stopping()) return stopped();
    auto got = body.next_for(
        kDownloadSlice, static_cast<std::size_t>(std::min<std::uint64_t>(skip_, kLargestStep)));
    if (!got) return failure_from_error(std::move(got).error(), shared_.options.request.method);
    if (!*got) {
      look_around();
      continue;
    }
    const std::size_t count = (*got)->size();
    if (count == 0) {
      return AttemptFailure{Error(ErrorCategory::protocol,
                                  describe() + ": the whole-file answer ended before the range"),
                            true, std::nullopt};
    }
    slot_.received.fetch_add(count, std::memory_order_acq_rel);
    skip_ -= count;
  }
  return std::nullopt;
}

// Each step borrows what is staged (at most what the rate limiter granted) and
// writes it at its offset before borrowing more; the chunk goes back to the staging
// buffer after the write, so the stream stays paused at its mark while the disk is
// slower than the network. Every byte counted as done is in the file. Each write is
// reserved with the slot first: the supervisor may cut the range's end (a range that
// finished early takes the second half of the rest), and the reservation clips the
// write to the end as it is now; the rest of the body is left unread.
std::optional<AttemptFailure> RangeFetch::stream(BodyReader& body) {
  std::uint64_t offset = slot_.spec().next();
  for (;;) {
    const auto end = slot_.end();
    const std::uint64_t remaining = end ? (*end > offset ? *end - offset : 0) : kUnbounded;
    if (remaining == 0) return std::nullopt;
    if (shared_.stopping()) return stopped();
    const auto granted =
        rate_grant(static_cast<std::size_t>(std::min<std::uint64_t>(kLargestStep, remaining)));
    if (!granted) return stopped();
    auto got = body.next_for(kDownloadSlice, *granted);
    const std::size_t arrived = got && *got ? (*got)->size() : 0;
    const auto count = static_cast<std::size_t>(slot_.reserve(offset, arrived));
    if (shared_.limiter) shared_.limiter->refund(*granted - count);
    if (!got) return failure_from_error(std::move(got).error(), shared_.options.request.method);
    if (!*got) {
      look_around();
      continue;
    }
    if (arrived == 0) {
      if (remaining == kUnbounded) return std::nullopt;
      return AttemptFailure{
          Error(ErrorCategory::protocol,
                describe() + ": the body ended " + std::to_string(remaining) + " bytes early"),
          true, std::nullopt};
    }
    const BodyChunk chunk = std::move(**got);
    slot_.received.fetch_add(arrived, std::memory_order_acq_rel);
    const auto bytes = chunk.bytes().first(count);
    if (shared_.running_hash) {
      shared_.running_hash->update(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), count));
      shared_.hashed.fetch_add(count, std::memory_order_acq_rel);
    }
    // Bytes that arrived before a failure are good: written first, so a retry
    // continues after them.
    if (auto written = shared_.file.write_at(bytes, offset); !written) {
      return AttemptFailure{std::move(written).error(), false, std::nullopt};
    }
    offset += count;
    slot_.done.store(offset - slot_.start, std::memory_order_release);
    shared_.sources->count_written(source_, count);
    look_around();
  }
}

}  // namespace sluice
