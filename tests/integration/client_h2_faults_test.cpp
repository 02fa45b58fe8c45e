// HTTP/2 failure cases through the public Client against the in-process h2c
// H2TestServer: GOAWAY with streams in flight, REFUSED_STREAM and other resets, a
// server that stops reading an upload, trailers, and the server's stream limit.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::H2ServerConnection;
using test::H2ServerStream;
using test::H2TestServer;
using test::H2TestServerOptions;

using test::make_client;

Request h2_request(const H2TestServer& server, std::string_view path) {
  Request request = Request::get(server.url(path));
  request.version = VersionPolicy::http2_prior_knowledge;
  return request;
}

void reply(H2ServerStream& stream, std::string_view body) {
  stream.respond(200, {{"content-type", "text/plain"}});
  stream.send_body(body, true);
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Reads the whole body of a request that must succeed.
std::string fetch_body(PendingResponse pending) {
  auto response = pending.wait();
  if (!response.ok()) return "error: " + response.error().message();
  EXPECT_EQ(response->version, HttpVersion::http2);
  auto body = response->body.read_all();
  return body.ok() ? *body : "body error: " + body.error().message();
}

TEST(ClientOverHttp2Faults, GoawayRetriesStreamsAboveLastStreamIdOnANewConnection) {
  H2TestServer server([](H2ServerStream& stream) {
    H2ServerConnection& conn = stream.conn();
    if (conn.index() > 1) {
      reply(stream, "a later connection " + stream.path());
      return;
    }
    if (conn.requests_seen() < 3) return;  // answer once all three are in flight
    H2ServerStream first = conn.stream(1);
    reply(first, "first connection " + first.path());
    conn.goaway(1, NGHTTP2_NO_ERROR);
    conn.close();
  });
  auto client = make_client();
  std::vector<PendingResponse> pending;
  for (const char* path : {"/a", "/b", "/c"})
    pending.push_back(client.send(h2_request(server, path)));
  int first = 0;
  int later = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const std::string path = std::string("/") + static_cast<char>('a' + i);
    const std::string body = fetch_body(std::move(pending[i]));
    if (body == "first connection " + path) {
      ++first;
    } else {
      EXPECT_EQ(body, "a later connection " + path);
      ++later;
    }
  }
  EXPECT_EQ(first, 1);
  EXPECT_EQ(later, 2);
  // The GOAWAY refused two of three after serving one: the client takes that as the
  // server's limit per connection (GoawayRequestLimit.*) and sends one on each.
  EXPECT_EQ(server.connections_accepted(), 3u);
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{3, 1, 1}));
}

TEST(ClientOverHttp2Faults, GoawayBeforeAPostIsProcessedRetriesItWithTheBodyIntact) {
  const std::string payload = test::pseudo_random_bytes(200 * 1024, 7);
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.conn().index() == 1) {
      stream.conn().goaway(0, NGHTTP2_NO_ERROR);  // nothing processed: retry elsewhere
      stream.conn().close();
      return;
    }
    const test::H2TestPeer::Request& request = stream.request();
    reply(stream, stream.method() + " " + std::to_string(request.body.size()) + " " +
                      test::sha256_hex(request.body));
  });
  auto client = make_client();
  Request request = h2_request(server, "/upload");
  request.method = "POST";
  request.body = BytesBody{payload};
  EXPECT_EQ(fetch_body(client.send(std::move(request))),
            "POST " + std::to_string(payload.size()) + " " + test::sha256_hex(payload));
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{1, 1}));
}

// A server that refuses every attempt: the error says the request went three times,
// not just that it could go again.
TEST(ClientOverHttp2Faults, AServerThatRefusesEachAttemptFailsSayingHowOftenItWasSent) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.conn().goaway(0, NGHTTP2_NO_ERROR);
    stream.conn().close();
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/refused"));
  ASSERT_FALSE(response.ok());
  EXPECT_TRUE(contains(response.error().message(),
                       "sluice sent the request 3 times and the server refused it unprocessed "
                       "each time"))
      << response.error().message();
  EXPECT_EQ(server.requests_seen(), 3u);
}

// A body over the release threshold is freed as soon as its last byte was sent (the
// release rule), so it cannot go again: one attempt, and an error that says why
// rather than one that advises the retry that did not happen.
TEST(ClientOverHttp2Faults, GoawayAfterALargeOwnedBodyWasReleasedFailsSayingItCannotBeResent) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.conn().goaway(0, NGHTTP2_NO_ERROR);
    stream.conn().close();
  });
  auto client = make_client();
  Request request = h2_request(server, "/upload");
  request.method = "POST";
  request.body = BytesBody{std::string(1 << 20, 'p')};
  auto response = client.fetch(std::move(request));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(response.error().message(), "GOAWAY")) << response.error().message();
  EXPECT_TRUE(contains(response.error().message(), "cannot resend the request body"))
      << response.error().message();
  EXPECT_EQ(server.requests_seen(), 1u);
}

TEST(ClientOverHttp2Faults, RefusedStreamIsRetriedAndSucceeds) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.conn().requests_seen() == 1) {
      stream.reset(NGHTTP2_REFUSED_STREAM);
      return;
    }
    reply(stream, "accepted " + stream.path());
  });
  auto client = make_client();
  EXPECT_EQ(fetch_body(client.send(h2_request(server, "/x"))), "accepted /x");
  // The connection is still good: the retry went on it.
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{2}));
}

TEST(ClientOverHttp2Faults, StreamRefusedEveryTimeFailsAfterThreeAttempts) {
  H2TestServer server([](H2ServerStream& stream) { stream.reset(NGHTTP2_REFUSED_STREAM); });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/never"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(response.error().message(), "REFUSED_STREAM")) << response.error().message();
  EXPECT_EQ(server.requests_seen(), 3u);  // 1 + 2 retries
}

TEST(ClientOverHttp2Faults, ResetMidBodyFailsTheReaderAndSparesItsSibling) {
  std::atomic<std::int32_t> broken_stream{0};
  H2TestServer server([&broken_stream](H2ServerStream& stream) {
    H2ServerConnection& conn = stream.conn();
    if (conn.requests_seen() < 2) return;  // both in flight before anything is answered
    for (std::int32_t stream_id : conn.peer().request_ids()) {
      H2ServerStream each = conn.stream(stream_id);
      if (each.path() != "/broken") continue;
      broken_stream = stream_id;
      each.respond(200);
      each.send_body(std::string(1000, 'x'), false);
      each.reset(NGHTTP2_INTERNAL_ERROR);
    }
    for (std::int32_t stream_id : conn.peer().request_ids()) {
      H2ServerStream each = conn.stream(stream_id);
      if (each.path() == "/sibling") reply(each, "sibling complete");
    }
  });
  auto client = make_client();
  PendingResponse broken = client.send(h2_request(server, "/broken"));
  PendingResponse sibling = client.send(h2_request(server, "/sibling"));

  auto response = broken.wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  std::vector<std::byte> piece(4096);
  std::size_t received = 0;
  Result<std::size_t> got = std::size_t{0};
  while ((got = response->body.read(piece)).ok() && *got > 0) received += *got;
  ASSERT_FALSE(got.ok()) << "a reset body ended as a short success after " << received << " bytes";
  EXPECT_EQ(received, 1000u);  // bytes before the reset are still the reader's
  EXPECT_EQ(got.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(got.error().message(), "HTTP/2: stream " + std::to_string(broken_stream.load()) +
                                       " reset by server (INTERNAL_ERROR)");

  EXPECT_EQ(fetch_body(std::move(sibling)), "sibling complete");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{2}));
}

TEST(ClientOverHttp2Faults, ResetBeforeHeadersOtherThanRefusedIsNotRetried) {
  H2TestServer server([](H2ServerStream& stream) { stream.reset(NGHTTP2_INTERNAL_ERROR); });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/reset"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(response.error().message(), "HTTP/2: stream 1 reset by server (INTERNAL_ERROR)");
  EXPECT_EQ(server.requests_seen(), 1u);
}

// The HTTP/1.1 rule (a request that fails on a reused keep-alive connection before any
// response byte is sent again once) must not turn an h2 stream reset into a retry:
// the server answered this stream; the connection is alive.
TEST(ClientOverHttp2Faults, ResetBeforeHeadersOnAReusedConnectionIsNotRetried) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.path() == "/warm-up") {
      reply(stream, "warm");
      return;
    }
    stream.reset(NGHTTP2_INTERNAL_ERROR);
  });
  auto client = make_client();
  EXPECT_EQ(fetch_body(client.send(h2_request(server, "/warm-up"))), "warm");
  auto response = client.fetch(h2_request(server, "/reset"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(response.error().message(), "HTTP/2: stream 3 reset by server (INTERNAL_ERROR)");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{2}));
}

// The server takes the request head, then never reads again: its flow-control window
// and the socket buffers fill and the upload stalls. A timeout must end it.
class ClientOverHttp2FaultsUpload : public ::testing::Test {
 protected:
  static H2TestServerOptions on_head() {
    H2TestServerOptions options;
    options.call_on_head = true;
    return options;
  }

  Result<Response> upload_with(Timeouts timeouts) {
    Request request = h2_request(server_, "/upload");
    request.method = "PUT";
    request.body = BytesBody{std::string(8 << 20, 'u')};
    request.timeouts = timeouts;
    PendingResponse pending = client_.send(std::move(request));
    // Bounded so that a missing timeout fails the test instead of hanging it.
    auto decided = pending.wait_for(10s);
    if (!decided) return Error(ErrorCategory::usage, "the upload was still pending after 10 s");
    return std::move(*decided);
  }

  H2TestServer server_{[](H2ServerStream& stream) { stream.conn().stop_reading(); }, on_head()};
  Client client_ = make_client();
};

TEST_F(ClientOverHttp2FaultsUpload, TotalTimeoutEndsAnUploadTheServerStoppedReading) {
  Timeouts timeouts;
  timeouts.total = 1s;
  auto response = upload_with(timeouts);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().message();
  EXPECT_EQ(response.error().message(), "transfer did not complete within 1000 ms (total timeout)");
  EXPECT_EQ(server_.requests_seen(), 1u);
}

TEST_F(ClientOverHttp2FaultsUpload, IdleTimeoutEndsAnUploadTheServerStoppedReading) {
  Timeouts timeouts;
  timeouts.idle = 1s;
  auto response = upload_with(timeouts);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().message();
  EXPECT_EQ(response.error().message(),
            "idle timeout: 127.0.0.1:" + std::to_string(server_.port()) +
                " neither read the request body nor answered for 1000 ms");
  EXPECT_EQ(server_.requests_seen(), 1u);
}

TEST(ClientOverHttp2Faults, TrailersAreReadableAfterTheBody) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body("hello ", false);
    stream.send_body("world", false);
    stream.send_trailers({{"x-checksum", "5eb63bbbe01eeed0"}, {"x-rows", "2"}});
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/with-trailers"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello world");
  const Headers trailers = response->body.trailers();
  EXPECT_EQ(trailers.get("x-checksum").value_or(""), "5eb63bbbe01eeed0");
  EXPECT_EQ(trailers.get("x-rows").value_or(""), "2");
}

TEST(ClientOverHttp2Faults, GoawayWithAnErrorCodeNamesItAndDoesNotRetryProcessedStreams) {
  H2TestServer server([](H2ServerStream& stream) {
    // last_stream_id covers this stream: the server says it may have processed it.
    stream.conn().goaway(stream.stream_id(), NGHTTP2_ENHANCE_YOUR_CALM, "too many requests");
    stream.conn().close();
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/calm"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(response.error().message(), "GOAWAY (ENHANCE_YOUR_CALM: too many requests)"))
      << response.error().message();
  EXPECT_EQ(server.connections_accepted(), 1u);
  EXPECT_EQ(server.requests_seen(), 1u);
}

TEST(ClientOverHttp2Faults, GoawayWithAnErrorCodeMidBodyFailsTheReaderNamingIt) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body(std::string(500, 'b'), false);
    stream.conn().goaway(stream.stream_id(), NGHTTP2_INTERNAL_ERROR, "worker crashed");
    stream.conn().close();
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/cut"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a cut body ended as a short success of " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(body.error().message(), "GOAWAY (INTERNAL_ERROR: worker crashed)"))
      << body.error().message();
  EXPECT_EQ(server.requests_seen(), 1u);
}

// SETTINGS_MAX_CONCURRENT_STREAMS = 2 and ten requests at once.
class ClientOverHttp2FaultsStreamLimit : public ::testing::Test {
 protected:
  static H2TestServerOptions two_streams() {
    H2TestServerOptions options;
    options.peer.settings = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2}};
    // The client learns the limit only after it sent its first requests.
    options.hold_output_until_request = true;
    return options;
  }

  enum class Start { cold, warm };

  // Sends ten requests at once (after one request that brings the server's SETTINGS,
  // when warm) and checks every body; returns how many sends the client retried.
  int fetch_ten(ClientOptions options, Start start) {
    auto retries = std::make_shared<std::atomic<int>>(0);
    options.trace = [retries](std::string_view line) {
      if (line.find("retrying") != std::string_view::npos) ++*retries;
    };
    Client client = make_client(std::move(options));
    if (start == Start::warm) {
      EXPECT_EQ(fetch_body(client.send(h2_request(server_, "/warm-up"))), "reply to /warm-up");
    }
    std::vector<PendingResponse> pending;
    for (int i = 0; i < 10; ++i) {
      Request request = h2_request(server_, "/n" + std::to_string(i));
      // Waiting for a stream counts as waiting for a connection: a request nobody
      // starts fails after this instead of the default 30 s.
      request.timeouts.connect = 5s;
      pending.push_back(client.send(std::move(request)));
    }
    for (int i = 0; i < 10; ++i) {
      EXPECT_EQ(fetch_body(std::move(pending[i])), "reply to /n" + std::to_string(i));
    }
    return retries->load();
  }

  // Answers through the peer without flushing: the connection thread writes them
  // after the whole read was handled, in one write with the RST_STREAM(REFUSED_STREAM)s
  // nghttp2 queued for streams beyond the limit, so the client meets the refusals and
  // the completions in one read.
  static void answer_in_one_write(H2ServerStream& stream) {
    test::H2TestPeer& peer = stream.conn().peer();
    peer.respond(stream.stream_id(), 200);
    peer.send_body(stream.stream_id(), "reply to " + stream.path(), true);
  }

  H2TestServer server_{&answer_in_one_write, two_streams()};
};

TEST_F(ClientOverHttp2FaultsStreamLimit, RequestsBeyondTheLimitWaitForAFreeStreamOnOneConnection) {
  ClientOptions options;
  options.pool.max_connections_per_origin = 1;
  // The limit is known: eight requests wait for a free stream, none is sent and refused.
  EXPECT_EQ(fetch_ten(options, Start::warm), 0);
  EXPECT_EQ(server_.requests_per_connection(), (std::vector<std::size_t>{11}));
}

// Before the server's SETTINGS arrive the client may assume more streams than the
// server allows; what the server refuses comes back as REFUSED_STREAM and is retried.
TEST_F(ClientOverHttp2FaultsStreamLimit,
       RequestsSentBeforeTheServerSettingsAllCompleteOnOneConnection) {
  ClientOptions options;
  options.pool.max_connections_per_origin = 1;
  const int retries = fetch_ten(options, Start::cold);
  EXPECT_EQ(server_.requests_per_connection(), (std::vector<std::size_t>{10}));
  std::cout << "[ info     ] cold start, limit 2, one connection allowed: " << retries
            << " send(s) refused and retried\n";
}

TEST_F(ClientOverHttp2FaultsStreamLimit, DefaultPoolOpensConnectionsUpToItsLimitWhenOneIsFull) {
  const int retries = fetch_ten(ClientOptions{}, Start::warm);
  const std::vector<std::size_t> per_connection = server_.requests_per_connection();
  EXPECT_LE(per_connection.size(), ClientOptions{}.pool.max_connections_per_origin);
  EXPECT_EQ(server_.requests_seen(), 11u);
  std::cout << "[ info     ] warm start, limit 2, default pool: " << per_connection.size()
            << " connection(s), requests per connection:";
  for (std::size_t n : per_connection) std::cout << ' ' << n;
  std::cout << "; " << retries << " send(s) refused and retried\n";
}

}  // namespace
}  // namespace sluice
