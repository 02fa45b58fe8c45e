// HTTP/1.1 exchanges through the public Client against the in-process TestServer.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/http_thread_hold.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::http_response;
using test::ServerConnection;
using test::TestServer;
using namespace std::chrono_literals;

using test::make_client;

TEST(ClientBasics, GetReturnsStatusHeadersAndBody) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    ASSERT_TRUE(request);
    EXPECT_EQ(request->method, "GET");
    EXPECT_EQ(request->target, "/hello?x=1");
    EXPECT_EQ(std::string(request->headers.get("host").value_or("")).rfind("127.0.0.1:", 0), 0u);
    EXPECT_EQ(request->headers.get("user-agent").value_or(""), "sluice/0.1");
    conn.write(http_response(200, "hello world", {{"X-Test", "yes"}}));
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/hello?x=1")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->version, HttpVersion::http1_1);
  EXPECT_EQ(response->headers.get("x-test").value_or(""), "yes");
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello world");
}

TEST(ClientBasics, ChunkedBodyWithTrailers) {
  TestServer server([](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
        "5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\nX-Sum: 42\r\n\r\n");
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello world");
  EXPECT_EQ(response->body.trailers().get("x-sum").value_or(""), "42");
}

TEST(ClientBasics, TruncatedBodyIsAnErrorNotAShortSuccess) {
  TestServer server([](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n");
    conn.write(std::string(1000, 'a'));
    conn.close();
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_NE(body.error().message().find("1000 of 5000"), std::string::npos)
      << body.error().message();
}

TEST(ClientBasics, TruncatedChunkedBodyIsAnError) {
  TestServer server([](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    conn.close();
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
}

TEST(ClientBasics, KeepAliveReusesOneConnection) {
  TestServer server([](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      if (!conn.write(http_response(200, "reply to " + request->target))) return;
    }
  });
  auto client = make_client();
  for (int i = 0; i < 5; ++i) {
    auto response = client.fetch(Request::get(server.url("/r" + std::to_string(i))));
    ASSERT_TRUE(response.ok()) << response.error().message();
    auto body = response->body.read_all();
    ASSERT_TRUE(body.ok());
    EXPECT_EQ(*body, "reply to /r" + std::to_string(i));
  }
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(ClientBasics, ServerClosingAPooledConnectionIsRetriedOnce) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    conn.write(http_response(200, "one"));
    // Keep-alive promised, but the next request finds the connection closing.
    conn.read_request_head(2s);
    conn.close();
  });
  auto client = make_client();
  auto first = client.fetch(Request::get(server.url("/a")));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first->body.read_all(), "one");
  auto second = client.fetch(Request::get(server.url("/b")));
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(*second->body.read_all(), "one");
  EXPECT_EQ(server.connections_accepted(), 2u);
}

TEST(ClientBasics, HeadAnd204And304HaveNoBody) {
  TestServer server([](ServerConnection& conn) {
    while (auto request = conn.read_request()) {
      if (request->method == "HEAD") {
        conn.write("HTTP/1.1 200 OK\r\nContent-Length: 12345\r\n\r\n");
      } else if (request->target == "/204") {
        conn.write("HTTP/1.1 204 No Content\r\n\r\n");
      } else {
        conn.write("HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n");
      }
    }
  });
  auto client = make_client();
  Request head = Request::get(server.url("/"));
  head.method = "HEAD";
  for (auto request : {head, Request::get(server.url("/204")), Request::get(server.url("/304"))}) {
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().message();
    auto body = response->body.read_all();
    ASSERT_TRUE(body.ok()) << body.error().message();
    EXPECT_TRUE(body->empty());
  }
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(ClientBasics, InformationalResponsesAreSkipped) {
  TestServer server([](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n");
    conn.write(http_response(200, "final"));
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(*response->body.read_all(), "final");
}

TEST(ClientBasics, CloseDelimitedBodyEndsAtClose) {
  TestServer server([](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end");
    conn.close();
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "until the end");
}

TEST(ClientBasics, ConnectionRefusedIsAConnectError) {
  std::uint16_t port = 0;
  {
    TestServer server([](ServerConnection&) {});
    port = server.port();
  }
  auto client = make_client();
  auto response = client.fetch(Request::get("http://127.0.0.1:" + std::to_string(port) + "/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::connect);
  EXPECT_NE(response.error().message().find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << response.error().message();
}

TEST(ClientBasics, UnresolvableHostIsADnsError) {
  auto client = make_client();
  auto response = client.fetch(Request::get("http://nosuch.invalid/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::dns);
}

TEST(ClientBasics, BadUrlAndBadHeaderAreUsageErrors) {
  auto client = make_client();
  auto bad_url = client.fetch(Request::get("ftp://example.org/"));
  ASSERT_FALSE(bad_url.ok());
  EXPECT_EQ(bad_url.error().category(), ErrorCategory::usage);
  Request injected = Request::get("http://127.0.0.1:1/");
  injected.headers.add("X-Evil", "a\r\nInjected: yes");
  auto bad_header = client.fetch(injected);
  ASSERT_FALSE(bad_header.ok());
  EXPECT_EQ(bad_header.error().category(), ErrorCategory::usage);
}

TEST(ClientBasics, FirstByteTimeoutFiresOnASilentServer) {
  TestServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.wait_peer_closed(5s);
  });
  auto client = make_client();
  Request request = Request::get(server.url("/"));
  request.timeouts.first_byte = 200ms;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout);
}

TEST(ClientBasics, IdleTimeoutFiresWhenTheBodyStalls) {
  TestServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
    conn.wait_peer_closed(5s);
  });
  auto client = make_client();
  Request request = Request::get(server.url("/"));
  request.timeouts.idle = 200ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok());
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::timeout);
}

TEST(ClientBasics, CancelFromAnotherThreadEndsTheRequest) {
  std::promise<void> request_arrived;
  TestServer server([&request_arrived](ServerConnection& conn) {
    if (conn.read_request()) request_arrived.set_value();
    conn.wait_peer_closed(5s);
  });
  auto client = make_client();
  auto pending = client.send(Request::get(server.url("/")));
  // Cancels a request in flight: once the server holds it, unanswered.
  std::thread canceller([&pending, arrived = request_arrived.get_future()] {
    (void)arrived.wait_for(30s);
    pending.cancel();
  });
  auto response = pending.wait();
  canceller.join();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::cancelled);
}

// cancel() in the body takes effect for the reader at once, on the caller's thread:
// a reader racing the HTTP thread could otherwise take the whole body before the
// posted cancel lands. Here the HTTP thread is held (test::HttpThreadHold), so
// only the caller's thread can have failed the body.
TEST(ClientBasics, CancelInTheBodyFailsTheReaderBeforeTheHttpThreadHearsOfIt) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nstaged");
    conn.wait_peer_closed(30s);
  });
  auto client = make_client();
  PendingResponse pending = client.send(Request::get(server.url("/")));
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_TRUE(test::eventually([&] { return response->body.buffered() == 6; }));

  test::HttpThreadHold hold(client);
  const bool held = hold.held();
  if (held) pending.cancel();
  std::string got(100, '\0');
  auto first = response->body.read_for(std::as_writable_bytes(std::span(got)), 5s);
  auto second = response->body.read_for(std::as_writable_bytes(std::span(got)), 5s);
  hold.release();
  ASSERT_TRUE(held) << "the HTTP thread never ran the holding task";
  ASSERT_TRUE(first.ok() && *first) << "the staged bytes were lost to the cancel";
  EXPECT_EQ(**first, 6u);
  ASSERT_FALSE(second.ok()) << "the reader did not see the cancel while the HTTP thread was busy";
  EXPECT_EQ(second.error().category(), ErrorCategory::cancelled);
  EXPECT_TRUE(test::eventually([&] { return client.stats().in_flight == 0; }));
}

TEST(ClientBasics, CallbackModeDeliversTheBodyAndTheEnd) {
  const std::string payload = test::pseudo_random_bytes(3 << 20);
  TestServer server([&payload](ServerConnection& conn) {
    ASSERT_TRUE(conn.read_request());
    conn.write(http_response(200, payload));
  });
  auto client = make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  std::mutex mu;
  std::condition_variable done_cv;
  std::string received;
  std::optional<Result<void>> end;
  (void)std::move(response->body)
      .on_data(
          [&](std::span<const std::byte> bytes) {
            std::lock_guard lock(mu);
            received.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
            return true;
          },
          [&](Result<void> status) {
            std::lock_guard lock(mu);
            end.emplace(std::move(status));
            done_cv.notify_all();
          });
  std::unique_lock lock(mu);
  ASSERT_TRUE(done_cv.wait_for(lock, 10s, [&] { return end.has_value(); }));
  EXPECT_TRUE(end->ok());
  EXPECT_EQ(test::sha256_hex(received), test::sha256_hex(payload));
}

}  // namespace
}  // namespace sluice
