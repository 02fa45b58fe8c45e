// The Client's timers on a manual clock (ClientAccess::create): idle and total
// timeouts, the low-speed limit, a held reader's silence that is not the server's,
// the 4 s sweep and the HTTP/3 fallback to TCP, each over minutes of the HTTP
// thread's time and milliseconds of real time. After each move of the clock the test
// asks the Client for its stats: that call is answered on the HTTP thread after the
// turn that woke for the move, so every timer then due has fired.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>

#include "client/client_access.hpp"
#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"
#include "support/manual_clock.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A Client whose HTTP thread runs on `clock`.
Client client_on(test::ManualClock& clock, ClientOptions options = {}) {
  auto client = ClientAccess::create(std::move(options), clock);
  EXPECT_TRUE(client.ok()) << (client.ok() ? "" : client.error().message());
  return std::move(client).value();
}

// Moves the HTTP thread's time and returns once it has handled the move.
void advance(test::ManualClock& clock, Client& client, std::chrono::nanoseconds by) {
  clock.advance(by);
  (void)client.stats();  // wakes the loop (a post) and waits for its answer
}

// Serves a head and the first bytes of a body that never ends, then waits for the
// client to go away.
void head_then_silence(test::ServerConnection& conn) {
  if (!conn.read_request()) return;
  conn.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nfirst bytes");
  conn.wait_peer_closed(60s);
}

// Expects the body's next read to fail with a timeout (within real seconds).
void expect_timeout(BodyReader& body, ErrorCode code, const std::string& wanted) {
  std::array<std::byte, 64> buffer{};
  auto read = body.read_for(buffer, 10s);
  ASSERT_FALSE(read.ok()) << "the body went on instead of timing out";
  EXPECT_EQ(read.error().category(), ErrorCategory::timeout) << read.error().message();
  EXPECT_EQ(read.error().code(), code) << to_string(read.error().code());
  EXPECT_NE(read.error().message().find(wanted), std::string::npos) << read.error().message();
}

// Nothing staged and nothing failed: read_for returns at once with no bytes.
void expect_still_waiting(BodyReader& body) {
  std::array<std::byte, 64> buffer{};
  auto read = body.read_for(buffer, 0ms);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_FALSE(read->has_value()) << "bytes arrived from a silent server";
}

void take(BodyReader& body, std::size_t n) {
  std::string got(n, '\0');
  std::size_t have = 0;
  while (have < n) {
    auto read = body.read_for(std::as_writable_bytes(std::span(got).subspan(have)), 10s);
    ASSERT_TRUE(read.ok() && read->has_value()) << "the first bytes never came";
    have += **read;
  }
}

TEST(ClientTimersOnAManualClock, IdleTimeoutCountsTheServersSilenceToTheMillisecond) {
  test::ManualClock clock;
  test::TestServer server(head_then_silence);
  Client client = client_on(clock);
  Request request = Request::get(server.url("/"));
  request.timeouts.idle = 30s;
  auto response = client.fetch(std::move(request));
  ASSERT_TRUE(response.ok()) << response.error().message();
  take(response->body, 11);  // "first bytes": the silence starts here
  advance(clock, client, 29'999ms);
  expect_still_waiting(response->body);
  advance(clock, client, 1ms);
  expect_timeout(response->body, ErrorCode::idle_timeout, "idle timeout");
}

TEST(ClientTimersOnAManualClock, TotalTimeoutEndsATransferThatKeepsTrickling) {
  test::ManualClock clock;
  test::TestServer server(head_then_silence);
  Client client = client_on(clock);
  Request request = Request::get(server.url("/"));
  request.timeouts.total = 120s;
  auto response = client.fetch(std::move(request));
  ASSERT_TRUE(response.ok()) << response.error().message();
  take(response->body, 11);
  advance(clock, client, 119s);
  expect_still_waiting(response->body);
  advance(clock, client, 1s);
  expect_timeout(response->body, ErrorCode::total_timeout, "total timeout");
}

// HTTP/2: a server that stops reading (so it never answers a PING) while a stream
// waits for its body. After 30 s of silence a PING goes out; 10 s unanswered and the
// connection, with its stream, fails.
TEST(ClientTimersOnAManualClock, AnUnansweredHttp2PingFailsTheConnectionAfterTenSeconds) {
  test::ManualClock clock;
  test::H2TestServer server([](test::H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body("first bytes", false);
    stream.conn().stop_reading();
  });
  Client client = client_on(clock);
  Request request = Request::get(server.url("/"));
  request.version = VersionPolicy::http2_prior_knowledge;
  auto response = client.fetch(std::move(request));
  ASSERT_TRUE(response.ok()) << response.error().message();
  take(response->body, 11);
  advance(clock, client, 30s);  // quiet for the PING interval: the PING leaves
  advance(clock, client, 9'999ms);
  expect_still_waiting(response->body);
  advance(clock, client, 1ms);
  expect_timeout(response->body, ErrorCode::ping_timeout, "did not answer a PING within 10 s");
}

// A reader that holds its body at the mark: the server is blocked by us, so its
// silence is ours and the idle timeout never fires, however long the hold.
TEST(ClientTimersOnAManualClock, AHeldReaderIsNotAnIdleServer) {
  test::ManualClock clock;
  const std::string body(4 * 1024 * 1024, 'h');
  test::TestServer server([&](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body));
    conn.wait_peer_closed(60s);
  });
  Client client = client_on(clock);
  Request request = Request::get(server.url("/"));
  request.timeouts.idle = 5s;
  auto response = client.fetch(std::move(request));
  ASSERT_TRUE(response.ok()) << response.error().message();
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "the reader's stream never paused at its mark";
  for (int minute = 0; minute < 10; ++minute) advance(clock, client, 60s);
  auto rest = response->body.read_all(8 * 1024 * 1024);
  ASSERT_TRUE(rest.ok()) << rest.error().message();
  EXPECT_EQ(rest->size(), body.size());
}

// A response dropped with less than a mark read drains the rest so its connection
// can be reused; a server that stalls then has 5 s (or the idle timeout, if
// shorter) before the exchange is abandoned and the connection closed.
void expect_drain_abandoned_after(test::ManualClock& clock, std::chrono::milliseconds deadline,
                                  std::chrono::milliseconds idle) {
  test::TestServer server(head_then_silence);
  Client client = client_on(clock);
  Request request = Request::get(server.url("/"));
  request.timeouts.idle = idle;
  {
    auto response = client.fetch(std::move(request));
    ASSERT_TRUE(response.ok()) << response.error().message();
    take(response->body, 11);
  }  // dropped: the rest (under a mark so far) drains
  // The drop reaches the HTTP thread as a post: answered stats say it was handled,
  // at the time the clock says now, before the clock moves.
  (void)client.stats();
  advance(clock, client, deadline - 1ms);
  EXPECT_EQ(client.stats().in_flight, 1u) << "the drain ended before its deadline";
  EXPECT_EQ(client.stats().connections, 1u);
  advance(clock, client, 1ms);
  EXPECT_EQ(client.stats().in_flight, 0u) << "a stalled drain held its connection";
  EXPECT_EQ(client.stats().connections, 0u);
}

TEST(ClientTimersOnAManualClock, ADroppedBodysDrainEndsAfterFiveSecondsOfAStalledServer) {
  test::ManualClock clock;
  expect_drain_abandoned_after(clock, 5s, 0ms);
}

TEST(ClientTimersOnAManualClock, ADroppedBodysDrainEndsAtAShorterIdleTimeout) {
  test::ManualClock clock;
  expect_drain_abandoned_after(clock, 2s, 2s);
}

// The sweep frees the scratch of a receiver paused for a second or more, every 4 s
// of the HTTP thread's time.
TEST(ClientTimersOnAManualClock, TheSweepRunsEveryIntervalOfTheClock) {
  test::ManualClock clock;
  const std::string body(4 * 1024 * 1024, 's');
  test::TestServer server([&](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body));
    conn.wait_peer_closed(60s);
  });
  Client client = client_on(clock);
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }));
  advance(clock, client, 3'999ms);
  EXPECT_EQ(client.stats().sweep_releases, 0u) << "the sweep ran before its interval";
  advance(clock, client, 1ms);
  EXPECT_GE(client.stats().sweep_releases, 1u) << "the sweep did not run at 4 s";
}

// A UDP socket bound to a port that reads nothing and answers nothing: QUIC sent
// there gets no reply and no ICMP error, as behind a firewall that drops it.
class UdpBlackHole {
 public:
  explicit UdpBlackHole(std::uint16_t port) : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bound_ = bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
  }
  ~UdpBlackHole() { close(fd_); }
  bool bound() const { return bound_; }
  /// A datagram arrived (and waits, unread).
  bool received() const {
    std::array<char, 1> byte{};
    return recv(fd_, byte.data(), byte.size(), MSG_PEEK | MSG_DONTWAIT) >= 0;
  }

 private:
  int fd_;
  bool bound_ = false;
};

// HTTP/3 first to a port that answers nothing: after http3_fallback_after of the
// HTTP thread's time, and not before, the request goes over TCP.
TEST(ClientTimersOnAManualClock, Http3FallsBackToTcpWhenItsTimerExpires) {
  test::ManualClock clock;
  test::TestServerOptions tls;
  tls.tls = true;
  tls.cert_file = test::test_certs().server_cert;
  tls.key_file = test::test_certs().server_key;
  test::TestServer server(
      [](test::ServerConnection& conn) {
        while (conn.read_request()) {
          if (!conn.write(test::http_response(200, "over tcp"))) return;
        }
      },
      tls);
  // Nothing answers QUIC on the server's port number.
  UdpBlackHole black_hole(server.port());
  ASSERT_TRUE(black_hole.bound()) << "UDP port " << server.port() << " is taken";
  ClientOptions options;
  options.tls.ca_file = test::test_certs().ca_file;
  options.pool.http3_fallback_after = 1s;
  Client client = client_on(clock, options);
  Request request = Request::get("https://localhost:" + std::to_string(server.port()) + "/");
  request.version = VersionPolicy::http3;
  PendingResponse pending = client.send(std::move(request));
  ASSERT_TRUE(test::eventually([&] { return black_hole.received(); })) << "no QUIC packet was sent";
  advance(clock, client, 999ms);
  EXPECT_EQ(server.connections_accepted(), 0u) << "TCP was tried before the fallback time";
  advance(clock, client, 1ms);
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->version, HttpVersion::http1_1);
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "over tcp");
}

ClientOptions low_speed(std::uint64_t bytes_per_second, std::chrono::seconds time) {
  ClientOptions options;
  options.low_speed.bytes_per_second = bytes_per_second;
  options.low_speed.time = time;
  return options;
}

// ClientOptions::low_speed (curl's --speed-limit): under the limit for its time, the
// transfer fails at that second of the HTTP thread's clock, checked once a second.
TEST(ClientTimersOnAManualClock, ATransferUnderTheLowSpeedLimitFailsAfterItsTime) {
  test::ManualClock clock;
  test::TestServer server(head_then_silence);
  Client client = client_on(clock, low_speed(1000, 3s));
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  take(response->body, 11);
  advance(clock, client, 1s);
  advance(clock, client, 1s);
  expect_still_waiting(response->body);
  advance(clock, client, 1s);
  expect_timeout(response->body, ErrorCode::low_speed,
                 "less than 1000 bytes/sec transferred the last 3 seconds");
}

// A reader that holds its body: the slowness is ours, and the limit never fires.
TEST(ClientTimersOnAManualClock, AHeldReaderIsNeverUnderTheLowSpeedLimit) {
  test::ManualClock clock;
  const std::string body(4 * 1024 * 1024, 'h');
  test::TestServer server([&](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body));
    conn.wait_peer_closed(60s);
  });
  Client client = client_on(clock, low_speed(1000, 3s));
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().message();
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "the reader's stream never paused at its mark";
  for (int second = 0; second < 120; ++second) advance(clock, client, 1s);
  auto rest = response->body.read_all(8 * 1024 * 1024);
  ASSERT_TRUE(rest.ok()) << rest.error().message();
  EXPECT_EQ(rest->size(), body.size());
}

}  // namespace
}  // namespace sluice
