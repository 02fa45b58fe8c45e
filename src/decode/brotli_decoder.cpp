#include "decode/brotli_decoder.hpp"

#include <cctype>
#include <cstdint>
#include <string>

namespace sluice {

BrotliDecoder::~BrotliDecoder() {
  if (state_ != nullptr) BrotliDecoderDestroyInstance(state_);
}

Result<void> BrotliDecoder::ensure_state() {
  if (state_ != nullptr) return {};
  state_ = BrotliDecoderCreateInstance(&BrotliDecoder::alloc, &BrotliDecoder::release, this);
  if (state_ == nullptr) {
    return Error(ErrorCategory::decode, "br: out of memory starting the decoder");
  }
  return {};
}

// Brotli has no members or frames: one stream, then nothing. Bytes after its end are
// an error rather than ignored, because sluice never drops body bytes silently.
Result<DecodeStep> BrotliDecoder::decode(std::span<const std::byte> input, DecodeOutput& out,
                                         std::size_t max_output) {
  DecodeStep total;
  if (finished_ || max_output == 0) {
    if (finished_ && !input.empty()) {
      return Error(ErrorCategory::decode, "br: unexpected data after the end of the stream");
    }
    return total;
  }
  if (auto ready = ensure_state(); !ready) return std::move(ready).error();
  std::size_t available_in = input.size();
  const auto* next_in = reinterpret_cast<const std::uint8_t*>(input.data());
  while (total.produced < max_output) {
    const std::span<std::byte> room = out.room(max_output - total.produced);
    std::size_t available_out = room.size();
    auto* next_out = reinterpret_cast<std::uint8_t*>(room.data());
    const std::size_t in_before = available_in;
    const BrotliDecoderResult rv = BrotliDecoderDecompressStream(
        state_, &available_in, &next_in, &available_out, &next_out, nullptr);
    const std::size_t written = room.size() - available_out;
    out.commit(written);
    total.produced += written;
    total.consumed = input.size() - available_in;
    if (total.consumed != 0) started_ = true;
    if (rv == BROTLI_DECODER_RESULT_ERROR) return failure();
    if (rv == BROTLI_DECODER_RESULT_SUCCESS) {
      finished_ = true;
      if (available_in != 0) {
        return Error(ErrorCategory::decode, "br: unexpected data after the end of the stream");
      }
      break;
    }
    // NEEDS_MORE_INPUT: every input byte was taken. The guard covers a library that
    // reports more output wanted while it made no progress.
    if (rv == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) break;
    if (written == 0 && available_in == in_before) break;
  }
  return total;
}

// Brotli names its errors like "EXUBERANT_NIBBLE"; codes -21..-30 are failed
// allocations, which say nothing about the data.
Error BrotliDecoder::failure() const {
  const BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(state_);
  if (code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
      code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES) {
    return Error(ErrorCategory::decode, "br: out of memory while decoding");
  }
  std::string reason = BrotliDecoderErrorString(code);
  for (char& c : reason) {
    c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return Error(ErrorCategory::decode, "br: corrupt data (" + reason + ")");
}

Result<void> BrotliDecoder::finish() {
  if (!started_ || finished_) return {};
  return Error(ErrorCategory::decode, "br: body ended mid-stream");
}

std::size_t BrotliDecoder::release_scratch() {
  if (state_ == nullptr || !finished_) return 0;
  const std::size_t before = held_bytes_;
  BrotliDecoderDestroyInstance(state_);
  state_ = nullptr;
  return before - held_bytes_;
}

void* BrotliDecoder::alloc(void* opaque, std::size_t size) noexcept {
  return counted_alloc(static_cast<BrotliDecoder*>(opaque)->held_bytes_, size);
}

void BrotliDecoder::release(void* opaque, void* block) noexcept {
  counted_free(static_cast<BrotliDecoder*>(opaque)->held_bytes_, block);
}

}  // namespace sluice
