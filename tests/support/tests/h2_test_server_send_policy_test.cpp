// Self-tests of H2TestServer with a send policy (H2PeerOptions::data_unit), driven by
// a hand-made HTTP/2 client on a plain socket (never the sluice client, which this
// server exists to test): a body held back for want of window must leave as soon as
// a WINDOW_UPDATE read from the socket opens enough of it, and not before.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "support/h2_test_peer.hpp"
#include "support/h2_test_server.hpp"
#include "support/test_body.hpp"

namespace sluice::test {
namespace {

constexpr std::size_t kUnit = 32750;
constexpr std::uint64_t kBodySize = 200000;
constexpr std::uint64_t kSeed = 31;
constexpr std::uint32_t kConnWindow = 65535;  // the client never raises it unasked

// A blocking h2 client socket that only does what the test says. Test thread only.
class FrameClient {
 public:
  explicit FrameClient(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval limit{30, 0};  // a server that never sends fails the test instead of hanging it
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ADD_FAILURE() << "connect: " << std::strerror(errno);
    }
  }
  ~FrameClient() { ::close(fd_); }
  FrameClient(const FrameClient&) = delete;
  FrameClient& operator=(const FrameClient&) = delete;

  void send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) {
        ADD_FAILURE() << "send: " << std::strerror(errno);
        return;
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Reads frames until `body` holds `size` bytes; false on a timeout or close.
  bool read_body_until(std::size_t size) {
    while (body.size() < size) {
      if (!read_frames()) return false;
    }
    return true;
  }

  // Returns once every frame the server could send so far has arrived. A PING's ACK
  // may overtake DATA of the same write (nghttp2 sends control frames first), so a
  // second PING is sent only after the first ACK: the server writes its answer to it
  // after everything it wrote before.
  bool settle() { return ping_round_trip() && ping_round_trip(); }

  std::string body;  ///< DATA payload received on stream 1
  bool ended = false;

 private:
  bool ping_round_trip() {
    const std::string opaque = h2_uint32(++pings_) + h2_uint32(0);
    send(h2_frame(NGHTTP2_PING, NGHTTP2_FLAG_NONE, 0, opaque));
    acked_.clear();
    while (acked_ != opaque) {
      if (!read_frames()) return false;
    }
    return true;
  }

  // One recv, then everything whole in what has arrived.
  bool read_frames() {
    char buffer[64 * 1024];
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) {
      ADD_FAILURE() << "recv: " << (n == 0 ? "closed" : std::strerror(errno)) << " with "
                    << body.size() << " body bytes received";
      return false;
    }
    in_.append(buffer, static_cast<std::size_t>(n));
    for (const H2Frame& frame : take_h2_frames(in_)) take(frame);
    return true;
  }

  void take(const H2Frame& frame) {
    if (frame.type == NGHTTP2_DATA && frame.stream_id == 1) {
      body += frame.payload;
      ended = ended || (frame.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    }
    if (frame.type == NGHTTP2_PING && (frame.flags & NGHTTP2_FLAG_ACK) != 0) acked_ = frame.payload;
  }

  int fd_ = -1;
  std::string in_;
  std::string acked_;
  std::uint32_t pings_ = 0;
};

H2TestServerOptions unit_server() {
  H2TestServerOptions options;
  options.peer.data_unit = kUnit;
  return options;
}

void answer_generated(H2ServerStream& stream) {
  stream.respond(200);
  stream.send_body_generated(kBodySize, kSeed);
}

TEST(H2TestServerSendPolicy, WindowUpdatesFromTheSocketReleaseWholeUnitsOnly) {
  H2TestServer server(answer_generated, unit_server());
  FrameClient client(server.port());
  client.send(h2_client_opening({{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}}));
  // The connection's 65,535 bytes of window hold two units; then the server waits.
  ASSERT_TRUE(client.read_body_until(2 * kUnit));
  ASSERT_TRUE(client.settle());
  EXPECT_EQ(client.body.size(), 2 * kUnit);

  // One byte short of a unit: still nothing.
  const std::uint32_t short_of_unit = kUnit - (kConnWindow - 2 * kUnit) - 1;
  client.send(window_update_frame(0, short_of_unit));
  ASSERT_TRUE(client.settle());
  EXPECT_EQ(client.body.size(), 2 * kUnit);

  // The last byte of the unit: exactly one unit more.
  client.send(window_update_frame(0, 1));
  ASSERT_TRUE(client.read_body_until(3 * kUnit));
  ASSERT_TRUE(client.settle());
  EXPECT_EQ(client.body.size(), 3 * kUnit);

  // Window for everything: the rest, the shorter final unit included, and the end.
  client.send(window_update_frame(0, 1 << 20));
  ASSERT_TRUE(client.read_body_until(kBodySize));
  ASSERT_TRUE(client.settle());
  EXPECT_TRUE(client.ended);
  EXPECT_TRUE(client.body == generated_bytes(kSeed, 0, kBodySize));
}

}  // namespace
}  // namespace sluice::test
