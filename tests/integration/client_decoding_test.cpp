// Content decoding through the client: codings, limits, and decoding that stops
// when the reader stops.
#include <gtest/gtest.h>
#include <zlib.h>

#include <thread>

#include "sluice/sluice.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

std::string gzip(std::string_view input) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, input.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// `mib` MiB of zeros as a multi-member gzip stream: compressing 1 MiB once and
// repeating the member is as good a bomb as compressing it all, and far quicker.
std::string gzip_zeros(std::size_t mib) {
  const std::string member = gzip(std::string(1u << 20, '\0'));
  std::string out;
  out.reserve(member.size() * mib);
  for (std::size_t i = 0; i < mib; ++i) out += member;
  return out;
}

TestServer serve_encoded(std::string body, std::string coding) {
  return TestServer([body = std::move(body), coding = std::move(coding)](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    conn.write(test::http_response(200, body, {{"Content-Encoding", coding},
                                               {"X-Accept-Encoding", std::string(request->headers.get("accept-encoding").value_or(""))}}));
  });
}

TEST(ClientDecoding, GzipBodyIsDecodedWhenAsked) {
  const std::string text = test::pseudo_random_bytes(1 << 20, 5) + std::string(1 << 20, 'z');
  auto server = serve_encoded(gzip(text), "gzip");
  auto client = Client::create().value();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_NE(response->headers.get("x-accept-encoding").value_or("").find("gzip"), std::string_view::npos);
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(test::sha256_hex(*body), test::sha256_hex(text));
}

TEST(ClientDecoding, BodyIsLeftEncodedWhenNotAsked) {
  const std::string encoded = gzip("plain text");
  auto server = serve_encoded(encoded, "gzip");
  auto client = Client::create().value();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(*response->body.read_all(), encoded);
}

TEST(ClientDecoding, CorruptGzipIsADecodeError) {
  auto server = serve_encoded("this is not gzip at all, not even close", "gzip");
  auto client = Client::create().value();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok());
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::decode);
}

TEST(ClientDecoding, DecompressionBombHitsTheRatioLimit) {
  auto server = serve_encoded(gzip_zeros(256), "gzip");
  auto client = Client::create().value();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  request.decode.max_ratio = 100;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok());
  auto body = response->body.read_all(512u << 20);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::too_large);
}

TEST(ClientDecoding, HeldReaderStopsDecompressionAtTheMark) {
  // 64 MiB of zeros compress to about 64 KiB: all of it arrives in one receive, and
  // only the staging buffer's room limits how far it inflates.
  auto server = serve_encoded(gzip_zeros(64), "gzip");
  auto client = Client::create().value();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  request.decode.max_ratio = 0;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok());
  std::this_thread::sleep_for(300ms);
  EXPECT_LE(response->body.buffered(), request.mark);
  auto body = response->body.read_all(128u << 20);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(body->size(), 64u << 20);
}

TEST(ClientDecoding, UnsupportedCodingIsAClearError) {
  auto server = serve_encoded("whatever", "compress");
  auto client = Client::create().value();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::decode);
  EXPECT_NE(response.error().message().find("compress"), std::string::npos);
}

}  // namespace
}  // namespace sluice
