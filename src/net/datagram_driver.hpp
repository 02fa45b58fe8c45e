#pragma once
// DatagramDriver: the I/O half of a connection over datagrams (QUIC over UDP). It owns
// the connected UdpSocket and the send batch, watches the socket, keeps the
// connection's one timer, and runs each piece of work as one event that ends in one
// place (STYLE 3): the codec writes what it has into the batch, the batch goes out
// (the rest when the socket takes it), the timer is re-armed from the codec's
// next_deadline. The protocol behind it (a DatagramCodec: QuicCodec) sees datagrams,
// `now` and a DatagramPort, never a file descriptor, so tests carry it over a
// simulated link on a manual clock instead.
// Ownership: HTTP thread only; owned beside its codec (QuicConnection holds both).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>

#include "core/event_loop.hpp"
#include "core/event_nesting.hpp"
#include "net/datagram_batch.hpp"
#include "net/udp_socket.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// What a datagram codec may ask of whatever carries its datagrams (DatagramDriver,
/// or a test's simulated link).
class DatagramPort {
 public:
  virtual ~DatagramPort() = default;
  /// The carrier's time: for calls that no event brought (start, a local close).
  virtual TimePoint now() const = 0;
  /// The codec has datagrams to write: write_datagrams follows at the end of this
  /// event, or of this loop turn when called outside one.
  virtual void request_write() = 0;
  /// Sends one datagram at once, best effort (a CONNECTION_CLOSE just before close()).
  virtual bool send_now(std::span<const std::uint8_t> datagram) = 0;
  /// No datagram moves either way from now on; the codec hears nothing more.
  virtual void close() = 0;
};

/// A protocol over datagrams. Every call is on the HTTP thread, inside one event of
/// its carrier.
class DatagramCodec {
 public:
  virtual ~DatagramCodec() = default;
  /// One received datagram, in arrival order. The codec may close the port.
  virtual void on_datagram(std::span<const std::uint8_t> datagram, TimePoint now) = 0;
  /// The socket failed; the port is already closed.
  virtual void on_port_error(Error error) = 0;
  /// Writes what may leave now into `batch` (empty: begin() it first). Called at the
  /// end of every event while the batch is empty.
  virtual void write_datagrams(DatagramBatch& batch, TimePoint now) = 0;
  /// When on_deadline is next needed (loss recovery, pacing, idle and application
  /// deadlines together); asked at the end of every event.
  virtual std::optional<TimePoint> next_deadline() const = 0;
  /// A deadline passed (or the timer fired early: check against `now`).
  virtual void on_deadline(TimePoint now) = 0;
};

class DatagramDriver final : public DatagramPort, private FdWatcher {
 public:
  /// Takes the socket; nothing happens until start(codec).
  DatagramDriver(EventLoop& loop, UdpSocket socket);
  ~DatagramDriver() override;
  DatagramDriver(const DatagramDriver&) = delete;
  DatagramDriver& operator=(const DatagramDriver&) = delete;

  /// Watches the socket for `codec` (which outlives the driver's events) and writes
  /// what it has at the end of this turn.
  Result<void> start(DatagramCodec& codec);
  /// Runs `work` as one event of this connection (see StreamDriver::event).
  template <class Work>
  void event(Work&& work) {
    nesting_.run(std::forward<Work>(work), [this] { finish_event(); });
  }

  // DatagramPort
  TimePoint now() const override { return loop_.now(); }
  void request_write() override;
  bool send_now(std::span<const std::uint8_t> datagram) override;
  void close() override;

  bool closed() const noexcept { return !socket_.has_value(); }
  /// The socket (for its addresses and GSO state); only while not closed.
  const UdpSocket& socket() const noexcept { return *socket_; }
  /// The sweep: frees the receive scratch and an idle send batch.
  std::size_t release_scratch();
  std::size_t scratch_bytes() const noexcept;

 private:
  void on_fd_ready(std::uint32_t events) override;
  void read_ready();
  void finish_event();
  void flush();
  void watch_writable(bool writable);
  void schedule_write();
  void arm_timer();
  void fail(Error error);

  EventLoop& loop_;
  std::optional<UdpSocket> socket_;  // reset once closed
  DatagramCodec* codec_ = nullptr;   // set by start()
  DatagramBatch batch_;              // what the codec wrote and the socket has not taken
  bool watching_writable_ = false;
  EventNesting nesting_;          // a nested request asks finish_event for a round more
  bool write_scheduled_ = false;  // an at_turn_end write is pending
  EventLoop::TimerId timer_ = 0;
  std::optional<TimePoint> timer_at_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice
