// ResponseDecoding over real gzip streams (zlib, through test::gzip) into a real
// StagingBuffer.
#include "client/fetch/response_decoding.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "body/staging_buffer.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::gzip;

std::span<const std::byte> bytes_of(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

std::string counting_text(std::size_t size) {
  std::string text;
  for (int i = 0; text.size() < size; ++i) text += std::to_string(i) + ",";
  text.resize(size);
  return text;
}

constexpr std::size_t kAllowance = 1000;

struct Fixture {
  StagingBuffer staging{kAllowance, [] { return true; }};
  ResponseDecoding decoding{512 * 1024};

  // Decodes until stuck; returns the bytes produced.
  std::size_t pump() {
    std::size_t produced = 0;
    for (;;) {
      auto step = decoding.step(staging, staging.room());
      EXPECT_TRUE(step.ok());
      if (!step || (step->consumed == 0 && step->produced == 0)) return produced;
      produced += step->produced;
    }
  }
  std::string read_all_staged() {
    std::string out;
    std::vector<std::byte> into(4096);
    while (staging.staged_bytes() > 0) {
      auto got = staging.read(into, std::chrono::steady_clock::now());
      if (!got.ok() || !*got) break;
      out.append(reinterpret_cast<const char*>(into.data()), **got);
    }
    return out;
  }
};

TEST(ResponseDecoding, DecodesOnlyAsFarAsTheBufferHasRoomAndGoesOnWhenTheReaderTakes) {
  Fixture f;
  const std::string text = counting_text(100 * 1024);
  ASSERT_TRUE(f.decoding.start("gzip", {}).ok());
  ASSERT_TRUE(f.decoding.active());
  f.decoding.take(bytes_of(gzip(text)));

  EXPECT_EQ(f.pump(), kAllowance);  // the room, not the 100 KiB the input holds
  EXPECT_EQ(f.staging.room(), 0u);
  EXPECT_GT(f.decoding.pending(), 0u);

  std::string decoded = f.read_all_staged();
  while (decoded.size() < text.size()) {
    ASSERT_GT(f.pump(), 0u) << "stuck after " << decoded.size() << " bytes";
    decoded += f.read_all_staged();
  }
  EXPECT_EQ(decoded, text);
  EXPECT_EQ(f.decoding.pending(), 0u);
  EXPECT_TRUE(f.decoding.finish().ok());
}

TEST(ResponseDecoding, ABodyCutMidStreamFailsAtTheEnd) {
  Fixture f;
  const std::string encoded = gzip(counting_text(500));
  ASSERT_TRUE(f.decoding.start("gzip", {}).ok());
  f.decoding.take(bytes_of(encoded.substr(0, encoded.size() / 2)));
  f.pump();
  EXPECT_EQ(f.decoding.pending(), 0u);
  const auto done = f.decoding.finish();
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.error().message().find("gzip"), std::string::npos) << done.error().message();
}

TEST(ResponseDecoding, IdentityNeedsNoDecoderAndAnUnknownCodingIsNamed) {
  Fixture f;
  ASSERT_TRUE(f.decoding.start("identity", {}).ok());
  EXPECT_FALSE(f.decoding.active());
  EXPECT_TRUE(f.decoding.finish().ok());
  const auto unknown = f.decoding.start("compress", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("compress"), std::string::npos);
  EXPECT_FALSE(f.decoding.active());
}

TEST(ResponseDecoding, DropCountsWhatWaitedAndEndsTheDecoding) {
  Fixture f;
  const std::string encoded = gzip(counting_text(100 * 1024));
  ASSERT_TRUE(f.decoding.start("gzip", {}).ok());
  f.decoding.take(bytes_of(encoded));
  f.pump();
  const std::size_t waiting = f.decoding.pending();
  ASSERT_GT(waiting, 0u);
  EXPECT_EQ(f.decoding.drop(), waiting);
  EXPECT_FALSE(f.decoding.active());
  EXPECT_EQ(f.decoding.pending(), 0u);
  // The emptied queue keeps its memory until the sweep frees it.
  const std::size_t kept = f.decoding.idle_capacity();
  EXPECT_GE(kept, waiting);
  EXPECT_EQ(f.decoding.release_scratch(), kept);
  EXPECT_EQ(f.decoding.idle_capacity(), 0u);
}

}  // namespace
}  // namespace sluice
