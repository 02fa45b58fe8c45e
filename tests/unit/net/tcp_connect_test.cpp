#include "net/tcp_connect.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "core/byte_queue.hpp"
#include "net/transport.hpp"
#include "support/black_hole.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A loopback socket bound to a free port; listening or not (a bound socket that
// does not listen refuses connections, and keeps the port from being reused).
class LoopbackSocket {
 public:
  LoopbackSocket(int family, bool listening) : family_(family) {
    fd_ = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd_, 0);
    auto address = SocketAddress::from_ip(family == AF_INET ? "127.0.0.1" : "::1", 0);
    EXPECT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&address->storage), address->length), 0);
    if (listening) {
      EXPECT_EQ(listen(fd_, 8), 0);
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &length);
    port_ = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in&>(bound).sin_port
                                    : reinterpret_cast<sockaddr_in6&>(bound).sin6_port);
  }
  ~LoopbackSocket() { close(fd_); }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  std::uint16_t port() const { return port_; }
  SocketAddress address() const {
    return *SocketAddress::from_ip(family_ == AF_INET ? "127.0.0.1" : "::1", port_);
  }
  int accept_one() const { return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); }

 private:
  int family_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

std::uint16_t peer_port(int fd) {
  sockaddr_storage peer{};
  socklen_t length = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return 0;
  if (peer.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in&>(peer).sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6&>(peer).sin6_port);
}

// Runs one TcpConnect to completion on a loop; bounded by a 2 s deadline.
std::optional<Result<int>> connect_all(std::vector<SocketAddress> addresses,
                                       ConnectAttempts attempts = {}) {
  EventLoop loop;
  std::optional<Result<int>> outcome;
  std::unique_ptr<TcpConnect> connect;
  connect = std::make_unique<TcpConnect>(
      loop, std::move(addresses),
      [&](Result<int> result) {
        outcome.emplace(std::move(result));
        connect.reset();  // destroying it from its own callback is allowed
        loop.stop();
      },
      std::move(attempts));
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });
  loop.run();
  return outcome;
}

TEST(SocketAddress, PrintsIpv4AndBracketedIpv6) {
  EXPECT_EQ(SocketAddress::from_ip("127.0.0.1", 80)->to_string(), "127.0.0.1:80");
  EXPECT_EQ(SocketAddress::from_ip("::1", 443)->to_string(), "[::1]:443");
  EXPECT_EQ(SocketAddress::from_ip("[2001:db8::5]", 8080)->to_string(), "[2001:db8::5]:8080");
  EXPECT_FALSE(SocketAddress::from_ip("localhost", 80).has_value());
  EXPECT_FALSE(SocketAddress::from_ip("1.2.3", 80).has_value());
}

TEST(TcpConnect, ConnectsToAListeningLoopbackSocket) {
  LoopbackSocket listener(AF_INET, true);
  auto outcome = connect_all({listener.address()});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  const int fd = outcome->value();
  EXPECT_EQ(peer_port(fd), listener.port());
  int nodelay = 0;
  socklen_t length = sizeof nodelay;
  getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &length);
  EXPECT_NE(nodelay, 0);
  const int accepted = listener.accept_one();
  EXPECT_GE(accepted, 0);
  close(accepted);
  close(fd);
}

TEST(TcpConnect, RefusedPortFailsWithCategoryConnectNamingTheAddress) {
  LoopbackSocket closed(AF_INET, false);
  auto outcome = connect_all({closed.address()});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().category(), ErrorCategory::connect);
  EXPECT_EQ(outcome->error().message(), "connect: cannot connect to 127.0.0.1:" +
                                            std::to_string(closed.port()) + ": Connection refused");
}

TEST(TcpConnect, UsesTheSecondAddressWhenTheFirstRefuses) {
  LoopbackSocket closed(AF_INET, false);
  LoopbackSocket listener(AF_INET, true);
  auto outcome = connect_all({closed.address(), listener.address()});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  EXPECT_EQ(peer_port(outcome->value()), listener.port());
  close(outcome->value());
}

TEST(TcpConnect, NamesEveryAddressTriedWhenAllFail) {
  LoopbackSocket closed_v6(AF_INET6, false);
  LoopbackSocket closed_v4(AF_INET, false);
  auto outcome = connect_all({closed_v6.address(), closed_v4.address()});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  const std::string& message = outcome->error().message();
  EXPECT_NE(message.find(closed_v6.address().to_string()), std::string::npos) << message;
  EXPECT_NE(message.find(closed_v4.address().to_string()), std::string::npos) << message;
}

TEST(TcpConnect, ConnectsOverIpv6Loopback) {
  LoopbackSocket listener(AF_INET6, true);
  auto outcome = connect_all({listener.address()});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  EXPECT_EQ(peer_port(outcome->value()), listener.port());
  close(outcome->value());
}

TEST(TcpConnect, EmptyAddressListFails) {
  auto outcome = connect_all({});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().category(), ErrorCategory::connect);
}

TEST(HappyEyeballs, InterleavesTheFamiliesStartingWithTheFirstAddresss) {
  auto at = [](const char* ip) { return *SocketAddress::from_ip(ip, 80); };
  const auto ordered = interleave_families(
      {at("::1"), at("fd00::2"), at("fd00::3"), at("127.0.0.1"), at("10.0.0.2")});
  std::vector<std::string> got;
  for (const auto& address : ordered) got.push_back(address.ip());
  EXPECT_EQ(got, (std::vector<std::string>{"::1", "127.0.0.1", "fd00::2", "10.0.0.2", "fd00::3"}));
}

TEST(HappyEyeballs, ABlackHoledFirstAddressDoesNotHoldUpTheSecond) {
  test::BlackHole hole("127.0.0.2");
  LoopbackSocket listener(AF_INET, true);
  // The black hole on the good address's port, so both differ only in the IP.
  test::BlackHole same_port("127.0.0.3", listener.port());
  ConnectAttempts attempts;
  attempts.delay = 50ms;
  std::vector<std::string> notes;
  attempts.note = [&](const std::string& line) { notes.push_back(line); };
  // Without the stagger the connect would wait on the first address for ever (the
  // helper's 2 s guard would end it with no outcome).
  auto outcome = connect_all(
      {*SocketAddress::from_ip("127.0.0.3", listener.port()), listener.address()}, attempts);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  EXPECT_EQ(peer_port(**outcome), listener.port());
  close(**outcome);
  ASSERT_GE(notes.size(), 3u);
  EXPECT_EQ(notes[0], "connecting to 127.0.0.3:" + std::to_string(listener.port()));
  EXPECT_EQ(notes[1], "127.0.0.3:" + std::to_string(listener.port()) +
                          " has not answered within 50 ms; trying the next address too");
  EXPECT_EQ(notes.back(), "connected to " + listener.address().to_string());
}

TEST(HappyEyeballs, AnAttemptThatNeverAnswersFailsAtItsOwnDeadline) {
  test::BlackHole hole("127.0.0.2");
  ConnectAttempts attempts;
  attempts.timeout = 100ms;
  auto outcome = connect_all({*SocketAddress::from_ip("127.0.0.2", hole.port())}, attempts);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().category(), ErrorCategory::connect);
  EXPECT_EQ(outcome->error().message(),
            "connect: cannot connect to 127.0.0.2:" + std::to_string(hole.port()) +
                ": no answer within 100 ms");
}

TEST(HappyEyeballs, AFailureStartsTheNextAddressAtOnceWithoutTheDelay) {
  LoopbackSocket closed(AF_INET6, false);
  LoopbackSocket listener(AF_INET, true);
  ConnectAttempts attempts;
  attempts.delay = 60s;  // were the refusal not seen, the test's 2 s guard would end it
  auto outcome = connect_all({closed.address(), listener.address()}, attempts);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  EXPECT_EQ(peer_port(**outcome), listener.port());
  close(**outcome);
}

TEST(TcpConnect, ConnectsToAUnixSocket) {
  const std::string path = "/tmp/sluice-tcp-connect-test-" + std::to_string(getpid()) + ".sock";
  unlink(path.c_str());
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const auto address = *SocketAddress::from_unix_path(path);
  ASSERT_EQ(bind(listener, reinterpret_cast<const sockaddr*>(&address.storage), address.length), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  auto outcome = connect_all({address});
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  EXPECT_EQ(SocketAddress::peer_of(**outcome)->to_string(), "unix:" + path);
  close(**outcome);
  close(listener);
  unlink(path.c_str());
}

TEST(TcpConnect, DestroyedBeforeItStartsNeverCallsBack) {
  LoopbackSocket listener(AF_INET, true);
  EventLoop loop;
  bool called = false;
  auto connect = std::make_unique<TcpConnect>(loop, std::vector<SocketAddress>{listener.address()},
                                              [&](Result<int>) { called = true; });
  connect.reset();
  loop.add_timer(Clock::now() + 20ms, [&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

// ---- PlainTransport (make_plain_transport) ----------------------------------

struct SocketPair {
  SocketPair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    ours = fds[0];
    theirs = fds[1];
  }
  ~SocketPair() {
    if (theirs >= 0) close(theirs);
  }
  int ours = -1;  // handed to the transport, which closes it
  int theirs = -1;
};

TEST(PlainTransport, ReadsWhatThePeerWroteThenWantsReadThenEof) {
  SocketPair pair;
  auto transport = make_plain_transport(pair.ours);
  EXPECT_FALSE(transport->is_tls());
  EXPECT_TRUE(transport->handshake());
  std::byte buffer[16];
  auto nothing = transport->read(buffer);
  ASSERT_TRUE(nothing);
  EXPECT_EQ(nothing->status, IoStatus::want_read);
  ASSERT_EQ(send(pair.theirs, "hello", 5, 0), 5);
  auto got = transport->read(buffer);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, IoStatus::done);
  EXPECT_EQ(as_text(std::span<const std::byte>(buffer, got->bytes)), "hello");
  close(pair.theirs);
  pair.theirs = -1;
  auto end = transport->read(buffer);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->status, IoStatus::eof);
}

TEST(PlainTransport, WriteWantsWriteWhenTheSocketIsFull) {
  SocketPair pair;
  auto transport = make_plain_transport(pair.ours);
  const std::string chunk(64 * 1024, 'x');
  std::size_t written = 0;
  for (int i = 0; i < 1000; ++i) {
    auto outcome = transport->write(as_bytes(chunk));
    ASSERT_TRUE(outcome);
    if (outcome->status == IoStatus::want_write) break;
    written += outcome->bytes;
  }
  EXPECT_GT(written, 0u);
  auto blocked = transport->write(as_bytes(chunk));
  ASSERT_TRUE(blocked);
  EXPECT_EQ(blocked->status, IoStatus::want_write);
}

// Without MSG_NOSIGNAL this write would raise SIGPIPE and end the test program.
TEST(PlainTransport, WriteToAClosedPeerIsAnErrorNotSigpipe) {
  SocketPair pair;
  auto transport = make_plain_transport(pair.ours);
  close(pair.theirs);
  pair.theirs = -1;
  auto outcome = transport->write(as_bytes(std::string_view("late")));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().category(), ErrorCategory::io);
  EXPECT_EQ(outcome.error().message(), "connection closed by peer");
}

TEST(PlainTransport, ResetByPeerIsReported) {
  LoopbackSocket listener(AF_INET, true);
  auto connected = connect_all({listener.address()});
  ASSERT_TRUE(connected && *connected);
  auto transport = make_plain_transport(connected->value());
  const int accepted = listener.accept_one();
  ASSERT_GE(accepted, 0);
  const linger abort_on_close{1, 0};  // close() sends RST
  setsockopt(accepted, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  close(accepted);
  // The RST arrives asynchronously: wait until the socket says so (10 s: a hang guard).
  pollfd watched{transport->fd(), POLLIN, 0};
  ASSERT_EQ(poll(&watched, 1, 10'000), 1) << "the reset never arrived";
  std::byte buffer[16];
  auto outcome = transport->read(buffer);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().message(), "connection reset by peer");
}

}  // namespace
}  // namespace sluice
