// LocalBinding (--interface, --local-port): binding a socket's local end by interface
// name or address and a port range, alone and inside TcpConnect's attempts. Real
// sockets on loopback; a port is held by a bound socket to make it busy.
#include "net/local_binding.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>

#include "core/event_loop.hpp"
#include "net/socket_address.hpp"
#include "net/tcp_connect.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A TCP socket on 127.0.0.1: bound to a free port, listening or only holding it.
class HeldPort {
 public:
  explicit HeldPort(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto any = SocketAddress::from_ip("127.0.0.1", 0);
    EXPECT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&any->storage), any->length), 0);
    if (listening) {
      EXPECT_EQ(listen(fd_, 8), 0);
    }
    port_ = SocketAddress::local_of(fd_)->port();
  }
  ~HeldPort() { close(fd_); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  std::uint16_t port() const { return port_; }
  SocketAddress address() const { return *SocketAddress::from_ip("127.0.0.1", port_); }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

struct Socket {
  explicit Socket(int family) : fd(socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) {}
  ~Socket() { close(fd); }
  int fd;
};

TEST(LocalBinding, AnInterfaceNameBindsToItsAddress) {
  Socket s(AF_INET);
  LocalBinding binding;
  binding.interface = "lo";
  ASSERT_TRUE(bind_local(s.fd, AF_INET, binding));
  EXPECT_EQ(SocketAddress::local_of(s.fd)->ip(), "127.0.0.1");
}

TEST(LocalBinding, AnAddressBindsToItself) {
  Socket s(AF_INET);
  LocalBinding binding;
  binding.interface = "127.0.0.1";
  ASSERT_TRUE(bind_local(s.fd, AF_INET, binding));
  EXPECT_EQ(SocketAddress::local_of(s.fd)->ip(), "127.0.0.1");
}

TEST(LocalBinding, AnUnknownInterfaceOrAWrongFamilyIsNamed) {
  LocalBinding binding;
  binding.interface = "nosuch0";
  Socket s(AF_INET);
  auto bound = bind_local(s.fd, AF_INET, binding);
  ASSERT_FALSE(bound);
  EXPECT_EQ(bound.error().code(), ErrorCode::local_bind_failed);
  EXPECT_EQ(bound.error().message(), "no network interface named nosuch0");
  EXPECT_FALSE(check_interface("nosuch0"));
  EXPECT_TRUE(check_interface("lo"));
  EXPECT_TRUE(check_interface("192.0.2.1"));

  binding.interface = "127.0.0.1";
  Socket v6(AF_INET6);
  auto wrong = bind_local(v6.fd, AF_INET6, binding);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message(), "local address 127.0.0.1 is not an IPv6 address");
}

TEST(LocalBinding, TheFirstFreePortOfTheRangeIsTaken) {
  HeldPort busy(false);
  LocalBinding binding;
  binding.port = busy.port();
  binding.port_range = 20;
  Socket s(AF_INET);
  ASSERT_TRUE(bind_local(s.fd, AF_INET, binding));
  const std::uint16_t chosen = SocketAddress::local_of(s.fd)->port();
  EXPECT_GT(chosen, busy.port());
  EXPECT_LT(chosen, busy.port() + 20);
}

TEST(LocalBinding, NoFreePortInTheRangeIsAnError) {
  HeldPort busy(false);
  LocalBinding binding;
  binding.port = busy.port();
  Socket s(AF_INET);
  auto bound = bind_local(s.fd, AF_INET, binding);
  ASSERT_FALSE(bound);
  EXPECT_EQ(bound.error().code(), ErrorCode::local_bind_failed);
  EXPECT_EQ(bound.error().message(), "no free local port in " + std::to_string(busy.port()));
}

std::optional<Result<int>> connect_from(const SocketAddress& to, LocalBinding local) {
  EventLoop loop;
  std::optional<Result<int>> outcome;
  ConnectAttempts attempts;
  attempts.local = std::move(local);
  std::unique_ptr<TcpConnect> connect;
  connect = std::make_unique<TcpConnect>(
      loop, std::vector<SocketAddress>{to},
      [&](Result<int> result) {
        outcome.emplace(std::move(result));
        connect.reset();
        loop.stop();
      },
      std::move(attempts));
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });  // a hang guard only
  loop.run();
  return outcome;
}

TEST(LocalBinding, TcpConnectLeavesFromTheInterfaceAndPortRange) {
  HeldPort server(true);
  HeldPort busy(false);
  LocalBinding local;
  local.interface = "lo";
  local.port = busy.port();
  local.port_range = 20;
  auto outcome = connect_from(server.address(), local);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  const auto from = SocketAddress::local_of(outcome->value());
  close(outcome->value());
  EXPECT_EQ(from->ip(), "127.0.0.1");
  EXPECT_GT(from->port(), busy.port());
  EXPECT_LT(from->port(), busy.port() + 20);
}

TEST(LocalBinding, TcpConnectThatCannotBindFailsAsALocalBindError) {
  HeldPort server(true);
  HeldPort busy(false);
  LocalBinding local;
  local.port = busy.port();
  auto outcome = connect_from(server.address(), local);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().code(), ErrorCode::local_bind_failed);
  EXPECT_NE(outcome->error().message().find("no free local port"), std::string::npos)
      << outcome->error().message();
}

}  // namespace
}  // namespace sluice
