// Our own QUIC + HTTP/3 server (tests/support/quic_test_server*) under the sluice
// Client: HTTP/3 straight to 127.0.0.1, no caddy or gtlsserver. Each test makes its
// own server and Client; every wait is for an event (a response, a published
// server state), with kPatience only as a hang guard.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/quic_test_udp_server.hpp"
#include "support/test_body.hpp"
#include "support/test_certs.hpp"

namespace sluice::test {
namespace {

using namespace std::chrono_literals;

constexpr auto kPatience = 20s;
constexpr std::uint64_t k8MiB = 8u << 20;
// RFC 9114 section 8.1: a code no library sends by itself, so seeing it named
// proves it came from the handler's answer.
constexpr std::uint64_t kH3ExcessiveLoad = 0x107;

QuicTestServerOptions options_with(QuicTestHandler handler) {
  QuicTestServerOptions options;
  options.cert_file = test_certs().server_cert;
  options.key_file = test_certs().server_key;
  options.handler = std::move(handler);
  return options;
}

Client h3_client() {
  ClientOptions options;
  options.tls.ca_file = test_certs().ca_file;
  return test::make_client(std::move(options));
}

Request h3_only(Request request) {
  request.version = VersionPolicy::http3_only;
  return request;
}

Request post(std::string url, std::string body) {
  Request request = Request::get(std::move(url));
  request.method = "POST";
  request.body = BytesBody{std::move(body)};
  return request;
}

std::string read_body(BodyReader& reader) {
  auto all = reader.read_all(64u << 20);
  EXPECT_TRUE(all.ok()) << (all.ok() ? "" : all.error().message());
  return all.ok() ? std::move(*all) : std::string();
}

TEST(QuicTestServer, ServesASmallBodyOverHttp3) {
  QuicTestUdpServer server(options_with([](const QuicTestRequest& request) {
    return QuicTestResponse::text("small body for " + request.path());
  }));
  {
    Client client = h3_client();
    auto response = client.fetch(h3_only(Request::get(server.url("/small"))));
    ASSERT_TRUE(response.ok()) << response.error().message();
    EXPECT_EQ(response->version, HttpVersion::http3);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(read_body(response->body), "small body for /small");
  }
  const std::vector<QuicTestRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method(), "GET");
  EXPECT_EQ(requests[0].path(), "/small");
  EXPECT_EQ(requests[0].header(":scheme"), "https");
  EXPECT_TRUE(requests[0].ended);
  // The Client closed its connection as it went: the server heard why.
  ASSERT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return stats.client_close.has_value(); },
      kPatience));
  const QuicTestUdpStats stats = server.stats();
  EXPECT_TRUE(stats.closed);
  EXPECT_TRUE(stats.client_close->application);
  EXPECT_EQ(stats.client_close->code, kH3NoError);
  EXPECT_TRUE(stats.handshake_done);
  EXPECT_EQ(stats.connections, 1u);
  EXPECT_GT(stats.bytes_sent, 0u);
  EXPECT_EQ(stats.error, "");
}

TEST(QuicTestServer, SendsAnEightMebibyteGeneratedBodyByteForByte) {
  QuicTestUdpServer server(
      options_with([](const QuicTestRequest&) { return QuicTestResponse::generated(k8MiB, 7); }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/8m.bin"))));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->headers.get("content-length").value_or(""), std::to_string(k8MiB));
  const std::string body = read_body(response->body);
  EXPECT_EQ(generated_body_mismatch(body, k8MiB, 7), "");
  EXPECT_EQ(server.stats().error, "");
}

TEST(QuicTestServer, ReceivesAPostBodyIntact) {
  const std::string upload = generated_bytes(3, 0, 1 << 20);  // four stream windows
  QuicTestUdpServer server(options_with([](const QuicTestRequest& request) {
    return QuicTestResponse::text("got " + std::to_string(request.body.size()));
  }));
  Client client = h3_client();
  Request request = Request::get(server.url("/upload"));
  request.method = "POST";
  request.body = BytesBody{upload};
  auto response = client.fetch(h3_only(std::move(request)));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(read_body(response->body), "got " + std::to_string(upload.size()));
  const std::vector<QuicTestRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method(), "POST");
  EXPECT_TRUE(requests[0].ended);
  EXPECT_TRUE(requests[0].body == upload) << requests[0].body.size() << " bytes arrived";
}

TEST(QuicTestServer, ResetBeforeHeadersFailsTheRequestNamingTheReset) {
  QuicTestUdpServer server(options_with([](const QuicTestRequest&) {
    return QuicTestResponse::reset_before_headers(kH3ExcessiveLoad);
  }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/reset"))));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_NE(response.error().message().find("reset by server (H3_EXCESSIVE_LOAD)"),
            std::string::npos)
      << response.error().message();
  EXPECT_EQ(server.requests().size(), 1u);  // not retried: the request may have been processed
}

TEST(QuicTestServer, ResetMidBodyFailsTheBodyAfterItsFirstBytes) {
  QuicTestUdpServer server(options_with([](const QuicTestRequest&) {
    return QuicTestResponse::reset_mid_body(1 << 20, 64 * 1024, kH3ExcessiveLoad);
  }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/cut"))));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  auto body = response->body.read_all(8u << 20);
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.error().message().find("reset by server (H3_EXCESSIVE_LOAD)"), std::string::npos)
      << body.error().message();
}

TEST(QuicTestServer, CloseConnectionFailsTheRequestNamingTheCode) {
  QuicTestUdpServer server(options_with(
      [](const QuicTestRequest&) { return QuicTestResponse::close_connection(kH3ExcessiveLoad); }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/close"))));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_NE(response.error().message().find("closed the connection (H3_EXCESSIVE_LOAD"),
            std::string::npos)
      << response.error().message();
  EXPECT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return stats.closed; }, kPatience));
}

// The server's HEADERS frame is cut after 4 bytes (type, length and the start of
// the field section) by a reset, which it sends only once the client acknowledged
// those bytes: the client had a head begun and must not present any of it.
TEST(QuicTestServer, ResetMidHeadersFailsTheRequestWithoutAHead) {
  QuicTestUdpServer server(options_with([](const QuicTestRequest&) {
    return QuicTestResponse::reset_mid_headers(4, kH3ExcessiveLoad);
  }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/half-head"))));
  ASSERT_FALSE(response.ok()) << "a response was presented with status " << response->status;
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_EQ(response.error().message(), "HTTP/3: stream 0 reset by server (H3_EXCESSIVE_LOAD)");
  EXPECT_EQ(server.requests().size(), 1u);  // not retried: the server may have acted on it
  // The reset came after the client had the head's first 4 bytes, not before any
  // (the server publishes its state after the packets it sent, so wait for it).
  EXPECT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return stats.cut_head_bytes_acked > 0; },
      kPatience));
  EXPECT_EQ(server.stats().cut_head_bytes_acked, 4u);
  EXPECT_EQ(server.stats().error, "");
}

// A cut past the end of the HEADERS frame would send the head whole: the server
// says so and gives up, rather than staging a different fault.
TEST(QuicTestServer, ResetMidHeadersPastTheFrameIsTheTestsMistake) {
  QuicTestUdpServer server(options_with(
      [](const QuicTestRequest&) { return QuicTestResponse::reset_mid_headers(1000); }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/too-far"))));
  EXPECT_FALSE(response.ok());
  ASSERT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return !stats.error.empty(); }, kPatience));
  EXPECT_NE(server.stats().error.find("reset_mid_headers after 1000 bytes reaches past the "
                                      "HEADERS frame"),
            std::string::npos)
      << server.stats().error;
}

// CONNECTION_CLOSE of the transport class (0x1c), with a QUIC error code and a
// reason: the request fails naming both, as the application class names its code.
TEST(QuicTestServer, TransportCloseFailsTheRequestNamingTheCodeAndReason) {
  constexpr std::uint64_t kConnectionRefused = 0x2;  // RFC 9000 section 20.1
  QuicTestUdpServer server(options_with([](const QuicTestRequest&) {
    return QuicTestResponse::close_with_transport_error(kConnectionRefused, "maintenance");
  }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/refused"))));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_EQ(response.error().message(),
            "QUIC: 127.0.0.1 closed the connection (CONNECTION_REFUSED: \"maintenance\")");
  EXPECT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return stats.closed; }, kPatience));
}

// RFC 9114 section 4.1.1: STOP_SENDING with H3_NO_ERROR and a whole response
// means the rest of the request body is not needed: the response is the answer.
TEST(QuicTestServer, StopSendingWithNoErrorAndAWholeResponseCompletesTheUpload) {
  const std::string upload = generated_bytes(3, 0, 4u << 20);  // 16 stream windows
  QuicTestServerOptions options = options_with([](const QuicTestRequest& request) {
    return QuicTestResponse::text("enough after " + std::to_string(request.body.size()));
  });
  options.stop_sending = QuicTestStopSending{64 * 1024, kH3NoError};
  QuicTestUdpServer server(std::move(options));
  Client client = h3_client();
  auto response = client.fetch(h3_only(post(server.url("/upload"), upload)));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  const std::vector<QuicTestRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].ended);
  EXPECT_LT(requests[0].body.size(), upload.size());
  EXPECT_EQ(read_body(response->body), "enough after " + std::to_string(requests[0].body.size()));
}

// A server that stops reading and gives up resets the stream (RFC 9114 section
// 4.1.1): the upload stops and the request fails naming the code, not retried.
TEST(QuicTestServer, StopSendingWithAResetFailsTheUploadNamingTheCode) {
  const std::string upload = generated_bytes(3, 0, 4u << 20);
  QuicTestServerOptions options = options_with([](const QuicTestRequest&) {
    return QuicTestResponse::reset_before_headers(kH3ExcessiveLoad);
  });
  options.stop_sending = QuicTestStopSending{64 * 1024, kH3ExcessiveLoad};
  QuicTestUdpServer server(std::move(options));
  Client client = h3_client();
  auto response = client.fetch(h3_only(post(server.url("/upload"), upload)));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_NE(response.error().message().find("reset by server (H3_EXCESSIVE_LOAD)"),
            std::string::npos)
      << response.error().message();
  const std::vector<QuicTestRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].ended);
  EXPECT_LT(requests[0].body.size(), upload.size());
}

// RFC 9114 section 5.2: a GOAWAY names the first request stream the server did not
// process; those at or above it are sent again on a new connection, those below
// finish on the old one. The server reads two of four request streams (the warm-up
// and one of the three concurrent ones) and sends GOAWAY once all four began.
TEST(QuicTestServer, GoawayWithRequestsInFlightRetriesTheUnprocessedOnANewConnection) {
  QuicTestServerOptions options = options_with([](const QuicTestRequest& request) {
    return QuicTestResponse::text("answer for " + request.path());
  });
  options.goaway_plan = QuicTestGoawayPlan{2, 4};
  QuicTestUdpServer server(std::move(options));
  Client client = h3_client();
  auto warm = client.fetch(h3_only(Request::get(server.url("/warm"))));  // opens the connection
  ASSERT_TRUE(warm.ok()) << warm.error().message();
  EXPECT_EQ(read_body(warm->body), "answer for /warm");
  const std::vector<std::string> paths{"/a", "/b", "/c"};
  std::vector<PendingResponse> pending;
  for (const std::string& path : paths)
    pending.push_back(client.send(h3_only(Request::get(server.url(path)))));
  for (std::size_t i = 0; i < paths.size(); ++i) {
    auto response = pending[i].wait();
    ASSERT_TRUE(response.ok()) << paths[i] << ": " << response.error().message();
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(read_body(response->body), "answer for " + paths[i]);
  }
  EXPECT_EQ(server.stats().connections, 2u);
  // Each request was processed once: one on the first connection (stream 4, below
  // the GOAWAY's 8), two on the second (streams 0 and 4 there).
  const std::vector<QuicTestRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].path(), "/warm");
  EXPECT_EQ(requests[1].stream_id, 4);
  EXPECT_EQ(requests[2].stream_id + requests[3].stream_id, 4);
  std::vector<std::string> served;
  for (std::size_t i = 1; i < requests.size(); ++i) served.push_back(requests[i].path());
  std::sort(served.begin(), served.end());
  EXPECT_EQ(served, paths);
}

// A server that goes silent mid-body (no data, no ACKs): the idle timeout fails the
// body after the bytes that arrived, which are the body's true first bytes.
TEST(QuicTestServer, SilenceMidBodyFailsTheBodyByTheIdleTimeout) {
  constexpr std::uint64_t kSize = 1u << 20;
  QuicTestUdpServer server(options_with([](const QuicTestRequest&) {
    return QuicTestResponse::go_silent_mid_body(kSize, 64 * 1024);
  }));
  Client client = h3_client();
  Request request = Request::get(server.url("/silent"));
  request.timeouts.idle = 1s;  // long enough for a handshake and head under TSan
  auto response = client.fetch(h3_only(std::move(request)));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  std::string got;
  std::string chunk(64 * 1024, '\0');
  Result<std::size_t> read = std::size_t{0};
  for (;;) {
    read = response->body.read(std::as_writable_bytes(std::span(chunk)));
    if (!read.ok() || *read == 0) break;
    got.append(chunk.data(), *read);
  }
  ASSERT_FALSE(read.ok()) << "a body cut short ended as if complete after " << got.size();
  EXPECT_EQ(read.error().category(), ErrorCategory::timeout) << read.error().message();
  EXPECT_EQ(read.error().code(), ErrorCode::idle_timeout) << read.error().message();
  EXPECT_NE(read.error().message().find("idle timeout: no data from 127.0.0.1:"), std::string::npos)
      << read.error().message();
  EXPECT_NE(read.error().message().find("for 1000 ms"), std::string::npos)
      << read.error().message();
  EXPECT_GE(got.size(), 1u);
  EXPECT_LT(got.size(), kSize);
  EXPECT_TRUE(got == generated_bytes(1, 0, got.size())) << got.size() << " bytes";
}

// A server that never grants the request stream any credit: the POST cannot send a
// byte, and the client's timeout fails it instead of waiting forever.
TEST(QuicTestServer, NoStreamCreditFailsThePostByTheTimeout) {
  QuicTestServerOptions options =
      options_with([](const QuicTestRequest&) { return QuicTestResponse::text("never reached"); });
  options.transport.stream_window = 0;  // initial_max_stream_data_bidi_remote, never raised
  QuicTestUdpServer server(std::move(options));
  Client client = h3_client();
  Request request = post(server.url("/upload"), generated_bytes(3, 0, 256 * 1024));
  request.timeouts.idle = 1s;  // long enough for a handshake and head under TSan
  auto response = client.fetch(h3_only(std::move(request)));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().message();
  EXPECT_EQ(response.error().code(), ErrorCode::idle_timeout) << response.error().message();
  EXPECT_NE(
      response.error().message().find("neither read the request body nor answered for 1000 ms"),
      std::string::npos)
      << response.error().message();
  EXPECT_TRUE(server.requests().empty());
}

// A server that lost the connection's state answers with a Stateless Reset made
// with the token it gave (RFC 9000 section 10.3): the request fails naming it.
TEST(QuicTestServer, StatelessResetFailsTheRequestNamingIt) {
  QuicTestUdpServer server(
      options_with([](const QuicTestRequest&) { return QuicTestResponse::stateless_reset(); }));
  Client client = h3_client();
  auto response = client.fetch(h3_only(Request::get(server.url("/forgotten"))));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_NE(response.error().message().find("sent a stateless reset"), std::string::npos)
      << response.error().message();
  EXPECT_EQ(server.requests().size(), 1u);  // not retried: the request may have been processed
  EXPECT_EQ(server.stats().error, "");
}

// A server that sends past the window we gave a request stream (it takes our
// initial window to be 4 MiB; the real one is the mark, raised by MAX_STREAM_DATA
// only as the reader takes bytes, and here nothing is read): the client's QUIC
// layer refuses the first byte past it and closes the connection with
// FLOW_CONTROL_ERROR (RFC 9000 section 4.1). The body then fails after the bytes
// the window let in, which are its true first bytes; it never ends as if whole.
TEST(QuicTestServer, ServerPastOurStreamWindowFailsTheBodyWithFlowControlError) {
  constexpr std::uint64_t kSeed = 7;
  QuicTestServerOptions options = options_with(
      [](const QuicTestRequest&) { return QuicTestResponse::generated(k8MiB, kSeed); });
  options.assumed_client_stream_window = 4u << 20;
  QuicTestUdpServer server(std::move(options));
  Client client = h3_client();
  Request request = h3_only(Request::get(server.url("/flood")));
  const std::size_t window = request.allowance.initial_bytes;
  auto response = client.fetch(std::move(request));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  // Unread, the stream's window stays at the mark, so the flood must cross it.
  ASSERT_TRUE(server.wait_for(
      [](const QuicTestUdpStats& stats, const auto&) { return stats.client_close.has_value(); },
      kPatience));
  const QuicTestCloseError close = *server.stats().client_close;
  EXPECT_FALSE(close.application);
  EXPECT_EQ(close.code, 0x3u);  // FLOW_CONTROL_ERROR

  std::string received;
  std::vector<std::byte> buffer(64 * 1024);
  Result<std::size_t> n = response->body.read(buffer);
  for (; n.ok() && *n > 0; n = response->body.read(buffer)) {
    received.append(reinterpret_cast<const char*>(buffer.data()), *n);
  }
  ASSERT_FALSE(n.ok()) << "the body ended as if whole after " << received.size() << " bytes";
  EXPECT_EQ(n.error().category(), ErrorCategory::protocol) << n.error().message();
  EXPECT_EQ(n.error().message(),
            "QUIC: 127.0.0.1 broke the QUIC protocol (FLOW_CONTROL_ERROR, ERR_FLOW_CONTROL)");
  EXPECT_LE(received.size(), window);
  EXPECT_EQ(received, generated_bytes(kSeed, 0, received.size()));
}

}  // namespace
}  // namespace sluice::test
