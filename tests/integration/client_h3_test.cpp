// The client over HTTP/3 against real servers started by the ctest fixture: caddy
// (h1/h2 on TCP and h3 on UDP, same port) and gtlsserver (ngtcp2's example server,
// h3 only), plus the UDP fault proxy for a lossy or blocked path. Backpressure is
// QUIC flow control: a held stream's MAX_STREAM_DATA stays put while its siblings go.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <thread>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"
#include "support/udp_proxy.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t k64MiB = 64u << 20;

// Every trace line, kept for assertions (the callback runs on the HTTP thread).
class TraceLog {
 public:
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      lines_.emplace_back(line);
    };
  }
  bool any_contains(std::string_view part) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }
  int count(std::string_view part) const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const auto& line : lines_) n += line.find(part) != std::string::npos ? 1 : 0;
    return n;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

std::string read_to_end(BodyReader& reader) {
  auto all = reader.read_all(128u << 20);
  EXPECT_TRUE(all.ok()) << (all.ok() ? "" : all.error().message());
  return all.ok() ? std::move(*all) : std::string();
}

std::uint16_t port_of(const std::string& url) {
  return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

// A UDP port that swallows every datagram and answers nothing (not even ICMP): a
// firewall dropping QUIC. Bound on 127.0.0.1 only; "localhost" resolves there here.
class SilentUdpPort {
 public:
  explicit SilentUdpPort(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~SilentUdpPort() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool bound() const { return bound_; }

 private:
  int fd_;
  bool bound_ = false;
};

class ClientHttp3 : public ::testing::Test {
 protected:
  Client make_client(ClientOptions options = {}) {
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.trace = trace_.sink();
    return test::make_client(std::move(options));
  }
  Request h3_only(const std::string& url) {
    Request request = Request::get(url);
    request.version = VersionPolicy::http3_only;
    return request;
  }
  std::string caddy(std::string_view path) const {
    return env_.get("SLUICE_CADDY_URL") + std::string(path);
  }
  std::string gtls(std::string_view path) const {
    return env_.get("SLUICE_GTLSSERVER_URL") + std::string(path);
  }

  test::TestEnv env_;
  TraceLog trace_;
};

TEST_F(ClientHttp3, DownloadsOverH3FromCaddyAndGtlsserver) {
  auto client = make_client();
  for (const std::string& url : {caddy("/64m.bin"), gtls("/64m.bin")}) {
    auto response = client.fetch(h3_only(url));
    ASSERT_TRUE(response.ok()) << url << ": " << response.error().message();
    EXPECT_EQ(response->version, HttpVersion::http3) << url;
    EXPECT_EQ(response->status, 200) << url;
    const std::string body = read_to_end(response->body);
    EXPECT_EQ(body.size(), k64MiB) << url;
    EXPECT_EQ(test::sha256_hex(body), env_.sha256_of("64m.bin")) << url;
  }
}

TEST_F(ClientHttp3, HeldStreamDoesNotStallItsSiblingOnOneConnection) {
  auto client = make_client();
  Request held_request = h3_only(caddy("/64m.bin"));
  auto held = client.fetch(held_request);
  ASSERT_TRUE(held.ok()) << held.error().message();
  // Held: the stream has its whole window (the mark) and the server can send no more.
  ASSERT_TRUE(test::eventually([&] {
    return held->body.buffered() >= held_request.allowance.initial_bytes;
  })) << "the held stream never filled its window: buffered "
      << held->body.buffered();
  auto sibling = client.fetch(h3_only(caddy("/64m.bin")));
  ASSERT_TRUE(sibling.ok()) << sibling.error().message();
  const std::string sibling_body = read_to_end(sibling->body);
  EXPECT_EQ(test::sha256_hex(sibling_body), env_.sha256_of("64m.bin"));
  // While the sibling moved 64 MiB, the held stream got no more than its window.
  EXPECT_LE(held->body.buffered(), held_request.allowance.initial_bytes + 65536);
  EXPECT_GE(held->body.buffered(), held_request.allowance.initial_bytes / 2)
      << "the held stream never started";
  EXPECT_EQ(client.stats().connections, 1u) << "both streams should share one connection";
  const std::string held_body = read_to_end(held->body);
  EXPECT_EQ(test::sha256_hex(held_body), env_.sha256_of("64m.bin"));
}

TEST_F(ClientHttp3, AutomaticModeLearnsAltSvcAndSwitchesToH3) {
  ClientOptions options;
  options.pool.idle_timeout = 50ms;  // the h2 connection goes before the second request
  auto client = make_client(options);
  auto first = client.fetch(Request::get(caddy("/small.txt")));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->version, HttpVersion::http2) << "the first request has no Alt-Svc yet";
  ASSERT_TRUE(first->headers.get("alt-svc").has_value()) << "caddy announces h3";
  (void)read_to_end(first->body);
  ASSERT_TRUE(test::eventually([&] { return client.stats().connections == 0; }))
      << "the idle h2 connection outlived its 50 ms pool timeout";

  auto second = client.fetch(Request::get(caddy("/1m.bin")));
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(second->version, HttpVersion::http3);
  EXPECT_TRUE(trace_.any_contains("(Alt-Svc)"));

  // VersionPolicy::http2 (--http2) is HTTP/2 by ALPN: not the h3 connection that has
  // streams to spare while the body above is unread, and not the Alt-Svc either.
  Request h2 = Request::get(caddy("/small.txt"));
  h2.version = VersionPolicy::http2;
  auto third = client.fetch(h2);
  ASSERT_TRUE(third.ok()) << third.error().message();
  EXPECT_EQ(third->version, HttpVersion::http2);
  (void)read_to_end(third->body);
  EXPECT_EQ(test::sha256_hex(read_to_end(second->body)), env_.sha256_of("1m.bin"));
}

TEST_F(ClientHttp3, BlockedUdpFallsBackToTcpWithHttp3AndFailsWithHttp3Only) {
  // nginx's h2 port has no UDP listener; a silent socket there drops QUIC unanswered.
  const std::string url = env_.get("SLUICE_NGINX_H2_URL") + "/small.txt";
  SilentUdpPort firewall(port_of(url));
  ASSERT_TRUE(firewall.bound());
  ClientOptions options;
  options.pool.http3_fallback_after = 300ms;
  auto client = make_client(options);

  Request fallback = Request::get(url);
  fallback.version = VersionPolicy::http3;
  auto response = client.fetch(fallback);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(response->version, HttpVersion::http2);
  EXPECT_EQ(test::sha256_hex(read_to_end(response->body)), env_.sha256_of("small.txt"));
  EXPECT_TRUE(trace_.any_contains("HTTP/3 failed, using TCP"));

  Request strict = h3_only(url);
  strict.timeouts.connect = 1s;
  auto failed = client.fetch(strict);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().category(), ErrorCategory::timeout) << failed.error().message();
  EXPECT_NE(failed.error().message().find("QUIC"), std::string::npos) << failed.error().message();
}

// A server announces h3 on a UDP port a firewall drops: automatic mode tries it once,
// falls back to TCP within http3_fallback_after, and then leaves it alone.
TEST(ClientHttp3Fallback, AutomaticModeFallsBackWhenTheAltSvcPortIsBlocked) {
  test::UdpProxy black_hole("127.0.0.1", 9);  // relays nowhere: black-holed below
  black_hole.set_black_hole(true);
  const std::string alt_svc = "h3=\":" + std::to_string(black_hole.port()) + "\"; ma=3600";
  test::TestServerOptions tls;
  tls.tls = true;
  tls.cert_file = test::test_certs().server_cert;
  tls.key_file = test::test_certs().server_key;
  test::TestServer server(
      [&](test::ServerConnection& conn) {
        while (conn.read_request()) {
          if (!conn.write(test::http_response(200, "over tcp", {{"Alt-Svc", alt_svc}}))) return;
        }
      },
      tls);
  TraceLog trace;
  ClientOptions options;
  options.tls.ca_file = test::test_certs().ca_file;
  options.trace = trace.sink();
  options.pool.http3_fallback_after = 300ms;
  options.pool.idle_timeout = 20ms;  // each request opens a new connection
  auto client = test::make_client(options);
  const std::string url = "https://localhost:" + std::to_string(server.port()) + "/";
  for (int i = 0; i < 3; ++i) {
    auto response = client.fetch(Request::get(url));
    ASSERT_TRUE(response.ok()) << i << ": " << response.error().message();
    EXPECT_EQ(response->version, HttpVersion::http1_1) << i;
    EXPECT_EQ(read_to_end(response->body), "over tcp") << i;
    ASSERT_TRUE(test::eventually([&] { return client.stats().connections == 0; }))
        << i << ": the idle connection outlived its 20 ms pool timeout";
  }
  EXPECT_EQ(trace.count("(Alt-Svc)"), 1) << "h3 must be tried once, then marked broken";
  EXPECT_TRUE(trace.any_contains("HTTP/3 failed, using TCP"));
  // The attempt's datagrams were sent before the fallback; the proxy's own thread
  // counts them as it drops them.
  EXPECT_TRUE(test::eventually([&] { return black_hole.counters().dropped > 0; }))
      << "no QUIC packet reached the blocked port";
  EXPECT_EQ(server.connections_accepted(), 3u);
}

TEST_F(ClientHttp3, DownloadThroughTwoPercentLossMatches) {
  const std::string target = gtls("");
  test::UdpProxyOptions faults;
  faults.drop_probability = 0.02;
  faults.seed = 42;
  test::UdpProxy proxy("127.0.0.1", port_of(target), faults);
  auto client = make_client();
  Request request = h3_only("https://localhost:" + std::to_string(proxy.port()) + "/64m.bin");
  request.timeouts.total = 120s;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  const std::string body = read_to_end(response->body);
  EXPECT_EQ(body.size(), k64MiB);
  EXPECT_EQ(test::sha256_hex(body), env_.sha256_of("64m.bin"));
  EXPECT_GT(proxy.counters().dropped, 0u) << "the proxy dropped nothing: the test proves nothing";
}

}  // namespace
}  // namespace sluice
