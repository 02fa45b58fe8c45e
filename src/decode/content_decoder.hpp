#pragma once
// Streaming content decoding (gzip, deflate, br, zstd) with limits, output-bounded so
// that a reader that stops also stops decompression.
// Ownership: one decoder per response, HTTP thread only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "core/byte_queue.hpp"
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

/// Where a decoder writes: room handed out piece by piece, then committed. Either a
/// ByteQueue that grows (QueueOutput) or fixed memory, such as the staging buffer's
/// free room (SpanOutput), which the decoded bytes then never leave.
class DecodeOutput {
 public:
  virtual ~DecodeOutput() = default;
  /// Room for at most `limit` more bytes (maybe less; empty once full).
  virtual std::span<std::byte> room(std::size_t limit) = 0;
  /// The first `n` bytes of the last room were written.
  virtual void commit(std::size_t n) = 0;
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
  virtual Result<DecodeStep> decode(std::span<const std::byte> input, DecodeOutput& out,
                                    std::size_t max_output) = 0;
  /// The same, appending to `out`.
  Result<DecodeStep> decode(std::span<const std::byte> input, ByteQueue& out,
                            std::size_t max_output);
  /// The encoded body ended; error if the stream is incomplete ("gzip: body ended
  /// mid-stream"). Call only after decode() consumed all input and produced nothing
  /// more with room available.
  virtual Result<void> finish() = 0;
  /// Frees internal scratch that can be rebuilt (for the sweep); returns bytes freed.
  virtual std::size_t release_scratch() { return 0; }
};

// --- Shared by the per-coding decoders (gzip_decoder.cpp, brotli_decoder.cpp,
// zstd_decoder.cpp); not for other callers. ---

/// Room at the back of `out` where a decoder writes at most `limit` bytes in place:
/// all of the queue's spare capacity, growing it by at most kDecodeOutputStep per call,
/// so a call that may produce up to 256 KiB but produces 10 bytes does not allocate
/// 256 KiB. The span is never longer than `limit`; commit what was written.
inline constexpr std::size_t kDecodeOutputStep = 16 * 1024;
std::span<std::byte> decode_output_room(ByteQueue& out, std::size_t limit);

/// Appends to a ByteQueue (decode_output_room's growth).
class QueueOutput final : public DecodeOutput {
 public:
  explicit QueueOutput(ByteQueue& queue) noexcept : queue_(queue) {}
  std::span<std::byte> room(std::size_t limit) override {
    return decode_output_room(queue_, limit);
  }
  void commit(std::size_t n) override { queue_.commit(n); }

 private:
  ByteQueue& queue_;
};

/// Fills fixed memory from its start; written() says how far.
class SpanOutput final : public DecodeOutput {
 public:
  explicit SpanOutput(std::span<std::byte> memory) noexcept : memory_(memory) {}
  std::span<std::byte> room(std::size_t limit) override {
    const std::span<std::byte> left = memory_.subspan(written_);
    return left.first(std::min(limit, left.size()));
  }
  void commit(std::size_t n) override { written_ += n; }
  std::size_t written() const noexcept { return written_; }

 private:
  std::span<std::byte> memory_;
  std::size_t written_ = 0;
};

/// malloc/free that keep a running total of the bytes a compression library holds,
/// so release_scratch() can report what it freed. `total` belongs to one decoder
/// (HTTP thread only). counted_alloc returns nullptr on failure, like malloc.
void* counted_alloc(std::size_t& total, std::size_t size) noexcept;
void counted_free(std::size_t& total, void* block) noexcept;

/// The Accept-Encoding value sluice sends when decoding is on.
inline constexpr std::string_view kAcceptEncoding = "gzip, deflate, br, zstd";

}  // namespace sluice
