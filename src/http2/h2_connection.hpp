#pragma once
// H2Connection: one HTTP/2 connection carrying many exchanges at once: the StreamCodec
// between a StreamDriver (socket, buffers, events, the timer) and the sans-IO
// H2Session. It decides when PINGs go out and when an unanswered one fails the
// connection, and tells its owner when it became idle or closed. The socket is always
// read: backpressure is HTTP/2 flow control (a held stream's window stays closed),
// never EPOLLIN off, so a paused stream does not stall its siblings.
// Ownership: HTTP thread only; owned by a pool in src/client (via ConnectionOwner).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "connection/connection.hpp"
#include "connection/owner_reports.hpp"
#include "core/event_loop.hpp"
#include "core/trace.hpp"
#include "http2/h2_session.hpp"
#include "net/stream_driver.hpp"
#include "net/transport.hpp"

namespace sluice {

/// Liveness checks of an HTTP/2 connection.
struct H2Timing {
  /// With streams open and no input for this long, a PING is sent.
  std::chrono::milliseconds ping_after{30'000};
  /// A PING unanswered for this long fails the connection (and all its streams).
  std::chrono::milliseconds ping_timeout{10'000};
  /// A stream cancelled after this long without input (a caller that timed out on a
  /// stalled server) makes the connection send a PING at once and start no new
  /// stream until its ACK, so a retry does not stall on the same silent connection.
  std::chrono::milliseconds quiet_before_probe{1'000};
};

class H2Connection final : public Connection, private StreamCodec {
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
  bool idle() const noexcept override { return driver_.closed() || session_.open_streams() == 0; }
  bool was_reused() const noexcept override { return exchanges_ > 0; }
  bool is_closed() const noexcept override { return driver_.closed(); }
  /// The server sent GOAWAY: the streams it kept may finish, no new one starts here.
  /// The pool does not count a draining connection toward its per-origin limit.
  bool draining() const noexcept override {
    return !driver_.closed() && session_.goaway_received();
  }
  std::optional<std::size_t> served_before_refusal() const noexcept override {
    return session_.served_before_refusal();
  }
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
  // StreamCodec
  void on_input(std::span<const std::byte> bytes) override;
  void on_input_end() override;
  void on_transport_error(Error error) override;
  bool wants_input() const override { return session_.wants_read(); }
  bool produce_output(StreamDriver& driver) override;
  /// Every event ends here (the driver has flushed and re-armed): close a finished
  /// session, tell the owner what changed.
  void after_event() override;
  /// The earliest of: a liveness PING (quiet with streams open), its answer's
  /// deadline, the session's own (quiet streams with credit owed).
  std::optional<TimePoint> next_deadline() const override;
  void on_deadline(TimePoint now) override;

  template <class Work>
  void event(Work&& work) {
    driver_.event(std::forward<Work>(work));
  }
  void fail(Error error);
  Error lost_error(Error transport_error) const;
  void send_liveness_ping(TimePoint now);
  void tell_owner();
  OwnerView owner_view() const;
  void trace(const std::string& what) const;

  EventLoop& loop_;
  OwnerReports reports_;  // what the owner (the pool) has heard
  std::uint64_t id_;
  const Trace& trace_;
  H2Timing timing_;
  H2Session session_;
  StreamDriver driver_;  // after the session, whose output it flushes

  std::string peer_ = "the server";  // the first request's authority, for messages
  std::uint64_t exchanges_ = 0;
  TimePoint last_input_;
  TimePoint ping_sent_at_{};  // of the liveness PING outstanding, if any
};

}  // namespace sluice
