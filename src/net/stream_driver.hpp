#pragma once
// StreamDriver: the I/O half of every connection over a byte stream (HTTP/1.1 and
// HTTP/2, over TCP or TLS). It owns the Transport, the receive scratch and the send
// queue, watches the socket, keeps the connection's one timer, and runs each piece of
// work as one event that ends in one place: output flushed, epoll interest and the
// timer re-armed (from the codec's next_deadline), then the codec's after_event
// (what its owner must hear). The protocol behind it (a StreamCodec:
// H1Connection, H2Connection) sees bytes and events, never a file descriptor.
// Ownership: HTTP thread only; a member of the connection that is its codec.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "core/byte_queue.hpp"
#include "core/event_loop.hpp"
#include "core/event_nesting.hpp"
#include "net/transport.hpp"
#include "sluice/error.hpp"

namespace sluice {

class StreamDriver;

/// What a byte-stream protocol gives its StreamDriver. Every call is on the HTTP
/// thread, inside one of the driver's events (after_event just after one).
class StreamCodec {
 public:
  virtual ~StreamCodec() = default;
  /// The bytes of one receive, in order. The codec may close the driver.
  virtual void on_input(std::span<const std::byte> bytes) = 0;
  /// The most the next receive may bring (HTTP/1.1: what its exchange's allowance
  /// has room for, so an unread body holds at most its allowance). 0 reads nothing.
  virtual std::size_t input_limit() const { return SIZE_MAX; }
  /// Where the next receive may go instead of the driver's scratch (at most `max`
  /// bytes), so that it needs no copy; on_input then sees a prefix of that span.
  /// Empty: the driver's scratch.
  virtual std::span<std::byte> input_space(std::size_t max) {
    (void)max;
    return {};
  }
  /// The peer ended the stream (transport().ended_without_close_notify() says
  /// whether a TLS peer skipped close_notify). Called once; reading stops.
  virtual void on_input_end() = 0;
  /// Reading or writing failed; the driver is already closed.
  virtual void on_transport_error(Error error) = 0;
  /// Whether to read now (HTTP/1.1: not while the reader is its allowance behind).
  virtual bool wants_input() const = 0;
  /// Moves output toward the socket: appends to driver.output(), or writes through
  /// driver.write_direct(). False when it has nothing more now (or closed the driver).
  virtual bool produce_output(StreamDriver& driver) = 0;
  /// After each outermost event, outside it: the codec may start new work here
  /// (its owner may start exchanges), which runs as events of its own.
  virtual void after_event() = 0;
  /// When the codec next needs on_deadline (PINGs, timeouts, quiet streams); asked at
  /// the end of every event, so one timer serves all of a connection's deadlines.
  virtual std::optional<TimePoint> next_deadline() const = 0;
  /// A deadline passed (or the timer fired early: check against `now`). An event.
  virtual void on_deadline(TimePoint now) = 0;
};

class StreamDriver : private FdWatcher {
 public:
  /// `transport` has completed its handshake. Reading starts at once (a server that
  /// closes an idle connection is noticed); if the socket cannot be watched, the
  /// driver starts closed.
  StreamDriver(EventLoop& loop, std::unique_ptr<Transport> transport, StreamCodec& codec);
  ~StreamDriver() override;
  StreamDriver(const StreamDriver&) = delete;
  StreamDriver& operator=(const StreamDriver&) = delete;

  /// Runs `work` as one event: flush, re-arm, then the codec's after_event. Inside
  /// another event (a sink calling back in) it runs at once and that event's flush
  /// goes round again instead.
  template <class Work>
  void event(Work&& work) {
    if (nesting_.run(std::forward<Work>(work), [this] { finish_event(); })) codec_.after_event();
  }
  /// Flushes what the codec has (the HTTP/2 preface) without telling the codec's
  /// owner anything: for a constructor.
  void prime();
  /// Reads what is there, if the codec wants it (inside an event; a read already
  /// running on this stack re-checks by itself).
  void read();
  /// Flushes at the end of this loop turn: many exchanges started in one turn leave
  /// in one write.
  void flush_at_turn_end();

  /// Writes straight from the caller's bytes (no copy into the send queue). Returns
  /// the bytes taken: 0 when the socket is full (write interest is armed) or the
  /// write failed (the driver is then closed and the codec told).
  std::size_t write_direct(std::span<const std::byte> bytes);
  /// One write of the send queue, ignoring the outcome: a last word before closing.
  void write_best_effort();
  ByteQueue& output() noexcept { return send_queue_; }

  /// Closes the transport and frees the buffers; the codec hears nothing.
  void close();
  bool closed() const noexcept { return transport_ == nullptr; }
  const Transport& transport() const noexcept { return *transport_; }

  /// The sweep: frees the empty receive scratch and send queue.
  std::size_t release_scratch();
  std::size_t scratch_bytes() const noexcept;

 private:
  void on_fd_ready(std::uint32_t events) override;
  Result<IoStatus> receive_once();
  void finish_event();
  void flush();
  void rearm();
  void arm_deadline();
  void fail(Error error);
  /// The codec wants bytes, has room for some, and the peer has not ended its
  /// stream (without room, reading stays off rather than waking to read nothing).
  bool wants_input() const {
    return !input_ended_ && codec_.wants_input() && codec_.input_limit() > 0;
  }

  EventLoop& loop_;
  std::unique_ptr<Transport> transport_;  // null once closed
  StreamCodec& codec_;
  std::uint32_t watched_events_ = 0;
  bool unwatched_ = false;  // off epoll: a hang-up or error while nothing is wanted
  bool write_blocked_ = false;
  EventNesting nesting_;
  bool in_read_ = false;
  bool input_ended_ = false;  // on_input_end was called: nothing more to read
  bool flush_scheduled_ = false;
  EventLoop::TimerId timer_ = 0;  // the codec's next deadline
  TimePoint timer_at_{};
  ByteQueue send_queue_;  // output waiting for the socket
  ByteQueue recv_;        // one receive of scratch
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice
