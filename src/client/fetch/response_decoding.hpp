#pragma once
// ResponseDecoding: an encoded response body (Content-Encoding) on its way into the
// staging buffer. Received bytes wait in a compressed queue; each step decodes straight
// into the buffer's free room, never past it, so a reader that stops reading also
// stops decompression and a small input cannot inflate past the allowance.
// Ownership: a member of its Transfer; HTTP thread only.

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "core/byte_queue.hpp"
#include "decode/content_decoder.hpp"
#include "sluice/error.hpp"

namespace sluice {

class StagingBuffer;

class ResponseDecoding {
 public:
  /// `release_threshold`: the release rule for the compressed queue's memory.
  explicit ResponseDecoding(std::size_t release_threshold);

  /// Decodes a body coded `coding` from now on (nothing to do for identity). Errors:
  /// an unknown coding, as ContentDecoder::create says.
  Result<void> start(std::string_view coding, DecodeLimits limits);
  /// A decoder runs: received bytes go through take(), not to the buffer.
  bool active() const noexcept { return decoder_ != nullptr; }

  /// Received, still encoded.
  void take(std::span<const std::byte> bytes) { compressed_.append(bytes); }
  /// Decodes into at most `room` bytes of `staging`'s free room and stages them;
  /// only while active(). Nothing consumed and nothing produced: stuck until more
  /// input or more room (or the buffer takes nothing more: the body ended).
  Result<DecodeStep> step(StagingBuffer& staging, std::size_t room);
  /// The encoded body ended and every received byte was decoded: an error when the
  /// coding's stream did not end.
  Result<void> finish();

  /// Received bytes not yet decoded.
  std::size_t pending() const noexcept { return compressed_.size(); }
  /// Nobody will read the body: drops the decoder and what waits; returns those bytes.
  std::size_t drop();
  /// The sweep: frees the empty queue's memory and the decoder's scratch.
  std::size_t release_scratch();
  /// At the end: the empty queue's memory goes.
  void release_if_empty() { compressed_.release_if_empty(); }
  /// Memory kept for reuse while nothing waits.
  std::size_t idle_capacity() const noexcept {
    return compressed_.empty() ? compressed_.capacity() : 0;
  }

 private:
  std::unique_ptr<ContentDecoder> decoder_;
  ByteQueue compressed_;  // received, not yet decoded (waits for staging room)
};

}  // namespace sluice
