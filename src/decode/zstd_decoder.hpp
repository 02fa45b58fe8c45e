#pragma once
// ZstdDecoder: the "zstd" content coding (RFC 9659) over ZSTD_decompressStream, one
// coding of a ContentDecoder chain (the chain applies limits; this class does not).
// Several frames may follow each other, as RFC 8878 allows.
// Ownership: held by the response's ContentDecoder; HTTP thread only.

#include <zstd.h>

#include <cstddef>
#include <span>

#include "decode/content_decoder.hpp"

namespace sluice {

class ZstdDecoder final : public ContentDecoder {
 public:
  ZstdDecoder() noexcept = default;
  ~ZstdDecoder() override;
  ZstdDecoder(const ZstdDecoder&) = delete;
  ZstdDecoder& operator=(const ZstdDecoder&) = delete;

  using ContentDecoder::decode;
  Result<DecodeStep> decode(std::span<const std::byte> input, DecodeOutput& out,
                            std::size_t max_output) override;
  Result<void> finish() override;
  /// Frees the decompression context (its tables and window, ~100 KiB to 8 MiB)
  /// between frames; inside a frame the window is the history later matches copy
  /// from, so nothing can go and 0 is returned.
  std::size_t release_scratch() override;

 private:
  Result<void> ensure_context();
  Error failure(std::size_t rv) const;

  ZSTD_DCtx* context_ = nullptr;
  bool started_ = false;     ///< any input taken: an empty body is not truncated
  bool at_boundary_ = true;  ///< between frames: every frame so far fully decoded
};

}  // namespace sluice
