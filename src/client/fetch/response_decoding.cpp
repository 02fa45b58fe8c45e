// ResponseDecoding: the compressed queue and the decoder between an exchange and the
// staging buffer.
// Thread-safety: HTTP thread only.

#include "client/fetch/response_decoding.hpp"

#include <cassert>
#include <utility>

#include "body/staging_buffer.hpp"

namespace sluice {

ResponseDecoding::ResponseDecoding(std::size_t release_threshold) {
  compressed_.set_release_threshold(release_threshold);
}

Result<void> ResponseDecoding::start(std::string_view coding, DecodeLimits limits) {
  auto decoder = ContentDecoder::create(coding, limits);
  if (!decoder) return std::move(decoder).error();
  decoder_ = std::move(*decoder);
  return {};
}

// Decoded straight into the staging buffer's free room: no scratch, no copy.
Result<DecodeStep> ResponseDecoding::step(StagingBuffer& staging, std::size_t room) {
  assert(decoder_ != nullptr && "step() only while active()");
  const std::span<std::byte> space = staging.prepare(room);
  if (space.empty()) return DecodeStep{};  // nothing may be staged now: the body already ended
  SpanOutput out(space);
  auto step = decoder_->decode(compressed_.readable(), out, space.size());
  if (!step) return step;
  compressed_.consume(step->consumed);
  step->produced = out.written();  // what the caller wakes the reader for
  if (out.written() > 0) staging.append(space.first(out.written()));
  return step;
}

Result<void> ResponseDecoding::finish() {
  if (!decoder_) return {};
  return decoder_->finish();
}

std::size_t ResponseDecoding::drop() {
  const std::size_t dropped = compressed_.size();
  compressed_.clear();
  decoder_.reset();
  return dropped;
}

std::size_t ResponseDecoding::release_scratch() {
  std::size_t freed = compressed_.release_if_empty();
  if (decoder_) freed += decoder_->release_scratch();
  return freed;
}

}  // namespace sluice
