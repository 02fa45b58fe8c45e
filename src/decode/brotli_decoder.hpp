#pragma once
// BrotliDecoder: the "br" content coding (RFC 7932) over the streaming brotli decoder,
// one coding of a ContentDecoder chain (the chain applies limits; this class does not).
// Ownership: held by the response's ContentDecoder; HTTP thread only.

#include <brotli/decode.h>

#include <cstddef>
#include <span>

#include "decode/content_decoder.hpp"

namespace sluice {

class BrotliDecoder final : public ContentDecoder {
 public:
  BrotliDecoder() noexcept = default;
  ~BrotliDecoder() override;
  BrotliDecoder(const BrotliDecoder&) = delete;
  BrotliDecoder& operator=(const BrotliDecoder&) = delete;

  using ContentDecoder::decode;
  Result<DecodeStep> decode(std::span<const std::byte> input, DecodeOutput& out,
                            std::size_t max_output) override;
  Result<void> finish() override;
  /// Frees the decoder state and its ring buffer (up to the 16 MiB window) once the
  /// stream has ended; before that the ring buffer is the history later
  /// back-references copy from, so nothing can go and 0 is returned.
  std::size_t release_scratch() override;

 private:
  Result<void> ensure_state();
  Error failure() const;

  static void* alloc(void* opaque, std::size_t size) noexcept;
  static void release(void* opaque, void* block) noexcept;

  BrotliDecoderState* state_ = nullptr;
  bool started_ = false;        ///< any input taken: an empty body is not truncated
  bool finished_ = false;       ///< the stream's last meta-block was decoded
  std::size_t held_bytes_ = 0;  ///< what brotli currently holds (counted_alloc)
};

}  // namespace sluice
