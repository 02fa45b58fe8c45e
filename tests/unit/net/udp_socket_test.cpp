#include "net/udp_socket.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace sluice {
namespace {

// The other end: a plain UDP socket on 127.0.0.1, connected to the UdpSocket under
// test once that one exists.
class Peer {
 public:
  Peer() {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(fd_, 0);
    const int big = 4 * 1024 * 1024;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    auto any = SocketAddress::from_ip("127.0.0.1", 0);
    EXPECT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&any->storage), any->length), 0);
    address_.length = sizeof address_.storage;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address_.storage), &address_.length);
  }
  ~Peer() { close(fd_); }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  const SocketAddress& address() const { return address_; }
  void connect_to(const SocketAddress& other) {
    ASSERT_EQ(::connect(fd_, reinterpret_cast<const sockaddr*>(&other.storage), other.length), 0);
  }
  void send(const std::vector<std::uint8_t>& datagram) {
    ASSERT_EQ(::send(fd_, datagram.data(), datagram.size(), 0),
              static_cast<ssize_t>(datagram.size()));
  }
  // Every datagram that arrives within a moment of the first.
  std::vector<std::vector<std::uint8_t>> receive_all() {
    std::vector<std::vector<std::uint8_t>> datagrams;
    pollfd ready{fd_, POLLIN, 0};
    while (poll(&ready, 1, datagrams.empty() ? 2000 : 100) == 1) {
      std::vector<std::uint8_t> buffer(65536);
      const ssize_t got = recv(fd_, buffer.data(), buffer.size(), 0);
      if (got < 0) break;
      buffer.resize(static_cast<std::size_t>(got));
      datagrams.push_back(std::move(buffer));
    }
    return datagrams;
  }

 private:
  int fd_ = -1;
  SocketAddress address_;
};

std::vector<std::uint8_t> pattern(std::size_t size, std::uint8_t seed) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(seed + i * 7);
  return bytes;
}

std::vector<std::uint8_t> as_vector(std::span<const std::uint8_t> bytes) {
  return {bytes.begin(), bytes.end()};
}

// Waits until the socket has something to read (loopback delivery is immediate,
// but the test should not rely on the kernel's timing at all).
void wait_readable(int fd) {
  pollfd ready{fd, POLLIN, 0};
  ASSERT_EQ(poll(&ready, 1, 2000), 1);
}

Result<UdpSocket> connected_to(Peer& peer) {
  auto socket = UdpSocket::connect(peer.address(), "QUIC");
  if (socket) peer.connect_to(socket->local());
  return socket;
}

class UdpSocketSendTest : public ::testing::TestWithParam<bool> {};

TEST_P(UdpSocketSendTest, SendsARunAsDatagramsOfTheSegmentSizeWithAShorterLast) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  if (!GetParam()) socket->disable_gso();
  constexpr std::size_t kSegment = 1200;
  std::vector<std::uint8_t> run = pattern(kSegment * 10 + 500, 3);

  auto sent = socket->send_batch(run, kSegment);

  ASSERT_TRUE(sent) << sent.error().message();
  EXPECT_EQ(*sent, run.size());
  const auto datagrams = peer.receive_all();
  ASSERT_EQ(datagrams.size(), 11u);
  for (std::size_t i = 0; i < datagrams.size(); ++i) {
    const std::size_t offset = i * kSegment;
    const std::size_t length = std::min(kSegment, run.size() - offset);
    EXPECT_EQ(datagrams[i],
              std::vector<std::uint8_t>(run.begin() + static_cast<long>(offset),
                                        run.begin() + static_cast<long>(offset + length)))
        << "datagram " << i;
  }
}

TEST_P(UdpSocketSendTest, SendsMoreDatagramsThanOneSystemCallTakes) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  if (!GetParam()) socket->disable_gso();
  constexpr std::size_t kSegment = 1000;
  const std::size_t count = UdpSocket::kMaxBatch * 2 + 3;
  std::vector<std::uint8_t> run = pattern(kSegment * count, 9);

  auto sent = socket->send_batch(run, kSegment);

  ASSERT_TRUE(sent) << sent.error().message();
  EXPECT_EQ(*sent, run.size());
  const auto datagrams = peer.receive_all();
  ASSERT_EQ(datagrams.size(), count);
  EXPECT_EQ(datagrams.back(), std::vector<std::uint8_t>(run.end() - kSegment, run.end()));
}

INSTANTIATE_TEST_SUITE_P(GsoAndSendmmsg, UdpSocketSendTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Gso" : "Sendmmsg";
                         });

TEST(UdpSocketTest, ReceivesEveryWaitingDatagramInOneBatchInOrder) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  std::vector<std::vector<std::uint8_t>> sent;
  for (std::size_t i = 0; i < 20; ++i) {
    sent.push_back(pattern(100 + i * 50, static_cast<std::uint8_t>(i)));
    peer.send(sent.back());
  }
  wait_readable(socket->fd());

  auto batch = socket->receive_batch();

  ASSERT_TRUE(batch) << batch.error().message();
  ASSERT_EQ(batch->size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(as_vector((*batch)[i].bytes), sent[i]);
}

TEST(UdpSocketTest, TakesAtMostOneBatchPerCall) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  for (std::size_t i = 0; i < UdpSocket::kMaxBatch + 5; ++i) peer.send(pattern(64, 1));
  wait_readable(socket->fd());

  auto first = socket->receive_batch();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), UdpSocket::kMaxBatch);
  auto second = socket->receive_batch();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->size(), 5u);
}

TEST(UdpSocketTest, ReportsNothingWaitingAsAnEmptyBatch) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();

  auto batch = socket->receive_batch();

  ASSERT_TRUE(batch) << batch.error().message();
  EXPECT_TRUE(batch->empty());
}

TEST(UdpSocketTest, DropsADatagramLargerThanItsSlotInsteadOfTruncatingIt) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  peer.send(pattern(UdpSocket::kMaxDatagram + 1, 1));
  const auto small = pattern(10, 2);
  peer.send(small);
  wait_readable(socket->fd());

  auto batch = socket->receive_batch();

  ASSERT_TRUE(batch) << batch.error().message();
  ASSERT_EQ(batch->size(), 1u);
  EXPECT_EQ(as_vector((*batch)[0].bytes), small);
}

TEST(UdpSocketTest, ReportsAnUnreachablePortAsAConnectErrorNamingTheAddress) {
  std::uint16_t port = 0;
  SocketAddress closed;
  {
    Peer gone;  // bound, then closed: nothing listens on that port any more
    closed = gone.address();
    port = ntohs(reinterpret_cast<const sockaddr_in&>(closed.storage).sin_port);
  }
  auto socket = UdpSocket::connect(closed, "QUIC");
  ASSERT_TRUE(socket) << socket.error().message();
  const auto datagram = pattern(100, 1);
  ASSERT_TRUE(socket->send_batch(datagram, datagram.size()));
  wait_readable(socket->fd());  // the ICMP port unreachable is pending on the socket

  auto batch = socket->receive_batch();

  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().category(), ErrorCategory::connect);
  EXPECT_EQ(batch.error().message(), "QUIC: UDP receive from 127.0.0.1:" + std::to_string(port) +
                                         " failed: Connection refused");
}

TEST(UdpSocketTest, ReleasedScratchIsAllocatedAgainOnTheNextReceive) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  ASSERT_TRUE(socket->receive_batch());  // allocates
  EXPECT_GE(socket->release_scratch(), UdpSocket::kMaxBatch * UdpSocket::kMaxDatagram);
  EXPECT_EQ(socket->release_scratch(), 0u);
  const auto datagram = pattern(300, 4);
  peer.send(datagram);
  wait_readable(socket->fd());

  auto batch = socket->receive_batch();

  ASSERT_TRUE(batch) << batch.error().message();
  ASSERT_EQ(batch->size(), 1u);
  EXPECT_EQ(as_vector((*batch)[0].bytes), datagram);
}

TEST(UdpSocketTest, KnowsBothEndsOfTheConnection) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();

  EXPECT_EQ(socket->remote().to_string(), peer.address().to_string());
  EXPECT_EQ(socket->local().storage.ss_family, AF_INET);
  EXPECT_NE(reinterpret_cast<const sockaddr_in&>(socket->local().storage).sin_port, 0);
}

TEST(UdpSocketTest, MovedSocketKeepsItsDescriptorAndTheSourceLetsGo) {
  Peer peer;
  auto socket = connected_to(peer);
  ASSERT_TRUE(socket) << socket.error().message();
  const int fd = socket->fd();

  UdpSocket moved = std::move(*socket);

  EXPECT_EQ(moved.fd(), fd);
  EXPECT_EQ(socket->fd(), -1);
  const auto datagram = pattern(50, 5);
  ASSERT_TRUE(moved.send_batch(datagram, datagram.size()));
  EXPECT_EQ(peer.receive_all().size(), 1u);
}

}  // namespace
}  // namespace sluice
