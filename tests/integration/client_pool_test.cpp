// The connection pool: per-origin limits, idle connections closed, and one origin's
// requests never waiting on another's.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

TEST(ClientPool, ConnectionsPerOriginStayWithinTheLimit) {
  std::atomic<int> open{0};
  std::atomic<int> most_open{0};
  // No answer until the test opens the gate: all 12 requests pile up behind two busy
  // connections, whatever the scheduling.
  std::promise<void> gate;
  TestServer server([&, opened = gate.get_future().share()](ServerConnection& conn) {
    const int now = ++open;
    int seen = most_open.load();
    while (now > seen && !most_open.compare_exchange_weak(seen, now)) {}
    while (auto request = conn.read_request(10s)) {
      (void)opened.wait_for(30s);
      if (!conn.write(test::http_response(200, request->target))) break;
    }
    --open;
  });
  ClientOptions options;
  options.pool.max_connections_per_origin = 2;
  auto client = test::make_client(options);
  std::vector<PendingResponse> pending;
  for (int i = 0; i < 12; ++i)
    pending.push_back(client.send(Request::get(server.url("/" + std::to_string(i)))));
  // Two requests are out, one on each connection; ten wait for them.
  EXPECT_TRUE(test::eventually([&] { return server.connections_accepted() >= 2; }))
      << "the client opened " << server.connections_accepted() << " connection(s) for 12 requests";
  gate.set_value();
  for (int i = 0; i < 12; ++i) {
    auto response = pending[static_cast<std::size_t>(i)].wait();
    ASSERT_TRUE(response.ok()) << response.error().message();
    EXPECT_EQ(*response->body.read_all(), "/" + std::to_string(i));
  }
  EXPECT_EQ(server.connections_accepted(), 2u);
  EXPECT_LE(most_open.load(), 2);
}

TEST(ClientPool, IdleConnectionIsClosedAfterTheIdleTimeout) {
  std::promise<bool> client_closed;
  std::future<bool> closed = client_closed.get_future();
  TestServer server([&](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, "ok"));
    client_closed.set_value(conn.wait_peer_closed(20s));
  });
  ClientOptions options;
  options.pool.idle_timeout = 100ms;
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(*response->body.read_all(), "ok");
  ASSERT_EQ(closed.wait_for(30s), std::future_status::ready) << "the server never finished waiting";
  EXPECT_TRUE(closed.get()) << "the pooled connection outlived its idle timeout";
}

TEST(ClientPool, ChunkedResponseSplitAcrossManyWritesArrivesWhole) {
  // Chunk sizes, extensions, CRLFs and trailers cut at small irregular boundaries
  // on the wire, not only in the codec's unit tests.
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::string expected;
  for (int i = 1; i <= 40; ++i) {
    const std::string piece(static_cast<std::size_t>(i * 7), static_cast<char>('a' + i % 26));
    char size[16];
    std::snprintf(size, sizeof size, "%x", static_cast<unsigned>(piece.size()));
    wire += std::string(size) + ";n=" + std::to_string(i) + "\r\n" + piece + "\r\n";
    expected += piece;
  }
  wire += "0\r\nX-Done: yes\r\n\r\n";
  TestServer server([&wire](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write_slowly(wire, 3, 1ms);
  });
  auto client = test::make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, expected);
  EXPECT_EQ(response->body.trailers().get("x-done").value_or(""), "yes");
}

TEST(ClientPool, ClientDestroyedWithABodyUnreadFailsTheReader) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nabc");
    conn.wait_peer_closed(5s);
  });
  std::optional<Response> kept;
  {
    auto client = test::make_client();
    auto response = client.fetch(Request::get(server.url("/")));
    ASSERT_TRUE(response.ok());
    kept.emplace(std::move(*response));
  }
  auto body = kept->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::cancelled);
}

}  // namespace
}  // namespace sluice
