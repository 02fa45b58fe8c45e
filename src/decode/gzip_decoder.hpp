#pragma once
// GzipDecoder: the "gzip" and "deflate" content codings over zlib's inflate, one
// coding of a ContentDecoder chain (the chain applies limits; this class does not).
// Ownership: held by the response's ContentDecoder; HTTP thread only. Not movable,
// because zlib keeps a pointer back to the z_stream.

#include <zlib.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "decode/content_decoder.hpp"

namespace sluice {

class GzipDecoder final : public ContentDecoder {
 public:
  enum class Format {
    gzip,     ///< RFC 1952, several members may follow each other
    deflate,  ///< RFC 1950 (zlib-wrapped), or raw RFC 1951 as servers often send
  };

  explicit GzipDecoder(Format format) noexcept;
  ~GzipDecoder() override;
  GzipDecoder(const GzipDecoder&) = delete;
  GzipDecoder& operator=(const GzipDecoder&) = delete;

  using ContentDecoder::decode;
  Result<DecodeStep> decode(std::span<const std::byte> input, DecodeOutput& out,
                            std::size_t max_output) override;
  Result<void> finish() override;
  /// Frees zlib's state and window (about 40 KiB) when the decoder sits at the end
  /// of a stream or member; mid-stream the window holds the history that later
  /// back-references copy from, so nothing can go and 0 is returned.
  std::size_t release_scratch() override;

 private:
  enum class State {
    sniffing,    ///< deflate only: collecting 2 bytes to tell zlib from raw deflate
    in_stream,   ///< inflating a stream (or gzip member)
    stream_end,  ///< a stream (or member) ended; more input must start a new member
  };

  /// What one state step did; `stop` means no further progress in this call.
  struct Progress {
    std::size_t consumed = 0;
    std::size_t produced = 0;
    bool stop = false;
  };

  Result<Progress> step(std::span<const std::byte> input, DecodeOutput& out,
                        std::size_t max_output);
  Result<Progress> sniff(std::span<const std::byte> input);
  Result<Progress> inflate_some(std::span<const std::byte> input, DecodeOutput& out,
                                std::size_t max_output);
  Result<Progress> start_next_member(std::span<const std::byte> input);
  Result<void> ensure_inflater(int window_bits);
  Error corrupt(int rv) const;
  const char* name() const noexcept;

  static void* zalloc(void* opaque, unsigned items, unsigned size) noexcept;
  static void zfree(void* opaque, void* block) noexcept;

  Format format_;
  State state_;
  z_stream strm_{};
  bool inflater_ready_ = false;
  bool started_ = false;           ///< any input taken: an empty body is not truncated
  unsigned char sniffed_[2] = {};  ///< deflate: the first two bytes, replayed to zlib
  std::size_t sniffed_len_ = 0;    ///< how many of sniffed_ were collected
  std::size_t sniffed_fed_ = 0;    ///< how many of them zlib has taken
  std::size_t held_bytes_ = 0;     ///< what zlib currently holds (counted_alloc)
};

}  // namespace sluice
