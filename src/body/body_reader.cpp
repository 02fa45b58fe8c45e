// The public BodyReader and CallbackBody: thin handles over the response's
// StagingBuffer, pulling and pushed to.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "body/staging_buffer.hpp"
#include "core/time_source.hpp"
#include "sluice/body.hpp"

namespace sluice {

BodyReader::BodyReader(std::shared_ptr<StagingBuffer> staging) : staging_(std::move(staging)) {}

BodyReader& BodyReader::operator=(BodyReader&& other) noexcept {
  if (this != &other) {
    if (staging_) staging_->close_reader();
    staging_ = std::move(other.staging_);
    bytes_read_ = other.bytes_read_;
  }
  return *this;
}

BodyReader::~BodyReader() {
  if (staging_) staging_->close_reader();
}

Result<std::size_t> BodyReader::read(std::span<std::byte> into) {
  if (!staging_) return Error(ErrorCategory::usage, "body reader has no body (moved from?)");
  if (into.empty()) return std::size_t{0};
  auto got = staging_->read(into, std::nullopt);
  if (!got) return std::move(got).error();
  bytes_read_ += **got;
  return **got;
}

Result<std::optional<std::size_t>> BodyReader::read_for(std::span<std::byte> into,
                                                        std::chrono::milliseconds timeout) {
  if (!staging_) return Error(ErrorCategory::usage, "body reader has no body (moved from?)");
  auto got = staging_->read(into, steady_now() + timeout);
  if (got && *got) bytes_read_ += **got;
  return got;
}

namespace {
// A chunk of at most 0 bytes would be empty, which means the end: 0 means no limit,
// as in the C API's sluice_response_next.
std::size_t limit_of(std::size_t max) { return max == 0 ? SIZE_MAX : max; }
}  // namespace

Result<BodyChunk> BodyReader::next(std::size_t max) {
  if (!staging_) return Error(ErrorCategory::usage, "body reader has no body (moved from?)");
  auto lent = staging_->lend(limit_of(max), std::nullopt);
  if (!lent) return std::move(lent).error();
  bytes_read_ += (*lent)->bytes.size();
  return BodyChunk(staging_, (*lent)->bytes, (*lent)->id);
}

Result<std::optional<BodyChunk>> BodyReader::next_for(std::chrono::milliseconds timeout,
                                                      std::size_t max) {
  if (!staging_) return Error(ErrorCategory::usage, "body reader has no body (moved from?)");
  auto lent = staging_->lend(limit_of(max), steady_now() + timeout);
  if (!lent) return std::move(lent).error();
  if (!*lent) return std::optional<BodyChunk>{};
  bytes_read_ += (*lent)->bytes.size();
  return std::optional<BodyChunk>{BodyChunk(staging_, (*lent)->bytes, (*lent)->id)};
}

// Appends straight from the staged blocks: one copy, into the string.
Result<std::string> BodyReader::read_all(std::size_t limit) {
  std::string all;
  for (;;) {
    auto chunk = next();
    if (!chunk) return std::move(chunk).error();
    if (chunk->empty()) return all;
    if (all.size() + chunk->size() > limit) {
      return Error(ErrorCode::body_too_large, "response body exceeds the read_all limit of " +
                                                  std::to_string(limit) + " bytes");
    }
    all.append(reinterpret_cast<const char*>(chunk->bytes().data()), chunk->size());
  }
}

BodyChunk::BodyChunk(std::shared_ptr<StagingBuffer> staging, std::span<const std::byte> bytes,
                     std::uint64_t lend) noexcept
    : staging_(std::move(staging)), bytes_(bytes), lend_(lend) {}

BodyChunk::BodyChunk(BodyChunk&& other) noexcept
    : staging_(std::move(other.staging_)),
      bytes_(std::exchange(other.bytes_, {})),
      lend_(std::exchange(other.lend_, 0)) {}

BodyChunk& BodyChunk::operator=(BodyChunk&& other) noexcept {
  if (this != &other) {
    release();
    staging_ = std::move(other.staging_);
    bytes_ = std::exchange(other.bytes_, {});
    lend_ = std::exchange(other.lend_, 0);
  }
  return *this;
}

void BodyChunk::release() noexcept {
  if (staging_) staging_->give_back(lend_);
  staging_.reset();
  bytes_ = {};
  lend_ = 0;
}

// A reader with no body (moved from) still ends its callbacks once, as a usage
// error, so that a caller waiting for on_end is not left waiting.
CallbackBody BodyReader::on_data(DataCallback on_data, EndCallback on_end) && {
  if (!staging_) {
    if (on_end) on_end(Error(ErrorCategory::usage, "body reader has no body (moved from?)"));
    return CallbackBody();
  }
  staging_->set_callbacks(std::move(on_data), std::move(on_end));
  return CallbackBody(std::move(staging_));
}

std::size_t BodyReader::buffered() const { return staging_ ? staging_->staged_bytes() : 0; }

std::uint64_t BodyReader::bytes_received() const { return staging_ ? staging_->received() : 0; }

std::optional<TimePoint> BodyReader::ended_at() const {
  return staging_ ? staging_->ended_at() : std::nullopt;
}

Headers BodyReader::trailers() const { return staging_ ? staging_->trailers() : Headers{}; }

CallbackBody::CallbackBody(std::shared_ptr<StagingBuffer> staging) : staging_(std::move(staging)) {}

void CallbackBody::resume() {
  if (staging_) staging_->resume_callbacks();
}

std::size_t CallbackBody::buffered() const { return staging_ ? staging_->staged_bytes() : 0; }

std::optional<TimePoint> CallbackBody::ended_at() const {
  return staging_ ? staging_->ended_at() : std::nullopt;
}

Headers CallbackBody::trailers() const { return staging_ ? staging_->trailers() : Headers{}; }

}  // namespace sluice
