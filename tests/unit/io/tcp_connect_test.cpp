#include "io/tcp_connect.hpp"

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

#include "io/byte_queue.hpp"
#include "io/transport.hpp"

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
std::optional<Result<int>> connect_all(std::vector<SocketAddress> addresses) {
  EventLoop loop;
  std::optional<Result<int>> outcome;
  std::unique_ptr<TcpConnect> connect;
  connect = std::make_unique<TcpConnect>(loop, std::move(addresses), [&](Result<int> result) {
    outcome.emplace(std::move(result));
    connect.reset();  // destroying it from its own callback is allowed
    loop.stop();
  });
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
                                            std::to_string(closed.port()) +
                                            ": Connection refused");
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

// ---- Resolver ---------------------------------------------------------------

std::optional<Result<std::vector<SocketAddress>>> resolve_once(const std::string& host,
                                                               std::uint16_t port) {
  EventLoop loop;
  Resolver resolver(loop);
  std::optional<Result<std::vector<SocketAddress>>> outcome;
  auto lookup = resolver.resolve(host, port, [&](Result<std::vector<SocketAddress>> result) {
    outcome.emplace(std::move(result));
    loop.stop();
  });
  loop.add_timer(Clock::now() + 5s, [&] { loop.stop(); });
  loop.run();
  return outcome;
}

TEST(Resolver, LocalhostResolvesToLoopback) {
  auto outcome = resolve_once("localhost", 8080);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  ASSERT_FALSE(outcome->value().empty());
  for (const SocketAddress& address : outcome->value()) {
    const std::string text = address.to_string();
    EXPECT_TRUE(text == "127.0.0.1:8080" || text == "[::1]:8080") << text;
  }
}

TEST(Resolver, UnknownNameFailsWithCategoryDns) {
  auto outcome = resolve_once("nosuch.invalid", 80);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().category(), ErrorCategory::dns);
  EXPECT_EQ(outcome->error().message().rfind("DNS: cannot resolve 'nosuch.invalid': ", 0), 0u)
      << outcome->error().message();
}

TEST(Resolver, IpLiteralIsDeliveredLaterNotFromInsideResolve) {
  EventLoop loop;
  Resolver resolver(loop);
  bool returned = false;
  std::optional<bool> called_after_return;
  std::string text;
  auto lookup = resolver.resolve("[::1]", 443, [&](Result<std::vector<SocketAddress>> result) {
    called_after_return = returned;
    if (result && result.value().size() == 1) text = result.value()[0].to_string();
    loop.stop();
  });
  returned = true;
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });
  loop.run();
  ASSERT_TRUE(called_after_return.has_value());
  EXPECT_TRUE(*called_after_return);
  EXPECT_EQ(text, "[::1]:443");
}

TEST(Resolver, DestroyedLookupNeverCallsBack) {
  EventLoop loop;
  bool called = false;
  {
    Resolver resolver(loop);
    auto lookup = resolver.resolve("localhost", 80, [&](auto) { called = true; });
    lookup.reset();
  }  // the Resolver joined its threads: anything they posted is queued now
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

TEST(Resolver, LookupDestroyedAfterItsResultWasPostedNeverCallsBack) {
  EventLoop loop;
  bool called = false;
  std::unique_ptr<Resolver::Lookup> lookup;
  {
    Resolver resolver(loop);
    lookup = resolver.resolve("127.0.0.1", 80, [&](auto) { called = true; });
  }
  // The result is queued on the loop (IP literals post at once); cancel first.
  lookup.reset();
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

TEST(Resolver, CallbackMayDestroyItsLookup) {
  EventLoop loop;
  Resolver resolver(loop);
  std::unique_ptr<Resolver::Lookup> lookup;
  bool called = false;
  lookup = resolver.resolve("127.0.0.1", 80, [&](auto) {
    called = true;
    lookup.reset();
    loop.stop();
  });
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });
  loop.run();
  EXPECT_TRUE(called);
  EXPECT_EQ(lookup, nullptr);
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
