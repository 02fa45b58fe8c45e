// UdpProxy: forwarding both ways, loss at the configured rate and repeatable by seed,
// duplicates, reordering, delay and the black hole, against a UDP echo driven by the
// test thread. Every wait has a deadline only for failing; nothing asserts speed.
#include "support/udp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace sluice::test {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// A UDP socket on 127.0.0.1, test thread only.
class LoopbackSocket {
 public:
  LoopbackSocket() {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in local = address(0);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof(local)), 0);
    socklen_t length = sizeof(local);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length);
    port_ = ntohs(local.sin_port);
    const int buffer_bytes = 4 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof(buffer_bytes));
  }
  ~LoopbackSocket() { close(fd_); }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  std::uint16_t port() const { return port_; }

  void send_to(std::uint16_t port, const std::string& bytes) {
    const sockaddr_in to = address(port);
    ASSERT_EQ(sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                     sizeof(to)),
              static_cast<ssize_t>(bytes.size()));
  }

  struct Received {
    std::string bytes;
    std::uint16_t from_port = 0;
  };
  /// One datagram, or nullopt when none arrives within `timeout`.
  std::optional<Received> receive(std::chrono::milliseconds timeout) {
    pollfd fd{fd_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(timeout.count())) != 1) return std::nullopt;
    char buffer[2048];
    sockaddr_in from{};
    socklen_t length = sizeof(from);
    const ssize_t n =
        recvfrom(fd_, buffer, sizeof(buffer), 0, reinterpret_cast<sockaddr*>(&from), &length);
    if (n < 0) return std::nullopt;
    return Received{std::string(buffer, static_cast<std::size_t>(n)), ntohs(from.sin_port)};
  }

 private:
  static sockaddr_in address(std::uint16_t port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    return a;
  }
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

// Every datagram the echo socket holds, until `count` arrived or none comes for 2 s.
std::vector<std::string> collect(LoopbackSocket& socket, std::size_t count) {
  std::vector<std::string> got;
  while (got.size() < count) {
    auto datagram = socket.receive(2000ms);
    if (!datagram) break;
    got.push_back(std::move(datagram->bytes));
  }
  return got;
}

// Sends `n` numbered datagrams one at a time, each after the proxy decided the last,
// so no kernel queue ever overflows; returns the numbers the target got, in order.
std::vector<std::string> send_numbered(UdpProxy& proxy, LoopbackSocket& client,
                                       LoopbackSocket& target, int n) {
  std::vector<std::string> got;
  for (int i = 0; i < n; ++i) {
    client.send_to(proxy.port(), std::to_string(i));
    const auto decided = static_cast<std::uint64_t>(i + 1);
    EXPECT_TRUE(
        proxy.wait_for_counters([&](const UdpProxyCounters& c) { return c.received == decided; }));
    while (auto datagram = target.receive(0ms)) got.push_back(std::move(datagram->bytes));
  }
  EXPECT_TRUE(proxy.wait_for_counters([](const UdpProxyCounters& c) {
    return c.forwarded + c.dropped >= c.received + c.duplicated;
  }));
  const UdpProxyCounters c = proxy.counters();
  const std::size_t expected = c.forwarded;
  for (auto& more : collect(target, expected - got.size())) got.push_back(std::move(more));
  return got;
}

TEST(UdpProxy, ForwardsBothWaysAndRepliesReachTheClient) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxy proxy("127.0.0.1", target.port());
  client.send_to(proxy.port(), "ping");
  auto at_target = target.receive(5000ms);
  ASSERT_TRUE(at_target);
  EXPECT_EQ(at_target->bytes, "ping");
  EXPECT_NE(at_target->from_port, client.port());  // it came through the proxy
  target.send_to(at_target->from_port, "pong");
  auto at_client = client.receive(5000ms);
  ASSERT_TRUE(at_client);
  EXPECT_EQ(at_client->bytes, "pong");
  EXPECT_EQ(at_client->from_port, proxy.port());
  // The relay counts a datagram after its send returns, which may be after it arrived.
  EXPECT_TRUE(proxy.wait_for_counters([](const UdpProxyCounters& c) { return c.forwarded == 2; }));
  const UdpProxyCounters c = proxy.counters();
  EXPECT_EQ(c.received, 2u);
  EXPECT_EQ(c.forwarded, 2u);
  EXPECT_EQ(c.dropped, 0u);
}

TEST(UdpProxy, DropsAtTheConfiguredRateAndRepeatsWithTheSameSeed) {
  UdpProxyOptions options;
  options.drop_probability = 0.3;
  options.seed = 7;
  std::vector<std::string> runs[2];
  for (auto& run : runs) {
    LoopbackSocket target;
    LoopbackSocket client;
    UdpProxy proxy("127.0.0.1", target.port(), options);
    run = send_numbered(proxy, client, target, 2000);
    const UdpProxyCounters c = proxy.counters();
    EXPECT_EQ(c.received, 2000u);
    EXPECT_EQ(c.forwarded + c.dropped, 2000u);
    EXPECT_EQ(run.size(), c.forwarded);
    EXPECT_GT(c.dropped, 450u);  // 600 expected; sigma is about 20
    EXPECT_LT(c.dropped, 750u);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(UdpProxy, DuplicatesArriveTwice) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxyOptions options;
  options.duplicate_probability = 1.0;
  UdpProxy proxy("127.0.0.1", target.port(), options);
  const std::vector<std::string> got = send_numbered(proxy, client, target, 10);
  std::vector<std::string> expected;
  for (int i = 0; i < 10; ++i) expected.insert(expected.end(), 2, std::to_string(i));
  EXPECT_EQ(got, expected);
  EXPECT_EQ(proxy.counters().duplicated, 10u);
  EXPECT_EQ(proxy.counters().forwarded, 20u);
}

TEST(UdpProxy, ReorderedDatagramsFollowTheNextOne) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxyOptions options;
  options.reorder_probability = 1.0;
  options.reorder_hold_limit = 10s;  // only the next datagram releases a held one
  UdpProxy proxy("127.0.0.1", target.port(), options);
  const std::vector<std::string> got = send_numbered(proxy, client, target, 6);
  EXPECT_EQ(got, (std::vector<std::string>{"1", "0", "3", "2", "5", "4"}));
  EXPECT_EQ(proxy.counters().reordered, 3u);
}

TEST(UdpProxy, AHeldDatagramGoesOutWhenNothingOvertakesIt) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxyOptions options;
  options.reorder_probability = 1.0;
  options.reorder_hold_limit = 20ms;
  UdpProxy proxy("127.0.0.1", target.port(), options);
  client.send_to(proxy.port(), "alone");
  auto got = target.receive(5000ms);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->bytes, "alone");
}

TEST(UdpProxy, DelayHoldsEveryDatagramAtLeastThatLong) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxyOptions options;
  options.delay = 30ms;
  options.jitter = 10ms;
  UdpProxy proxy("127.0.0.1", target.port(), options);
  const auto sent_at = SteadyClock::now();
  client.send_to(proxy.port(), "late");
  auto got = target.receive(5000ms);
  ASSERT_TRUE(got);
  EXPECT_GE(SteadyClock::now() - sent_at, 30ms);  // a lower bound: it cannot be early
}

TEST(UdpProxy, BlackHoleDropsEverythingUntilSwitchedOff) {
  LoopbackSocket target;
  LoopbackSocket client;
  UdpProxy proxy("127.0.0.1", target.port());
  proxy.set_black_hole(true);
  EXPECT_TRUE(send_numbered(proxy, client, target, 50).empty());
  EXPECT_EQ(proxy.counters().dropped, 50u);
  EXPECT_EQ(proxy.counters().forwarded, 0u);
  proxy.set_black_hole(false);
  client.send_to(proxy.port(), "through");
  auto got = target.receive(5000ms);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->bytes, "through");
}

TEST(UdpProxy, RefusesATargetThatIsNoAddress) {
  EXPECT_THROW(UdpProxy("localhost", 443), std::runtime_error);
}

}  // namespace
}  // namespace sluice::test
