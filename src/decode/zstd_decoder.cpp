#include "decode/zstd_decoder.hpp"

#include <zstd_errors.h>

#include <string>

namespace sluice {
namespace {

// RFC 9659 section 3: the "zstd" content coding limits the window to 8 MB, and a
// decoder may refuse more. Without this a server could make every response
// allocate the library's default maximum of 128 MiB.
constexpr int kMaxWindowLog = 23;

}  // namespace

ZstdDecoder::~ZstdDecoder() { ZSTD_freeDCtx(context_); }

Result<void> ZstdDecoder::ensure_context() {
  if (context_ != nullptr) return {};
  context_ = ZSTD_createDCtx();
  if (context_ == nullptr) {
    return Error(ErrorCategory::decode, "zstd: out of memory starting the decoder");
  }
  const std::size_t rv = ZSTD_DCtx_setParameter(context_, ZSTD_d_windowLogMax, kMaxWindowLog);
  if (ZSTD_isError(rv)) return failure(rv);
  return {};
}

// After a frame ends, ZSTD_decompressStream reads the next one from the same input;
// bytes that are not a frame fail there ("Unknown frame descriptor"), so trailing
// garbage is an error, never dropped silently.
Result<DecodeStep> ZstdDecoder::decode(std::span<const std::byte> input, DecodeOutput& out,
                                       std::size_t max_output) {
  DecodeStep total;
  if (max_output == 0) return total;
  if (auto ready = ensure_context(); !ready) return std::move(ready).error();
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  while (total.produced < max_output) {
    const std::span<std::byte> room = out.room(max_output - total.produced);
    ZSTD_outBuffer sink{room.data(), room.size(), 0};
    const std::size_t in_before = in.pos;
    const std::size_t rv = ZSTD_decompressStream(context_, &sink, &in);
    out.commit(sink.pos);
    total.produced += sink.pos;
    total.consumed = in.pos;
    if (in.pos != 0) started_ = true;
    if (ZSTD_isError(rv)) return failure(rv);
    // 0: a frame ended and all of it was flushed.
    if (in.pos != in_before || sink.pos != 0) at_boundary_ = rv == 0;
    if (in.pos == in_before && sink.pos == 0) break;
    // Input used up with room to spare: everything decodable so far was flushed.
    if (in.pos == in.size && sink.pos < sink.size) break;
  }
  return total;
}

Error ZstdDecoder::failure(std::size_t rv) const {
  if (ZSTD_getErrorCode(rv) == ZSTD_error_frameParameter_windowTooLarge) {
    return Error(ErrorCategory::decode,
                 "zstd: the stream needs a window larger than the 8 MiB HTTP allows");
  }
  if (ZSTD_getErrorCode(rv) == ZSTD_error_memory_allocation) {
    return Error(ErrorCategory::decode, "zstd: out of memory while decoding");
  }
  return Error(ErrorCategory::decode, std::string("zstd: corrupt data: ") + ZSTD_getErrorName(rv));
}

Result<void> ZstdDecoder::finish() {
  if (!started_ || at_boundary_) return {};
  return Error(ErrorCategory::decode, "zstd: body ended mid-stream");
}

std::size_t ZstdDecoder::release_scratch() {
  if (context_ == nullptr || !at_boundary_) return 0;
  const std::size_t freed = ZSTD_sizeof_DCtx(context_);
  ZSTD_freeDCtx(context_);
  context_ = nullptr;
  return freed;
}

}  // namespace sluice
