// Content decoding through the client: codings, limits, and decoding that stops
// when the reader stops.
#include <gtest/gtest.h>

#include <optional>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/http_thread_hold.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// `mib` MiB of zeros as a multi-member gzip stream: compressing 1 MiB once and
// repeating the member is as good a bomb as compressing it all, and far quicker.
std::string gzip_zeros(std::size_t mib) {
  const std::string member = test::gzip(std::string(1u << 20, '\0'));
  std::string out;
  out.reserve(member.size() * mib);
  for (std::size_t i = 0; i < mib; ++i) out += member;
  return out;
}

TestServer serve_encoded(std::string body, std::string coding) {
  return TestServer([body = std::move(body), coding = std::move(coding)](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    conn.write(
        test::http_response(200, body,
                            {{"Content-Encoding", coding},
                             {"X-Accept-Encoding",
                              std::string(request->headers.get("accept-encoding").value_or(""))}}));
  });
}

TEST(ClientDecoding, GzipBodyIsDecodedWhenAsked) {
  const std::string text = test::pseudo_random_bytes(1 << 20, 5) + std::string(1 << 20, 'z');
  auto server = serve_encoded(test::gzip(text), "gzip");
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_NE(response->headers.get("x-accept-encoding").value_or("").find("gzip"),
            std::string_view::npos);
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(test::sha256_hex(*body), test::sha256_hex(text));
}

// bytes_received counts the body as it came (curl's size_download), bytes_read what
// the decoder made of it.
TEST(ClientDecoding, BytesReceivedCountTheEncodedBody) {
  const std::string text(1 << 20, 'z');
  const std::string encoded = test::gzip(text);
  auto server = serve_encoded(encoded, "gzip");
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(response->body.bytes_read(), text.size());
  EXPECT_EQ(response->body.bytes_received(), encoded.size());
}

TEST(ClientDecoding, BodyIsLeftEncodedWhenNotAsked) {
  const std::string encoded = test::gzip("plain text");
  auto server = serve_encoded(encoded, "gzip");
  auto client = test::make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(*response->body.read_all(), encoded);
}

TEST(ClientDecoding, CorruptGzipIsADecodeError) {
  auto server = serve_encoded("this is not gzip at all, not even close", "gzip");
  auto client = test::make_client();
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
  auto client = test::make_client();
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
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  request.decode.max_ratio = 0;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok());
  // Decoding stopped: the staging buffer reached its mark and paused. Were the mark
  // ignored, the one receive would have inflated far past it by then.
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "decoding never reached the mark: buffered " << response->body.buffered();
  EXPECT_LE(response->body.buffered(), request.allowance.initial_bytes);
  EXPECT_LE(client.stats().staged_bytes, request.allowance.initial_bytes);
  auto body = response->body.read_all(128u << 20);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(body->size(), 64u << 20);
}

// The exchange ended while the decoder still had compressed bytes waiting for
// staging room; the reader then took what was staged and dropped the body before the
// HTTP thread saw its read. Nothing more will arrive, so the transfer must end rather
// than wait for the rest of a body that already came (found by the soak: it stayed in
// flight until its total timeout). The HTTP thread is held (test::HttpThreadHold) so
// that the read and the drop both land before it runs again.
TEST(ClientDecoding, ReaderDroppedAfterTheExchangeEndedEndsTheTransfer) {
  auto server = serve_encoded(gzip_zeros(4), "gzip");  // about 4 KiB on the wire
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  request.decode.max_ratio = 0;
  request.allowance = {64 * 1024, 64 * 1024};
  auto fetched = client.fetch(request);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message();
  std::optional<Response> response(std::move(*fetched));
  // All of it arrived in one receive: staged up to the mark, the rest still compressed.
  ASSERT_TRUE(test::eventually([&] {
    return response->body.buffered() >= request.allowance.initial_bytes;
  })) << "decoding stalled below the mark: buffered "
      << response->body.buffered();
  ASSERT_EQ(response->body.buffered(), request.allowance.initial_bytes);

  test::HttpThreadHold hold(client);
  ASSERT_TRUE(hold.held()) << "the HTTP thread never ran the holding task";
  std::vector<std::byte> all(request.allowance.initial_bytes);
  auto got = response->body.read(all);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, request.allowance.initial_bytes);
  response.reset();  // drops the reader, with the decoder's input still unread
  hold.release();

  ClientStats stats;
  EXPECT_TRUE(test::eventually([&] {
    stats = client.stats();
    return stats.in_flight == 0;
  })) << "the transfer stayed in flight after its reader went";
  EXPECT_EQ(stats.in_flight, 0u);
  EXPECT_EQ(stats.staged_bytes, 0u);
}

TEST(ClientDecoding, UnsupportedCodingIsAClearError) {
  auto server = serve_encoded("whatever", "compress");
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::decode);
  EXPECT_NE(response.error().message().find("compress"), std::string::npos);
}

}  // namespace
}  // namespace sluice
