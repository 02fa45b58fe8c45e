// The fault matrix over HTTP/1.1, end to end through the Client: each server fault
// ends in the right error category with a message that says what happened, and a
// body cut short is never presented as complete. The parser's own cases (every
// split point, every malformed byte) are in tests/unit/http1.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;
using test::TestServerOptions;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

Request request_for(const std::string& url) {
  Request request = Request::get(url);
  request.timeouts.total = 10s;  // a hang fails the test instead of stalling it
  return request;
}

// One-shot signal from the test thread to a server handler.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// ---- resets, over plain TCP and over TLS ------------------------------------------

class ResetOverTransports : public testing::TestWithParam<bool> {
 protected:
  bool tls() const { return GetParam(); }

  TestServerOptions server_options() const {
    TestServerOptions options;
    options.tls = tls();
    return options;
  }

  std::string url_of(const TestServer& server) const {
    if (!tls()) return server.url("/");
    return "https://localhost:" + std::to_string(server.port()) + "/";
  }

  Client make_client() const {
    ClientOptions options;
    options.tls.ca_file = test::test_certs().ca_file;
    return test::make_client(options);
  }
};

TEST_P(ResetOverTransports, ResetMidHeadersFailsTheRequest) {
  TestServer server(
      [](ServerConnection& conn) {
        if (!conn.read_request()) return;
        conn.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nX-Cut: som");
        conn.reset();
      },
      server_options());
  auto client = make_client();
  auto response = client.fetch(request_for(url_of(server)));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::io);
  EXPECT_EQ(response.error().code(), ErrorCode::receive_failed);  // curl's 56
  EXPECT_EQ(response.error().message(),
            "HTTP/1.1: connection reset by peer before the response headers");
}

TEST_P(ResetOverTransports, ResetMidBodyFailsTheBodyWithTheByteCounts) {
  Gate head_received;
  TestServer server(
      [&head_received](ServerConnection& conn) {
        if (!conn.read_request()) return;
        conn.write("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n");
        if (!head_received.wait()) return;
        conn.write(std::string(1000, 'b'));
        conn.reset();
      },
      server_options());
  auto client = make_client();
  auto response = client.fetch(request_for(url_of(server)));
  head_received.open();
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a reset body was presented as complete";
  EXPECT_EQ(body.error().category(), ErrorCategory::io);
  const std::string& message = body.error().message();
  // The RST may discard bytes the client had not read yet: how many arrived varies.
  EXPECT_EQ(message.rfind("HTTP/1.1: connection reset by peer after ", 0), 0u) << message;
  EXPECT_TRUE(contains(message, " of 5000 body bytes")) << message;
}

INSTANTIATE_TEST_SUITE_P(FaultMatrixH1, ResetOverTransports, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? std::string("Tls") : std::string("Plain");
                         });

// ---- malformed and truncated responses ----------------------------------------------

TestServer answer_with(std::string bytes) {
  return TestServer([bytes = std::move(bytes)](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(bytes);
    conn.close();
  });
}

// The head arrives whole; the body then fails: read_all must end in an error.
Error body_error_of(const std::string& wire) {
  TestServer server = answer_with(wire);
  auto client = test::make_client();
  auto response = client.fetch(request_for(server.url("/")));
  EXPECT_TRUE(response.ok()) << response.error().message();
  if (!response.ok()) return response.error();
  auto body = response->body.read_all();
  EXPECT_FALSE(body.ok()) << "a broken body was presented as complete: '" << *body << "'";
  if (body.ok()) return Error(ErrorCategory::usage, "(no error)");
  return body.error();
}

const std::string kChunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";

TEST(FaultMatrixH1, ChunkedBodyCutInsideAChunkNamesTheBytesReceived) {
  const Error error = body_error_of(kChunkedHead + "5\r\nhello\r\na\r\n01234");
  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message(), "HTTP/1.1: connection closed inside a chunked body after 10 bytes");
}

TEST(FaultMatrixH1, NonHexChunkSizeIsAProtocolError) {
  const Error error = body_error_of(kChunkedHead + "5\r\nhello\r\nxyz\r\nmore\r\n0\r\n\r\n");
  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message().rfind("HTTP/1.1: invalid chunk size from server (", 0), 0u)
      << error.message();
}

TEST(FaultMatrixH1, ChunkSizeOverflowingSixtyFourBitsIsAProtocolError) {
  const Error error = body_error_of(kChunkedHead + "5\r\nhello\r\n10000000000000000\r\nx");
  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message().rfind("HTTP/1.1: invalid chunk size from server (", 0), 0u)
      << error.message();
}

TEST(FaultMatrixH1, HeaderBlockOverTheLimitIsTooLarge) {
  TestServer server = answer_with("HTTP/1.1 200 OK\r\nX-Big: " + std::string(8000, 'h') +
                                  "\r\nContent-Length: 0\r\n\r\n");
  auto client = test::make_client();
  Request request = request_for(server.url("/"));
  request.max_header_bytes = 4096;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(response.error().message(),
            "HTTP/1.1: response header block exceeds the limit of 4096 bytes");
}

TEST(FaultMatrixH1, InvalidStatusLinesAreProtocolErrors) {
  for (const std::string wire : {"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
                                 "ICY 200 OK\r\n\r\n", "HTTP/1.1 OK\r\n\r\n"}) {
    SCOPED_TRACE(wire);
    TestServer server = answer_with(wire);
    auto client = test::make_client();
    auto response = client.fetch(request_for(server.url("/")));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
    EXPECT_EQ(response.error().message().rfind("HTTP/1.1: invalid status line from server", 0), 0u)
        << response.error().message();
  }
}

// RFC 9112 2.2's leniency, end to end: a server ending its head lines with a bare LF
// is understood, as curl understands it; the LFs of its body stay as sent.
TEST(FaultMatrixH1, HeadLinesEndingInABareLineFeedAreAccepted) {
  TestServer server =
      answer_with("HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 6\n\nline\n\n");
  auto client = test::make_client();
  auto response = client.fetch(request_for(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->headers.get("Content-Type").value_or(""), "text/plain");
  auto body = response->body.read_all(1024);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "line\n\n");
}

// The same for chunked framing, with trailers; the LFs inside chunk data stay.
TEST(FaultMatrixH1, ChunkedFramingEndingInBareLineFeedsIsAccepted) {
  TestServer server = answer_with(
      "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5\nline\n\n3;ext=1\nab\n\n0\nX-Sum: 9\n\n");
  auto client = test::make_client();
  auto response = client.fetch(request_for(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all(1024);
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "line\nab\n");
}

// ---- where the server is, and whether it answers ----------------------------------------

TEST(FaultMatrixH1, DnsFailureNamesTheHost) {
  auto client = test::make_client();
  auto response = client.fetch(request_for("http://no-such-host.invalid/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::dns);
  EXPECT_EQ(response.error().message().rfind("DNS: cannot resolve 'no-such-host.invalid'", 0), 0u)
      << response.error().message();
}

TEST(FaultMatrixH1, ServerStallingAfterTheHeadersHitsTheIdleTimeout) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
    conn.wait_peer_closed(10s);
  });
  auto client = test::make_client();
  Request request = request_for(server.url("/"));
  request.timeouts.idle = 150ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::timeout);
  EXPECT_EQ(body.error().message(), "idle timeout: no data from 127.0.0.1:" +
                                        std::to_string(server.port()) + " for 150 ms");
}

// ---- content decoding -------------------------------------------------------------

TestServer serve_encoded(std::string body, std::string coding) {
  return TestServer([body = std::move(body), coding = std::move(coding)](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body, {{"Content-Encoding", coding}}));
    conn.wait_peer_closed(10s);
  });
}

Result<std::string> decoded_body(const TestServer& server, DecodePolicy decode = {}) {
  auto client = test::make_client();
  Request request = request_for(server.url("/"));
  request.decode = decode;
  request.decode.enabled = true;
  auto response = client.fetch(request);
  if (!response) return std::move(response).error();
  return response->body.read_all(256u << 20);
}

TEST(FaultMatrixDecoding, CorruptBodiesAreDecodeErrorsNamingTheCoding) {
  const std::string garbage = "this is not compressed data in any format, at all";
  for (const std::string coding : {"gzip", "br", "zstd"}) {
    SCOPED_TRACE(coding);
    TestServer server = serve_encoded(garbage, coding);
    auto body = decoded_body(server);
    ASSERT_FALSE(body.ok()) << "corrupt " << coding << " decoded to '" << *body << "'";
    EXPECT_EQ(body.error().category(), ErrorCategory::decode);
    EXPECT_EQ(body.error().message().rfind(coding + ": ", 0), 0u) << body.error().message();
    EXPECT_TRUE(contains(body.error().message(), "corrupt data")) << body.error().message();
  }
}

TEST(FaultMatrixDecoding, GzipBombStopsAtTheDecodedSizeLimitWithBoundedMemory) {
  // 64 MiB of zeros, as 64 gzip members of 1 MiB each: about 64 KiB on the wire.
  const std::string member = test::gzip(std::string(1u << 20, '\0'));
  std::string bomb;
  for (int i = 0; i < 64; ++i) bomb += member;
  TestServer server = serve_encoded(std::move(bomb), "gzip");
  auto client = test::make_client();
  Request request = request_for(server.url("/"));
  request.decode.enabled = true;
  request.decode.max_ratio = 0;  // the size limit alone
  request.decode.max_decoded_size = 8u << 20;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  // A reader that does not read holds at most the mark, however far the bomb inflates:
  // once decoding stopped at the mark (the receiver paused), nothing lies past it.
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "decoding never reached the mark: buffered " << response->body.buffered();
  EXPECT_LE(response->body.buffered(), request.allowance.initial_bytes);
  auto body = response->body.read_all(256u << 20);
  ASSERT_FALSE(body.ok()) << "a bomb decoded to " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::too_large);
  EXPECT_EQ(body.error().message(), "decoded body exceeds the limit of 8388608 bytes");
  EXPECT_LE(response->body.bytes_read(), std::uint64_t{8u << 20});
}

}  // namespace
}  // namespace sluice
