#pragma once
// H2Connection: one HTTP/2 connection carrying many exchanges at once. Moves bytes
// between a Transport and the sans-IO H2Session, keeps the PING timers, and tells its
// owner when it became idle or closed, and runs the session's own timer (streams
// gone quiet with credit owed). The socket is always read: backpressure is
// HTTP/2 flow control (a held stream's window stays closed), never EPOLLIN off,
// so a paused stream does not stall its siblings.
// Ownership: HTTP thread only; owned by a pool in src/client (via ConnectionOwner).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "http2/h2_session.hpp"
#include "io/byte_queue.hpp"
#include "io/connection.hpp"
#include "io/event_loop.hpp"
#include "io/owner_reports.hpp"
#include "io/trace.hpp"
#include "io/transport.hpp"

namespace sluice {

/// Liveness checks of an HTTP/2 connection.
struct H2Timing {
  /// With streams open and no input for this long, a PING is sent.
  std::chrono::milliseconds ping_after{30'000};
  /// A PING unanswered for this long fails the connection (and all its streams).
  std::chrono::milliseconds ping_timeout{10'000};
};

class H2Connection final : public Connection, private FdWatcher {
 public:
  /// `transport` has completed its handshake (ALPN "h2" or prior knowledge). The
  /// connection preface and SETTINGS are written at once. If the session or the
  /// socket fails here, is_closed() is true and the owner is not called.
  H2Connection(EventLoop& loop, std::unique_ptr<Transport> transport, ConnectionOwner& owner,
               std::uint64_t id, const Trace& trace, H2Timing timing = {},
               H2SessionOptions session_options = {});
  ~H2Connection() override;
  H2Connection(const H2Connection&) = delete;
  H2Connection& operator=(const H2Connection&) = delete;

  HttpVersion version() const noexcept override { return HttpVersion::http2; }
  /// The server's stream limit minus open streams; 0 after GOAWAY or once closed.
  std::size_t available_streams() const noexcept override;
  bool idle() const noexcept override { return closed_ || session_.open_streams() == 0; }
  bool was_reused() const noexcept override { return exchanges_ > 0; }
  bool is_closed() const noexcept override { return closed_; }
  /// The server sent GOAWAY: the streams it kept may finish, no new one starts here.
  /// The pool does not count a draining connection toward its per-origin limit.
  bool draining() const noexcept override { return !closed_ && session_.goaway_received(); }
  /// The exchange's id is its stream id.
  ExchangeId start(ExchangeRequest request, ExchangeSink& sink) override;
  /// Gives the stream's window back for the bytes its consumer took.
  void resume(ExchangeId exchange) override;
  /// RST_STREAM(CANCEL) for that exchange only; the connection stays up.
  void cancel(ExchangeId exchange) override;
  std::size_t release_scratch(TimePoint paused_before) override;
  std::size_t scratch_bytes() const noexcept override;
  /// Every open exchange gets on_error(error); the owner is not called.
  void close(Error error) override;
  std::uint64_t id() const noexcept override { return id_; }

 private:
  // FdWatcher
  void on_fd_ready(std::uint32_t events) override;

  /// Runs `work` as one event: after_event follows, unless an event is already
  /// running (a sink calling back in), whose after_event then goes round again.
  template <class Work>
  void event(Work&& work);
  /// Every event ends here: flush output, re-arm epoll and the PING timer, tell the
  /// owner about idle or closed.
  void after_event();
  void flush();
  void flush_at_turn_end();
  void read_ready();
  void receive_eof();
  void fail(Error error);
  Error lost_error(Error transport_error) const;
  void close_transport();
  void rearm();
  void arm_ping_timer();
  void arm_session_timer();
  void on_ping_timer();
  void on_ping_timeout();
  void tell_owner();
  OwnerView owner_view() const;
  void trace(const std::string& what) const;

  EventLoop& loop_;
  std::unique_ptr<Transport> transport_;
  OwnerReports reports_;  // what the owner (the pool) has heard
  std::uint64_t id_;
  const Trace& trace_;
  H2Timing timing_;
  H2Session session_;

  std::string peer_ = "the server";  // the first request's authority, for messages
  bool closed_ = false;
  std::uint64_t exchanges_ = 0;
  std::uint32_t watched_events_ = 0;
  bool write_blocked_ = false;
  bool flush_scheduled_ = false;  // an at_turn_end flush is pending
  bool in_event_ = false;
  bool again_ = false;  // a nested event asked after_event for another round
  TimePoint last_input_;
  EventLoop::TimerId ping_timer_ = 0;
  EventLoop::TimerId ping_timeout_timer_ = 0;
  EventLoop::TimerId session_timer_ = 0;  // the session's next_deadline (quiet streams)
  TimePoint session_timer_at_{};

  ByteQueue send_queue_;  // frames waiting for the socket
  ByteQueue recv_;        // one receive of scratch
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice
