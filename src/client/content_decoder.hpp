#pragma once
// Streaming content decoding (gzip, deflate, br, zstd) with limits, output-bounded so
// that a reader that stops also stops decompression.
// Ownership: one decoder per response, HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "io/byte_queue.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct DecodeLimits {
  std::uint64_t max_decoded_size = 0;  ///< 0 = none
  std::uint32_t max_ratio = 0;         ///< decoded per encoded byte past 1 MiB; 0 = none
};

struct DecodeStep {
  std::size_t consumed = 0;  ///< input bytes taken
  std::size_t produced = 0;  ///< output bytes appended
};

class ContentDecoder {
 public:
  virtual ~ContentDecoder() = default;

  /// A decoder for a Content-Encoding header value ("gzip", "br", "x-gzip",
  /// "deflate", "zstd", "identity", or a comma list of up to 4 applied in order).
  /// Unknown codings are an error (decode): "content encoding 'compress' is not supported".
  /// Returns nullptr for identity or an empty value.
  static Result<std::unique_ptr<ContentDecoder>> create(std::string_view content_encoding,
                                                        DecodeLimits limits);

  /// Decodes from `input`, appending at most `max_output` bytes to `out`. Call again
  /// with the unconsumed input when room frees up. Errors: decode ("gzip: corrupt
  /// data: invalid block type"), too_large ("decoded body exceeds 1000:1 ratio").
  virtual Result<DecodeStep> decode(std::span<const std::byte> input, ByteQueue& out,
                                    std::size_t max_output) = 0;
  /// The encoded body ended; error if the stream is incomplete ("gzip: body ended
  /// mid-stream"). Call only after decode() consumed all input and produced nothing
  /// more with room available.
  virtual Result<void> finish() = 0;
  /// Frees internal scratch that can be rebuilt (for the sweep); returns bytes freed.
  virtual std::size_t release_scratch() { return 0; }
};

/// The Accept-Encoding value sluice sends when decoding is on.
inline constexpr std::string_view kAcceptEncoding = "gzip, deflate, br, zstd";

}  // namespace sluice
