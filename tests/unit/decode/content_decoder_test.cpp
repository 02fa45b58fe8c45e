#include "decode/content_decoder.hpp"

#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace sluice {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr int kGzipBits = 15 + 16;
constexpr int kZlibBits = 15;
constexpr int kRawBits = -15;

// --- Encoders: real streams made by the reference libraries. ---

std::string deflate_with(std::string_view data, int window_bits, int level = 6) {
  z_stream strm{};
  EXPECT_EQ(deflateInit2(&strm, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string encoded(deflateBound(&strm, data.size()), '\0');
  strm.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  strm.avail_in = static_cast<uInt>(data.size());
  strm.next_out = reinterpret_cast<Bytef*>(encoded.data());
  strm.avail_out = static_cast<uInt>(encoded.size());
  EXPECT_EQ(deflate(&strm, Z_FINISH), Z_STREAM_END);
  encoded.resize(strm.total_out);
  deflateEnd(&strm);
  return encoded;
}

std::string gzip(std::string_view data) { return deflate_with(data, kGzipBits); }

std::string brotli(std::string_view data) {
  std::string encoded(BrotliEncoderMaxCompressedSize(data.size()), '\0');
  std::size_t size = encoded.size();
  EXPECT_TRUE(BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, data.size(),
                                    reinterpret_cast<const uint8_t*>(data.data()), &size,
                                    reinterpret_cast<uint8_t*>(encoded.data())));
  encoded.resize(size);
  return encoded;
}

std::string zstd(std::string_view data) {
  std::string encoded(ZSTD_compressBound(data.size()), '\0');
  const std::size_t size =
      ZSTD_compress(encoded.data(), encoded.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(size));
  encoded.resize(size);
  return encoded;
}

// Words, random bytes and runs, so every coder uses matches, literals and stored
// (incompressible) blocks.
std::string mixed_data(std::size_t size) {
  static const char* const kWords[] = {"sluice ",       "gate ", "water ",     "<div class=\"x\">",
                                       "backpressure ", "\r\n",  "0123456789", "{\"k\": 1}"};
  std::mt19937 rng(1234);
  std::string data;
  while (data.size() < size) {
    switch (rng() % 3) {
      case 0:
        for (int i = 0; i < 200; ++i) data += kWords[rng() % std::size(kWords)];
        break;
      case 1:
        for (int i = 0; i < 3000; ++i) data += static_cast<char>(rng());
        break;
      default: data.append(500 + rng() % 2000, static_cast<char>('a' + rng() % 26));
    }
  }
  data.resize(size);
  return data;
}

// --- A caller: feeds `piece` more encoded bytes whenever the decoder stalls, and
// takes all output after each call, as the HTTP thread would. ---

struct Decoded {
  std::string text;
  std::size_t calls = 0;
};

Result<Decoded> decode_all(ContentDecoder& decoder, std::string_view encoded, std::size_t piece,
                           std::size_t max_output) {
  Decoded result;
  ByteQueue out;
  std::size_t pos = 0;
  std::size_t fed = std::min(piece, encoded.size());
  while (true) {
    auto step = decoder.decode(as_bytes(encoded.substr(pos, fed - pos)), out, max_output);
    ++result.calls;
    if (!step) return std::move(step).error();
    EXPECT_LE(step->produced, max_output);
    EXPECT_EQ(out.size(), step->produced);
    pos += step->consumed;
    result.text += as_text(out.readable());
    out.clear();
    if (step->consumed == 0 && step->produced == 0) {
      if (fed == encoded.size()) break;
      fed = std::min(encoded.size(), fed + piece);
    }
  }
  EXPECT_EQ(pos, encoded.size());
  if (auto done = decoder.finish(); !done) return std::move(done).error();
  return result;
}

Result<Decoded> decode_with(std::string_view coding, std::string_view encoded,
                            std::size_t piece = SIZE_MAX, std::size_t max_output = SIZE_MAX,
                            DecodeLimits limits = {}) {
  auto decoder = ContentDecoder::create(coding, limits);
  if (!decoder) return std::move(decoder).error();
  EXPECT_NE(*decoder, nullptr);
  return decode_all(**decoder, encoded, piece, max_output);
}

std::string encode_as(std::string_view coding, std::string_view data) {
  if (coding == "gzip") return gzip(data);
  if (coding == "deflate") return deflate_with(data, kZlibBits);
  if (coding == "br") return brotli(data);
  return zstd(data);
}

// --- Round trips, one suite per coding. ---

class ContentDecoderRoundTrip : public testing::TestWithParam<const char*> {
 protected:
  static const std::string& data() {
    static const std::string kData = mixed_data(kMiB);
    return kData;
  }
  std::string encoded() const { return encode_as(GetParam(), data()); }
};

TEST_P(ContentDecoderRoundTrip, DecodesWholeInputInOneCall) {
  const std::string encoded = this->encoded();
  ASSERT_LT(encoded.size(), data().size());
  auto decoded = decode_with(GetParam(), encoded);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text == data());
}

TEST_P(ContentDecoderRoundTrip, DecodesInputFedOneByteAtATime) {
  auto decoded = decode_with(GetParam(), encoded(), 1);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text == data());
}

TEST_P(ContentDecoderRoundTrip, DecodesOneOutputByteAtATime) {
  auto decoded = decode_with(GetParam(), encoded(), SIZE_MAX, 1);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text == data());
  EXPECT_GT(decoded->calls, data().size());
}

TEST_P(ContentDecoderRoundTrip, ZeroRoomTakesNothingAndProducesNothing) {
  auto decoder = ContentDecoder::create(GetParam(), {});
  ASSERT_TRUE(decoder);
  const std::string encoded = this->encoded();
  ByteQueue out;
  auto step = (*decoder)->decode(as_bytes(encoded), out, 0);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->consumed, 0u);
  EXPECT_EQ(step->produced, 0u);
  EXPECT_TRUE(out.empty());
}

TEST_P(ContentDecoderRoundTrip, TruncatedStreamFailsAtFinish) {
  const std::string encoded = this->encoded();
  auto decoded = decode_with(GetParam(), std::string_view(encoded).substr(0, encoded.size() / 2));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
  EXPECT_EQ(decoded.error().message(), std::string(GetParam()) + ": body ended mid-stream");
}

TEST_P(ContentDecoderRoundTrip, StreamCutOneByteShortFailsAtFinish) {
  const std::string encoded = this->encoded();
  auto decoded = decode_with(GetParam(), std::string_view(encoded).substr(0, encoded.size() - 1));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
}

TEST_P(ContentDecoderRoundTrip, EmptyBodyIsEmpty) {
  auto decoded = decode_with(GetParam(), "");
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text.empty());
}

TEST_P(ContentDecoderRoundTrip, TrailingGarbageIsAnError) {
  auto decoded = decode_with(GetParam(), encode_as(GetParam(), "hello") + "garbage");
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
  EXPECT_EQ(decoded.error().message().rfind(std::string(GetParam()) + ": ", 0), 0u)
      << decoded.error().message();
}

TEST_P(ContentDecoderRoundTrip, ReleasesScratchOnlyAfterTheStreamEnds) {
  const std::string encoded = this->encoded();
  auto decoder = ContentDecoder::create(GetParam(), {});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  auto first = (*decoder)->decode(as_bytes(encoded), out, 1000);
  ASSERT_TRUE(first);
  EXPECT_EQ((*decoder)->release_scratch(), 0u);  // mid-stream: the window is needed
  auto rest =
      decode_all(**decoder, std::string_view(encoded).substr(first->consumed), SIZE_MAX, SIZE_MAX);
  ASSERT_TRUE(rest) << rest.error().message();
  EXPECT_TRUE(std::string(as_text(out.readable())) + rest->text == data());
  EXPECT_GT((*decoder)->release_scratch(), 0u);
  EXPECT_EQ((*decoder)->release_scratch(), 0u);
}

// The staging buffer hands a decoder fixed room (SpanOutput): it fills that room and
// no more, then goes on from where it stopped in the next room.
TEST_P(ContentDecoderRoundTrip, DecodesIntoFixedRoomsThatNeverOverflow) {
  const std::string encoded = this->encoded();
  auto decoder = ContentDecoder::create(GetParam(), {});
  ASSERT_TRUE(decoder);
  std::string decoded;
  std::size_t consumed = 0;
  std::vector<std::byte> room(1000 + 16);  // 16 guard bytes past the room given
  for (int calls = 0; decoded.size() < data().size(); ++calls) {
    ASSERT_LT(calls, 100000) << "no progress";
    std::fill(room.begin(), room.end(), std::byte{0x5a});
    SpanOutput out(std::span<std::byte>(room).first(1000));
    auto step = (*decoder)->decode(as_bytes(encoded).subspan(consumed), out, 1000);
    ASSERT_TRUE(step) << step.error().message();
    EXPECT_EQ(step->produced, out.written());
    EXPECT_LE(out.written(), 1000u);
    for (std::size_t i = 1000; i < room.size(); ++i) ASSERT_EQ(room[i], std::byte{0x5a});
    consumed += step->consumed;
    decoded.append(as_text(std::span<const std::byte>(room).first(out.written())));
    if (step->consumed == 0 && step->produced == 0) break;
  }
  EXPECT_TRUE(decoded == data());
}

INSTANTIATE_TEST_SUITE_P(Codings, ContentDecoderRoundTrip,
                         testing::Values("gzip", "deflate", "br", "zstd"),
                         [](const auto& param_info) { return std::string(param_info.param); });

// --- Formats within a coding. ---

TEST(GzipDecoding, DecodesConcatenatedMembers) {
  const std::string first = mixed_data(100000);
  const std::string second = "and a second member";
  const std::string encoded = gzip(first) + gzip(second) + gzip("");
  for (std::size_t piece : {SIZE_MAX, std::size_t{1}, std::size_t{7}}) {
    auto decoded = decode_with("gzip", encoded, piece);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_TRUE(decoded->text == first + second) << "piece " << piece;
  }
}

TEST(GzipDecoding, XGzipIsGzip) {
  auto decoded = decode_with("x-gzip", gzip("hello"));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(decoded->text, "hello");
}

TEST(GzipDecoding, BadChecksumIsCorruptData) {
  std::string encoded = gzip("hello, checksum");
  encoded[encoded.size() - 6] ^= 0x55;  // inside the CRC-32 of the trailer
  auto decoded = decode_with("gzip", encoded);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
  EXPECT_EQ(decoded.error().message(), "gzip: corrupt data: incorrect data check");
}

TEST(GzipDecoding, SecondMemberWithBadHeaderIsCorruptData) {
  auto decoded = decode_with("gzip", gzip("one") + "\x1f\x8c rest");
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message(), "gzip: corrupt data: incorrect header check");
}

TEST(DeflateDecoding, AcceptsRawDeflateLikeBrowsers) {
  const std::string data = mixed_data(300000);
  const std::string raw = deflate_with(data, kRawBits);
  for (std::size_t piece : {SIZE_MAX, std::size_t{1}}) {
    auto decoded = decode_with("deflate", raw, piece);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_TRUE(decoded->text == data);
  }
}

TEST(DeflateDecoding, AcceptsEmptyRawStream) {
  auto decoded = decode_with("deflate", deflate_with("", kRawBits));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text.empty());
}

TEST(DeflateDecoding, OneByteBodyEndsMidStream) {
  auto decoded = decode_with("deflate", deflate_with("x", kZlibBits).substr(0, 1));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message(), "deflate: body ended mid-stream");
}

TEST(ZstdDecoding, DecodesConcatenatedFrames) {
  const std::string first = mixed_data(200000);
  const std::string second = "second frame";
  const std::string encoded = zstd(first) + zstd(second);
  for (std::size_t piece : {SIZE_MAX, std::size_t{1}}) {
    auto decoded = decode_with("zstd", encoded, piece);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_TRUE(decoded->text == first + second);
  }
}

TEST(ZstdDecoding, ContinuesAfterScratchIsReleasedBetweenFrames) {
  const std::string first = zstd(mixed_data(50000));
  const std::string second = zstd("after release");
  auto decoder = ContentDecoder::create("zstd", {});
  ASSERT_TRUE(decoder);
  auto head = decode_all(**decoder, first, SIZE_MAX, SIZE_MAX);
  ASSERT_TRUE(head) << head.error().message();
  EXPECT_GT((*decoder)->release_scratch(), 0u);
  auto tail = decode_all(**decoder, second, SIZE_MAX, SIZE_MAX);
  ASSERT_TRUE(tail) << tail.error().message();
  EXPECT_EQ(tail->text, "after release");
}

TEST(ZstdDecoding, RejectsWindowsLargerThanHttpAllows) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 25)));
  const std::string data = mixed_data(100000);
  std::string encoded(ZSTD_compressBound(data.size()) + 64, '\0');
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  ZSTD_outBuffer sink{encoded.data(), encoded.size(), 0};
  // Streaming without a known size, so the frame declares the full 32 MiB window.
  ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &sink, &in, ZSTD_e_continue)));
  ASSERT_EQ(ZSTD_compressStream2(cctx, &sink, &in, ZSTD_e_end), 0u);
  encoded.resize(sink.pos);
  ZSTD_freeCCtx(cctx);
  auto decoded = decode_with("zstd", encoded);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
  EXPECT_EQ(decoded.error().message(),
            "zstd: the stream needs a window larger than the 8 MiB HTTP allows");
}

// --- Corrupt data names the coding and the library's reason. ---

TEST(CorruptData, NamesCodingAndReason) {
  struct Case {
    const char* coding;
    std::string encoded;
    const char* message;
  };
  const Case cases[] = {
      {"gzip", "this is not gzip", "gzip: corrupt data: incorrect header check"},
      {"deflate", std::string("\x07\x00", 2), "deflate: corrupt data: invalid block type"},
      {"br", "this is not brotli", "br: corrupt data"},
      {"zstd", "this is not zstd", "zstd: corrupt data: Unknown frame descriptor"},
  };
  for (const Case& c : cases) {
    auto decoded = decode_with(c.coding, c.encoded);
    ASSERT_FALSE(decoded) << c.coding;
    EXPECT_EQ(decoded.error().category(), ErrorCategory::decode);
    EXPECT_EQ(decoded.error().message().rfind(c.message, 0), 0u) << decoded.error().message();
  }
}

TEST(CorruptData, ErrorIsSticky) {
  auto decoder = ContentDecoder::create("gzip", {});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  ASSERT_FALSE((*decoder)->decode(as_bytes("garbage!"), out, 100));
  const std::string valid = gzip("fine");
  auto again = (*decoder)->decode(as_bytes(valid), out, 100);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().category(), ErrorCategory::decode);
  EXPECT_FALSE((*decoder)->finish());
}

// --- Content-Encoding lists. ---

TEST(ContentEncodingList, IdentityAndEmptyNeedNoDecoder) {
  for (const char* value : {"", "identity", " Identity ", " , identity,"}) {
    auto decoder = ContentDecoder::create(value, {});
    ASSERT_TRUE(decoder) << value;
    EXPECT_EQ(*decoder, nullptr) << value;
  }
}

TEST(ContentEncodingList, NamesAreCaseInsensitiveAndTrimmed) {
  auto decoded = decode_with(" \tGZip ", gzip("case"));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(decoded->text, "case");
}

TEST(ContentEncodingList, UnsupportedCodingIsAnError) {
  auto decoder = ContentDecoder::create("gzip, compress", {});
  ASSERT_FALSE(decoder);
  EXPECT_EQ(decoder.error().category(), ErrorCategory::decode);
  EXPECT_EQ(decoder.error().message(), "content encoding 'compress' is not supported");
}

TEST(ContentEncodingList, ChainDecodesInReverseOrder) {
  const std::string data = mixed_data(kMiB);
  const std::string encoded = brotli(gzip(data));  // "gzip, br": gzip applied first
  for (std::size_t max_output : {SIZE_MAX, std::size_t{1}}) {
    auto decoded = decode_with("gzip, br", encoded, 1, max_output);
    ASSERT_TRUE(decoded) << decoded.error().message();
    EXPECT_TRUE(decoded->text == data);
  }
  auto backwards = decode_with("br, gzip", encoded);
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().category(), ErrorCategory::decode);
}

TEST(ContentEncodingList, FourCodingsAreAllowedFiveAreNot) {
  const std::string encoded = zstd(gzip(brotli(gzip("four deep"))));
  auto decoded = decode_with("gzip, br, identity, gzip, zstd", encoded);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(decoded->text, "four deep");
  auto five = ContentDecoder::create("gzip, gzip, gzip, gzip, gzip", {});
  ASSERT_FALSE(five);
  EXPECT_EQ(five.error().category(), ErrorCategory::decode);
}

TEST(ContentEncodingList, ChainTruncatedInsideFailsAtFinish) {
  const std::string inner = gzip(mixed_data(100000));
  const std::string encoded = brotli(inner.substr(0, inner.size() / 2));
  auto decoded = decode_with("gzip, br", encoded);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message(), "gzip: body ended mid-stream");
}

// --- Limits and backpressure. ---

TEST(DecodeLimits, DecodedSizeOverTheLimitIsTooLarge) {
  const std::string data = mixed_data(kMiB);
  DecodeLimits limits{.max_decoded_size = 100000};
  auto decoder = ContentDecoder::create("gzip", limits);
  ASSERT_TRUE(decoder);
  const std::string encoded = gzip(data);
  ByteQueue out;
  auto step = (*decoder)->decode(as_bytes(encoded), out, SIZE_MAX);
  ASSERT_FALSE(step);
  EXPECT_EQ(step.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(step.error().message(), "decoded body exceeds the limit of 100000 bytes");
  EXPECT_LE(out.size(), 100001u);
}

TEST(DecodeLimits, BodyOfExactlyTheLimitIsAccepted) {
  const std::string data = mixed_data(100000);
  auto decoded = decode_with("zstd", zstd(data), 1000, 4096, {.max_decoded_size = 100000});
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded->text == data);
}

const std::string& gzip_bomb() {
  static const std::string kBomb = gzip(std::string(64 * kMiB, '\0'));
  return kBomb;
}

TEST(DecodeLimits, GzipBombHitsTheRatioLimitEarly) {
  const std::string& bomb = gzip_bomb();
  ASSERT_LT(bomb.size(), 80u * 1024);
  auto decoder = ContentDecoder::create("gzip", {.max_ratio = 1000});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  std::size_t pos = 0;
  std::size_t decoded = 0;
  Result<DecodeStep> step = DecodeStep{};
  while (step) {
    step = (*decoder)->decode(as_bytes(bomb).subspan(pos), out, 256 * 1024);
    if (step) {
      ASSERT_NE(step->produced, 0u);
      pos += step->consumed;
    }
    decoded += out.size();
    out.clear();
  }
  EXPECT_EQ(step.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(step.error().message(),
            "decoded body exceeds 1000:1 compression ratio (possible decompression bomb)");
  EXPECT_LT(decoded, 2 * kMiB);
}

TEST(DecodeLimits, BombInOneCallWithUnlimitedRoomStopsNearOneMiB) {
  const std::string bomb = brotli(std::string(64 * kMiB, '\0'));
  auto decoder = ContentDecoder::create("br", {.max_ratio = 1000});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  auto step = (*decoder)->decode(as_bytes(bomb), out, SIZE_MAX);
  ASSERT_FALSE(step);
  EXPECT_EQ(step.error().category(), ErrorCategory::too_large);
  EXPECT_LE(out.size(), std::max(kMiB, 1000 * bomb.size()) + 1);
}

TEST(DecodeLimits, HighRatioUnderTheGraceSizeIsAccepted) {
  const std::string zeros(kMiB, '\0');
  auto decoded = decode_with("gzip", gzip(zeros), SIZE_MAX, SIZE_MAX, {.max_ratio = 1000});
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_EQ(decoded->text.size(), kMiB);
}

TEST(Backpressure, OutputIsBoundedByRoomNotByInput) {
  const std::string& bomb = gzip_bomb();
  auto decoder = ContentDecoder::create("gzip", {});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  std::size_t pos = 0;
  for (int call = 0; call < 8; ++call) {
    auto step = (*decoder)->decode(as_bytes(bomb).subspan(pos), out, 256 * 1024);
    ASSERT_TRUE(step) << step.error().message();
    EXPECT_EQ(step->produced, 256u * 1024);
    EXPECT_EQ(out.size(), 256u * 1024);
    EXPECT_GT(step->consumed, 0u);
    pos += step->consumed;
    EXPECT_LT(pos, bomb.size() / 16);  // 2 MiB of 64 needs about 1/32 of the input
    out.clear();
  }
}

TEST(Backpressure, ChainHoldsLittleBeyondTheRoom) {
  // The outer gzip is stored (level 0), so what it consumes is what it decoded into
  // the link: a reader with 1 KiB of room must not make the chain pull the whole
  // 64 KiB inner stream through.
  const std::string encoded = deflate_with(gzip_bomb(), kGzipBits, 0);
  ASSERT_GT(encoded.size(), gzip_bomb().size());
  auto decoder = ContentDecoder::create("gzip, gzip", {});
  ASSERT_TRUE(decoder);
  ByteQueue out;
  auto step = (*decoder)->decode(as_bytes(encoded), out, 1024);
  ASSERT_TRUE(step) << step.error().message();
  EXPECT_EQ(step->produced, 1024u);
  EXPECT_LT(step->consumed, 24u * 1024);
}

}  // namespace
}  // namespace sluice
