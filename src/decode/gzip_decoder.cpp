#include "decode/gzip_decoder.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace sluice {
namespace {

// zlib: windowBits 8..15 = zlib wrapper, -15 = raw deflate, +16 = gzip wrapper only.
constexpr int kZlibWindowBits = 15;
constexpr int kRawWindowBits = -15;
constexpr int kGzipWindowBits = 15 + 16;
constexpr unsigned char kGzipMagic0 = 0x1f;

// RFC 1950 section 2.2: CM = 8 (deflate), CINFO <= 7, and CMF*256 + FLG a multiple of 31.
bool is_zlib_header(unsigned char cmf, unsigned char flg) noexcept {
  return (cmf & 0x0f) == Z_DEFLATED && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
}

uInt clamp_to_uint(std::size_t n) noexcept {
  return static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX));
}

}  // namespace

GzipDecoder::GzipDecoder(Format format) noexcept
    : format_(format), state_(format == Format::gzip ? State::in_stream : State::sniffing) {}

GzipDecoder::~GzipDecoder() {
  if (inflater_ready_) inflateEnd(&strm_);
}

const char* GzipDecoder::name() const noexcept {
  return format_ == Format::gzip ? "gzip" : "deflate";
}

Result<DecodeStep> GzipDecoder::decode(std::span<const std::byte> input, DecodeOutput& out,
                                       std::size_t max_output) {
  DecodeStep total;
  while (total.produced < max_output) {
    auto progress = step(input.subspan(total.consumed), out, max_output - total.produced);
    if (!progress) return std::move(progress).error();
    total.consumed += progress->consumed;
    total.produced += progress->produced;
    if (progress->consumed != 0) started_ = true;
    if (progress->stop) break;
  }
  return total;
}

Result<GzipDecoder::Progress> GzipDecoder::step(std::span<const std::byte> input, DecodeOutput& out,
                                                std::size_t max_output) {
  switch (state_) {
    case State::sniffing: return sniff(input);
    case State::in_stream: return inflate_some(input, out, max_output);
    case State::stream_end: return start_next_member(input);
  }
  return Progress{.stop = true};
}

// "deflate" is meant to be zlib-wrapped (RFC 9110 section 8.4.1.2), but servers have
// long sent raw deflate; like browsers, accept raw when the first two bytes are not
// a valid zlib header. zlib cannot be asked to guess, so the two bytes are held here
// and replayed into whichever inflater they chose.
Result<GzipDecoder::Progress> GzipDecoder::sniff(std::span<const std::byte> input) {
  const std::size_t take = std::min(sizeof sniffed_ - sniffed_len_, input.size());
  std::memcpy(sniffed_ + sniffed_len_, input.data(), take);
  sniffed_len_ += take;
  if (sniffed_len_ < sizeof sniffed_) return Progress{.consumed = take, .stop = true};
  const bool zlib = is_zlib_header(sniffed_[0], sniffed_[1]);
  if (auto ready = ensure_inflater(zlib ? kZlibWindowBits : kRawWindowBits); !ready) {
    return std::move(ready).error();
  }
  state_ = State::in_stream;
  return Progress{.consumed = take};
}

Result<GzipDecoder::Progress> GzipDecoder::inflate_some(std::span<const std::byte> input,
                                                        DecodeOutput& out, std::size_t max_output) {
  // gzip starts its inflater lazily here; deflate's was chosen by sniff().
  if (auto ready = ensure_inflater(kGzipWindowBits); !ready) return std::move(ready).error();
  const bool replaying = sniffed_fed_ < sniffed_len_;
  const auto* source =
      replaying ? sniffed_ + sniffed_fed_ : reinterpret_cast<const unsigned char*>(input.data());
  const uInt source_len = clamp_to_uint(replaying ? sniffed_len_ - sniffed_fed_ : input.size());
  const std::span<std::byte> room = out.room(max_output);
  // zlib never writes through next_in; the pointer is non-const only in its old API.
  strm_.next_in = const_cast<unsigned char*>(source);
  strm_.avail_in = source_len;
  strm_.next_out = reinterpret_cast<unsigned char*>(room.data());
  strm_.avail_out = clamp_to_uint(room.size());
  const uInt room_len = strm_.avail_out;
  const int rv = inflate(&strm_, Z_NO_FLUSH);
  const std::size_t taken = source_len - strm_.avail_in;
  const std::size_t written = room_len - strm_.avail_out;
  out.commit(written);
  if (rv != Z_OK && rv != Z_STREAM_END && rv != Z_BUF_ERROR) return corrupt(rv);
  Progress progress{.produced = written};
  if (replaying) {
    sniffed_fed_ += taken;
  } else {
    progress.consumed = taken;
  }
  if (rv == Z_STREAM_END) {
    state_ = State::stream_end;
    return progress;
  }
  // Z_BUF_ERROR: nothing could move. Input exhausted with room left: zlib has nothing
  // pending, so another call would only report Z_BUF_ERROR.
  const bool source_done = strm_.avail_in == 0 && strm_.avail_out != 0;
  progress.stop = rv == Z_BUF_ERROR || (taken == 0 && written == 0) || (!replaying && source_done);
  return progress;
}

// A gzip body may hold several members back to back (RFC 1952 section 2.2; servers
// concatenate pre-compressed pieces), so a gzip magic byte after a member's trailer
// starts the next one. Anything else after the end is an error rather than ignored:
// sluice never drops body bytes silently, and bytes that decode to nothing are more
// likely a broken or spliced response than padding worth tolerating. "deflate" has
// no members, so any byte after its end is an error.
Result<GzipDecoder::Progress> GzipDecoder::start_next_member(std::span<const std::byte> input) {
  if (input.empty()) return Progress{.stop = true};
  if (format_ == Format::deflate) {
    return Error(ErrorCategory::decode,
                 "deflate: unexpected data after the end of the compressed stream");
  }
  if (static_cast<unsigned char>(input[0]) != kGzipMagic0) {
    return Error(ErrorCategory::decode,
                 "gzip: unexpected data after the end of the gzip stream "
                 "(not another gzip member)");
  }
  if (inflater_ready_) {
    if (inflateReset(&strm_) != Z_OK) return corrupt(Z_STREAM_ERROR);
  } else if (auto ready = ensure_inflater(kGzipWindowBits); !ready) {
    return std::move(ready).error();
  }
  state_ = State::in_stream;
  return Progress{};
}

Result<void> GzipDecoder::ensure_inflater(int window_bits) {
  if (inflater_ready_) return {};
  strm_ = z_stream{};
  strm_.zalloc = &GzipDecoder::zalloc;
  strm_.zfree = &GzipDecoder::zfree;
  strm_.opaque = this;
  const int rv = inflateInit2(&strm_, window_bits);
  if (rv != Z_OK) {
    return Error(ErrorCategory::decode,
                 std::string(name()) + (rv == Z_MEM_ERROR
                                            ? ": out of memory starting the decoder"
                                            : ": cannot start zlib (library version mismatch)"));
  }
  inflater_ready_ = true;
  return {};
}

Error GzipDecoder::corrupt(int rv) const {
  std::string message = name();
  if (rv == Z_MEM_ERROR) {
    message += ": out of memory while decoding";
  } else if (rv == Z_NEED_DICT) {
    message += ": corrupt data: the stream needs a preset dictionary";
  } else {
    message += ": corrupt data";
    if (strm_.msg != nullptr) message.append(": ").append(strm_.msg);
  }
  return Error(ErrorCategory::decode, std::move(message));
}

Result<void> GzipDecoder::finish() {
  if (!started_ || state_ == State::stream_end) return {};
  return Error(ErrorCategory::decode, std::string(name()) + ": body ended mid-stream");
}

std::size_t GzipDecoder::release_scratch() {
  if (!inflater_ready_ || state_ != State::stream_end) return 0;
  const std::size_t before = held_bytes_;
  inflateEnd(&strm_);
  inflater_ready_ = false;
  return before - held_bytes_;
}

void* GzipDecoder::zalloc(void* opaque, unsigned items, unsigned size) noexcept {
  auto* self = static_cast<GzipDecoder*>(opaque);
  return counted_alloc(self->held_bytes_, std::size_t{items} * size);
}

void GzipDecoder::zfree(void* opaque, void* block) noexcept {
  counted_free(static_cast<GzipDecoder*>(opaque)->held_bytes_, block);
}

}  // namespace sluice
