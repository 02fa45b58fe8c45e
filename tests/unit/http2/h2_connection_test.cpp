#include "http2/h2_connection.hpp"

#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <memory>
#include <string>

#include "core/byte_queue.hpp"
#include "support/h2_test_peer.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::H2TestPeer;
using test::RecordingSink;
using test::ScriptedBody;

// The server end of a socketpair, served by an in-memory H2TestPeer on the same loop.
class SocketPeer final : public FdWatcher {
 public:
  SocketPeer(EventLoop& loop, int fd, H2TestPeer& peer) : loop_(loop), fd_(fd), peer_(peer) {
    EXPECT_TRUE(loop_.watch(fd_, EPOLLIN, this).ok());
  }
  ~SocketPeer() override { close_socket(); }

  void on_fd_ready(std::uint32_t events) override {
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_all();
    if (fd_ >= 0) flush();
  }

  /// Sends what the peer has queued (after a test submitted a response).
  void flush() {
    if (fd_ < 0) return;
    out_ += peer_.take_output();
    while (!out_.empty()) {
      const ssize_t sent = ::send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
      if (sent <= 0) break;
      out_.erase(0, static_cast<std::size_t>(sent));
    }
    (void)loop_.modify(fd_, out_.empty() ? EPOLLIN : EPOLLIN | EPOLLOUT);
  }

  void close_socket() {
    if (fd_ < 0) return;
    loop_.unwatch(fd_);
    ::close(fd_);
    fd_ = -1;
  }

  /// Reads and drops everything: a server that stopped answering.
  bool deaf = false;
  /// Runs after each batch of client bytes reached the peer.
  std::function<void()> on_input;

 private:
  void read_all() {
    char buf[64 * 1024];
    for (;;) {
      const ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
      if (got > 0) {
        if (!deaf) peer_.receive(as_bytes(std::string_view(buf, static_cast<std::size_t>(got))));
        continue;
      }
      if (got == 0) close_socket();
      break;
    }
    if (!deaf && fd_ >= 0 && on_input) on_input();
  }

  EventLoop& loop_;
  int fd_;
  H2TestPeer& peer_;
  std::string out_;
};

class RecordingOwner final : public ConnectionOwner {
 public:
  void on_connection_available(Connection& conn) override {
    ++available;
    if (conn.idle()) ++idle;
    if (on_change) on_change();
  }
  void on_connection_closed(Connection&) override {
    ++closed;
    if (on_change) on_change();
  }
  std::function<void()> on_change;  ///< after each report
  int available = 0;
  int idle = 0;  // of those calls, the ones with no exchange in flight
  int closed = 0;
};

class H2ConnectionTest : public ::testing::Test {
 protected:
  H2ConnectionTest() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    client_fd_ = fds[0];
    server_ = std::make_unique<SocketPeer>(loop_, fds[1], peer_);
  }

  std::unique_ptr<H2Connection> connect(H2Timing timing = {}) {
    return std::make_unique<H2Connection>(loop_, make_plain_transport(client_fd_), owner_, 7,
                                          trace_, timing);
  }

  static ExchangeRequest get(std::string target) {
    ExchangeRequest request;
    request.method = "GET";
    request.scheme = "http";
    request.authority = "peer.test";
    request.target = std::move(target);
    // The peers' scenarios are written for a 256 KiB first window; how far it grows
    // is the policy's (WindowPolicy::max_window), as before the allowance.
    request.allowance = BodyAllowance{256 * 1024, SIZE_MAX};
    return request;
  }

  // Runs the loop until stop() or a 5 s safety deadline (which fails the test).
  void run() {
    bool timed_out = false;
    const auto deadline = loop_.add_timer(Clock::now() + 5s, [&] {
      timed_out = true;
      loop_.stop();
    });
    loop_.run();
    loop_.cancel_timer(deadline);
    EXPECT_FALSE(timed_out) << "the loop never reached the test's end condition";
  }

  EventLoop loop_;
  Trace trace_;
  H2TestPeer peer_;
  int client_fd_ = -1;
  std::unique_ptr<SocketPeer> server_;
  RecordingOwner owner_;
};

TEST_F(H2ConnectionTest, GetCompletesAndTheConnectionGoesIdle) {
  auto conn = connect();
  ASSERT_FALSE(conn->is_closed());
  EXPECT_EQ(conn->version(), HttpVersion::http2);
  EXPECT_FALSE(conn->was_reused());
  RecordingSink sink;
  sink.on_end = [&] { loop_.stop(); };
  bool responded = false;
  server_->on_input = [&] {
    if (responded || peer_.request_ids().empty() || !peer_.request(1)->ended) return;
    responded = true;
    peer_.respond(1, 200, {{"server", "socket-peer"}});
    peer_.send_body(1, "over a socket", true);
    server_->flush();
  };
  conn->start(get("/socket"), sink);
  run();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "over a socket");
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->headers.get("server"), "socket-peer");
  EXPECT_EQ(owner_.idle, 1);
  EXPECT_EQ(owner_.closed, 0);
  EXPECT_TRUE(conn->was_reused());
  EXPECT_GT(conn->available_streams(), 0u);
}

TEST_F(H2ConnectionTest, CancelKeepsTheConnectionForTheSibling) {
  auto conn = connect();
  RecordingSink cancelled;
  RecordingSink sibling;
  sibling.on_end = [&] { loop_.stop(); };
  int step = 0;
  server_->on_input = [&] {
    if (step == 0 && peer_.request_ids().size() == 2) {
      step = 1;
      peer_.respond(1, 200);
      peer_.send_body(1, std::string(64 * 1024, 'c'), false);
      peer_.respond(3, 200);
      peer_.send_body(3, "first half, ", false);
    } else if (step == 1 && peer_.request(1)->reset_code) {
      step = 2;
      peer_.send_body(3, "second half", true);
    }
    server_->flush();
  };
  ExchangeId cancelled_id = kNoExchange;
  cancelled.after_body = [&] { conn->cancel(cancelled_id); };
  cancelled_id = conn->start(get("/cancelled"), cancelled);
  EXPECT_EQ(cancelled_id, 1u);  // the stream id
  EXPECT_EQ(conn->start(get("/sibling"), sibling), 3u);
  run();
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body, "first half, second half");
  EXPECT_FALSE(cancelled.completed);
  EXPECT_FALSE(cancelled.error.has_value());
  EXPECT_EQ(peer_.request(1)->reset_code, NGHTTP2_CANCEL);
  EXPECT_FALSE(conn->is_closed());
  EXPECT_EQ(owner_.closed, 0);
}

TEST_F(H2ConnectionTest, ServerClosingFailsOpenStreams) {
  auto conn = connect();
  RecordingSink sink;
  sink.on_end = [&] { loop_.stop(); };
  server_->on_input = [&] {
    if (peer_.request_ids().empty()) return;
    peer_.respond(1, 200);
    peer_.send_body(1, "partial", false);
    server_->flush();
    server_->on_input = nullptr;
    server_->close_socket();
  };
  conn->start(get("/cut"), sink);
  run();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(),
            "HTTP/2: peer.test closed the connection before the response ended");
  EXPECT_EQ(sink.body, "partial");
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(conn->available_streams(), 0u);
  EXPECT_EQ(owner_.closed, 1);
}

TEST_F(H2ConnectionTest, UnansweredPingFailsTheConnection) {
  auto conn = connect(H2Timing{50ms, 100ms});
  RecordingSink sink;
  sink.on_end = [&] { loop_.stop(); };
  server_->on_input = [&] {
    if (peer_.request_ids().empty()) return;
    peer_.respond(1, 200);
    server_->flush();
    server_->deaf = true;  // no PING ACK will come
    server_->on_input = nullptr;
  };
  conn->start(get("/silent"), sink);
  run();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::timeout);
  EXPECT_EQ(sink.error->message(),
            "HTTP/2: connection to peer.test did not answer a PING within 0.1 s");
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(owner_.closed, 1);
}

TEST_F(H2ConnectionTest, AnsweredPingKeepsAQuietStreamOpen) {
  auto conn = connect(H2Timing{30ms, 1000ms});
  RecordingSink sink;
  sink.on_end = [&] { loop_.stop(); };
  int step = 0;
  server_->on_input = [&] {
    if (peer_.request_ids().empty()) return;
    if (step == 0) {
      step = 1;
      peer_.respond(1, 200);
    } else if (step == 1 && peer_.pings_received() >= 2) {
      step = 2;
      peer_.send_body(1, "after the pings", true);  // quiet for two PING rounds
    }
    server_->flush();
  };
  conn->start(get("/quiet"), sink);
  run();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "after the pings");
  EXPECT_GE(peer_.pings_received(), 2);
}

// A retry after a stall (the caller's idle or low-speed timeout cancelled the
// stream) must not land on the same silent connection: the cancel sends a PING, no
// new stream starts until its ACK, and the ACK frees the connection again.
TEST_F(H2ConnectionTest, CancelOnAQuietConnectionHoldsNewStreamsUntilThePingIsAnswered) {
  auto conn = connect(H2Timing{30s, 5s, 0ms});
  RecordingSink stalled;
  server_->on_input = [&] {
    if (peer_.request_ids().empty() || peer_.request(1)->reset_code) return;
    peer_.respond(1, 200);
    peer_.send_body(1, "then silence", false);
    server_->flush();
  };
  ExchangeId id = kNoExchange;
  std::size_t available_after_cancel = 99;
  stalled.after_body = [&] {
    conn->cancel(id);
    available_after_cancel = conn->available_streams();
    owner_.on_change = [&] {
      if (conn->available_streams() > 0) loop_.stop();
    };
  };
  id = conn->start(get("/stalls"), stalled);
  run();
  EXPECT_EQ(available_after_cancel, 0u);
  EXPECT_GE(peer_.pings_received(), 1);  // besides the session's RTT probes
  EXPECT_GT(conn->available_streams(), 0u);
  EXPECT_FALSE(conn->is_closed());
}

TEST_F(H2ConnectionTest, CancelOnADeadConnectionFailsItByThePing) {
  auto conn = connect(H2Timing{30s, 100ms, 0ms});
  RecordingSink stalled;
  server_->on_input = [&] {
    if (peer_.request_ids().empty()) return;
    peer_.respond(1, 200);
    peer_.send_body(1, "then nothing", false);
    server_->flush();
    server_->deaf = true;  // the server is gone: no PING ACK
    server_->on_input = nullptr;
  };
  ExchangeId id = kNoExchange;
  stalled.after_body = [&] { conn->cancel(id); };
  owner_.on_change = [&] {
    if (conn->is_closed()) loop_.stop();
  };
  id = conn->start(get("/dead"), stalled);
  run();
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(owner_.closed, 1);
}

TEST_F(H2ConnectionTest, CloseFailsStreamsWithoutTellingTheOwner) {
  auto conn = connect();
  RecordingSink sink;
  server_->on_input = [&] {
    if (!peer_.request_ids().empty()) loop_.stop();
  };
  conn->start(get("/closing"), sink);
  run();
  conn->close(Error(ErrorCategory::cancelled, "client shut down"));
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "client shut down");
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(owner_.closed, 0);
  RecordingSink late;
  conn->start(get("/late"), late);
  ASSERT_TRUE(late.error.has_value());
}

TEST_F(H2ConnectionTest, DeferredRequestBodyIsSentWhenTheSourceWakes) {
  auto conn = connect();
  ScriptedBody body(11);
  RecordingSink sink;
  sink.on_end = [&] { loop_.stop(); };
  bool responded = false;
  server_->on_input = [&] {
    if (responded || peer_.request_ids().empty()) return;
    const auto* request = peer_.request(1);
    if (request->ended && request->body == "hello world") {
      responded = true;
      peer_.respond(1, 200, {}, true);
      server_->flush();
    }
  };
  ExchangeRequest request = get("/upload");
  request.method = "PUT";
  request.body = &body;
  conn->start(std::move(request), sink);
  // The producer delivers later, from the HTTP thread (as a posted waker would).
  loop_.add_timer(Clock::now() + 20ms, [&] { body.provide("hello ", false); });
  loop_.add_timer(Clock::now() + 40ms, [&] { body.provide("world", true); });
  run();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(peer_.request(1)->body, "hello world");
}

TEST_F(H2ConnectionTest, LargeBodiesFlowWithAHeldSibling) {
  auto conn = connect();
  RecordingSink held;
  held.hold();
  RecordingSink sibling;
  sibling.on_end = [&] { loop_.stop(); };
  const std::string big(4 * 1024 * 1024, 'b');
  bool responded = false;
  server_->on_input = [&] {
    if (responded || peer_.request_ids().size() < 2) return;
    responded = true;
    peer_.respond(1, 200);
    peer_.send_body(1, std::string(1024 * 1024, 'h'), true);
    peer_.respond(3, 200);
    peer_.send_body(3, big, true);
    server_->flush();
  };
  conn->start(get("/held"), held);
  conn->start(get("/big"), sibling);
  run();
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body.size(), big.size());
  EXPECT_EQ(held.body.size(), 256u * 1024);
  EXPECT_FALSE(held.completed);
  EXPECT_FALSE(conn->is_closed());
}

}  // namespace
}  // namespace sluice
