// Where connections go, against real nginx: Happy Eyeballs past a black-holed first
// address (on a manual clock, so the 250 ms delay is exactly what the test lets pass),
// --connect-to, --unix-socket (HTTP/1.1 and h2c), -4/-6, and DNS through a name server
// of the test's own: the cache, the stats, and a server that never answers.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "net/socket_address.hpp"
#include "sluice/sluice.hpp"
#include "support/black_hole.hpp"
#include "support/client_on_clock.hpp"
#include "support/dns_test_server.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

std::uint16_t port_of(const std::string& url) { return Url::parse(url).value().port; }

// Trace lines, kept so that a test can wait for one.
class TraceLines {
 public:
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view line) {
      std::lock_guard lock(mu_);
      lines_.emplace_back(line);
      changed_.notify_all();
    };
  }
  bool wait_for_containing(const std::string& text) {
    std::unique_lock lock(mu_);
    return changed_.wait_for(lock, 30s, [&] {
      for (const auto& line : lines_) {
        if (line.find(text) != std::string::npos) return true;
      }
      return false;
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
};

class ClientRouting : public ::testing::Test {
 protected:
  void expect_small(Result<Response>& response) {
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(response->status, 200);
    auto body = response->body.read_all();
    ASSERT_TRUE(body.ok()) << body.error().describe();
    EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of("small.txt"));
  }
  test::TestEnv env_;
};

TEST_F(ClientRouting, ABlackHoledFirstAddressCostsTheHappyEyeballsDelayOnly) {
  const std::uint16_t port = port_of(env_.get("SLUICE_NGINX_HTTP_URL"));
  test::BlackHole hole("127.0.0.3", port);  // beside nginx's 127.0.0.1, same port
  TraceLines trace;
  ClientOptions options;
  options.routing.resolve = {"he.test:" + std::to_string(port) + ":127.0.0.3,127.0.0.1"};
  options.trace = trace.sink();
  test::ManualClock clock;
  auto client = test::client_on(clock, options).value();
  PendingResponse pending =
      client.send(Request::get("http://he.test:" + std::to_string(port) + "/small.txt"));
  ASSERT_TRUE(trace.wait_for_containing("connecting to 127.0.0.3:" + std::to_string(port)));
  // Without Happy Eyeballs the request would wait on 127.0.0.3 until its connect
  // timeout, which this clock never reaches.
  ASSERT_TRUE(test::advance(clock, client, 250ms));
  auto response = pending.wait();
  expect_small(response);
  EXPECT_EQ(response->remote_ip, "127.0.0.1");
  const ResponseTiming& t = response->timing;
  ASSERT_TRUE(t.connect_start && t.connect_end);
  EXPECT_EQ(*t.connect_end - *t.connect_start, 250ms);
}

TEST_F(ClientRouting, ConnectToSendsTheConnectionElsewhereWhileTlsKeepsTheName) {
  const std::string https = env_.get("SLUICE_NGINX_HTTPS_URL");  // https://localhost:PORT
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  // Port 1 has nothing; the certificate names localhost, so TLS passes only if the
  // URL's name, not the address connected to, is checked.
  options.routing.connect_to = {"localhost:1:127.0.0.1:" + std::to_string(port_of(https))};
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get("https://localhost:1/small.txt"));
  expect_small(response);
  EXPECT_EQ(response->remote_port, port_of(https));
}

TEST_F(ClientRouting, AUnixSocketCarriesHttp1) {
  ClientOptions options;
  options.routing.unix_socket = env_.get("SLUICE_NGINX_UNIX_SOCKET");
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get("http://localhost/small.txt"));
  expect_small(response);
  EXPECT_EQ(response->version, HttpVersion::http1_1);
}

TEST_F(ClientRouting, AUnixSocketCarriesH2cByPriorKnowledge) {
  ClientOptions options;
  options.routing.unix_socket = env_.get("SLUICE_NGINX_H2C_UNIX_SOCKET");
  auto client = test::make_client(options);
  Request request = Request::get("http://localhost/small.txt");
  request.version = VersionPolicy::http2_prior_knowledge;
  auto response = client.fetch(std::move(request));
  expect_small(response);
  EXPECT_EQ(response->version, HttpVersion::http2);
}

TEST_F(ClientRouting, AMissingUnixSocketFailsNamingThePath) {
  ClientOptions options;
  options.routing.unix_socket = "/nonexistent/sluice.sock";
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get("http://localhost/small.txt"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::connect);
  EXPECT_NE(response.error().message().find("unix:/nonexistent/sluice.sock"), std::string::npos)
      << response.error().message();
}

// QUIC is UDP: a request that may use only HTTP/3 cannot go over a Unix socket, and
// says so at once (it used to wait for a connection that would never be opened).
TEST_F(ClientRouting, Http3OnlyOverAUnixSocketFailsAtOnceSayingWhy) {
  ClientOptions options;
  options.routing.unix_socket = env_.get("SLUICE_NGINX_UNIX_SOCKET");
  auto client = test::make_client(options);
  Request request = Request::get("https://localhost/small.txt");
  request.version = VersionPolicy::http3_only;
  request.timeouts.total = std::chrono::seconds(30);  // a hang fails here, not at ctest's limit
  auto response = client.fetch(std::move(request));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::usage) << response.error().message();
  EXPECT_NE(response.error().message().find("cannot go over the Unix socket"), std::string::npos)
      << response.error().message();
}

TEST_F(ClientRouting, Ipv4OnlyRefusesAnIpv6LiteralAndIpv6OnlyAnIpv4One) {
  ClientOptions v4;
  v4.routing.ip_version = IpVersion::v4_only;
  auto client4 = test::make_client(v4);
  auto refused = client4.fetch(Request::get("http://[::1]:9/"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().category(), ErrorCategory::dns);
  EXPECT_NE(refused.error().message().find("only IPv4 is allowed"), std::string::npos)
      << refused.error().message();
  auto allowed = client4.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  expect_small(allowed);
  ClientOptions v6;
  v6.routing.ip_version = IpVersion::v6_only;
  auto client6 = test::make_client(v6);
  auto refused6 = client6.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"));
  ASSERT_FALSE(refused6.ok());
  EXPECT_NE(refused6.error().message().find("only IPv6 is allowed"), std::string::npos)
      << refused6.error().message();
}

TEST_F(ClientRouting, NamesResolveThroughTheGivenServerOnceThenFromTheCache) {
  test::DnsTestServer dns;
  dns.answer("files.test", {"127.0.0.1"}, 60);
  ClientOptions options;
  options.routing.dns_servers = dns.address();
  auto client = test::make_client(options);
  const std::string url =
      "http://files.test:" + std::to_string(port_of(env_.get("SLUICE_NGINX_HTTP_URL"))) +
      "/small.txt";
  auto first = client.fetch(Request::get(url));
  expect_small(first);
  // A second connection (the first one is closed by the request's header) needs the
  // name again: the cache has it.
  Request closing = Request::get(url);
  closing.headers.add("Connection", "close");
  auto second = client.fetch(std::move(closing));
  expect_small(second);
  Request third_request = Request::get(url);
  auto third = client.fetch(std::move(third_request));
  expect_small(third);
  const ClientStats stats = client.stats();
  EXPECT_EQ(stats.dns_queries, 1u);
  EXPECT_GE(stats.dns_cache_hits, 1u);
  EXPECT_EQ(dns.questions("files.test"), 2u);  // one A and one AAAA question, once
}

TEST_F(ClientRouting, AnAOnlyNameConnectsOverIpv4AndAnAaaaOnlyNameOverIpv6) {
  test::DnsTestServer dns;
  dns.answer("four.test", {"127.0.0.1"}, 60);
  dns.answer("six.test", {"::1"}, 60);
  ClientOptions options;
  options.routing.dns_servers = dns.address();
  auto client = test::make_client(options);
  const std::string port = std::to_string(port_of(env_.get("SLUICE_NGINX_HTTP_URL")));
  auto four = client.fetch(Request::get("http://four.test:" + port + "/small.txt"));
  expect_small(four);
  EXPECT_EQ(four->remote_ip, "127.0.0.1");
  auto six = client.fetch(Request::get("http://six.test:" + port + "/small.txt"));
  if (env_.get("SLUICE_IPV6_LOOPBACK") == "yes") {  // nginx listens on [::1] too
    expect_small(six);
    EXPECT_EQ(six->remote_ip, "::1");
  } else {  // no ::1 here: the name resolves, the connect is what fails
    ASSERT_FALSE(six.ok());
    EXPECT_EQ(six.error().category(), ErrorCategory::connect) << six.error().message();
  }
}

TEST_F(ClientRouting, ANameServerThatNeverAnswersFailsWithDnsTimeout) {
  test::DnsTestServer dns;
  dns.silent();
  ClientOptions options;
  options.routing.dns_servers = dns.address();
  options.routing.dns_timeout = 300ms;
  auto client = test::make_client(options);
  auto response = client.fetch(Request::get("http://nowhere.test/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().code(), ErrorCode::dns_timeout);
  EXPECT_EQ(response.error().message(), "DNS: no answer for 'nowhere.test' within 300 ms");
  EXPECT_GE(dns.questions("nowhere.test"), 1u);
}

// --interface and --local-port: TCP (nginx) and QUIC (gtlsserver) leave from the
// loopback interface's address and a port of the range, and the response says so.
TEST_F(ClientRouting, ConnectionsLeaveFromTheInterfaceAndThePortRange) {
  // The range starts at a port the kernel just handed out, so it is most likely free.
  const int probe = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  ASSERT_EQ(bind(probe, reinterpret_cast<const sockaddr*>(&any->storage), any->length), 0);
  const std::uint16_t first =
      std::min<std::uint16_t>(SocketAddress::local_of(probe)->port(), 65000);
  close(probe);
  ClientOptions options;
  options.tls.ca_file = env_.get("SLUICE_TEST_CA");
  options.routing.interface = "lo";
  options.routing.local_port = first;
  options.routing.local_port_range = 100;
  auto client = test::make_client(options);
  Request h3 = Request::get(env_.get("SLUICE_GTLSSERVER_URL") + "/small.txt");
  h3.version = VersionPolicy::http3_only;
  for (Request request : {Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/small.txt"), h3}) {
    auto response = client.fetch(std::move(request));
    expect_small(response);
    EXPECT_EQ(response->local_ip, "127.0.0.1");
    EXPECT_GE(response->local_port, first);
    EXPECT_LT(response->local_port, first + 100);
  }
}

TEST_F(ClientRouting, AnUnusableInterfaceIsALocalBindError) {
  ClientOptions missing;
  missing.routing.interface = "nosuch0";
  auto made = Client::create(missing);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code(), ErrorCode::local_bind_failed);
  EXPECT_EQ(made.error().message(), "interface: no network interface named nosuch0");

  // An IPv4 address cannot carry a connection to an IPv6 literal (where this
  // machine has IPv6 at all: without it the socket itself fails first).
  if (env_.get("SLUICE_IPV6_LOOPBACK") != "yes") return;
  ClientOptions v4;
  v4.routing.interface = "127.0.0.1";
  auto client = test::make_client(v4);
  auto refused = client.fetch(Request::get(
      "http://[::1]:" + std::to_string(port_of(env_.get("SLUICE_NGINX_HTTP_URL"))) + "/small.txt"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::local_bind_failed) << refused.error().message();
  EXPECT_NE(refused.error().message().find("local address 127.0.0.1 is not an IPv6 address"),
            std::string::npos)
      << refused.error().message();
}

TEST_F(ClientRouting, BadRoutingOptionsAreRefusedByCreate) {
  ClientOptions bad_resolve;
  bad_resolve.routing.resolve = {"example.org:443"};
  auto made = Client::create(bad_resolve);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(
      made.error().message(),
      "--resolve 'example.org:443': missing a part (expected HOST:PORT:ADDRESS[,ADDRESS...])");
  ClientOptions bad_server;
  bad_server.routing.dns_servers = "ns.example.org";
  ASSERT_FALSE(Client::create(bad_server).ok());
  ClientOptions bad_connect_to;
  bad_connect_to.routing.connect_to = {"a:99999:b:1"};
  ASSERT_FALSE(Client::create(bad_connect_to).ok());
  ClientOptions bad_ports;
  bad_ports.routing.local_port = 65500;
  bad_ports.routing.local_port_range = 100;
  ASSERT_FALSE(Client::create(bad_ports).ok());
}

}  // namespace
}  // namespace sluice
