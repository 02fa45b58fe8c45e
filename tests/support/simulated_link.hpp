#pragma once
// SimulatedLink: a network path between a client DatagramCodec (QuicCodec) and an
// in-process server endpoint, on a ManualClock: each datagram takes the one-way
// delay, some are lost (a seeded generator, so a run is the same every time), some
// are reordered (held back by extra delay). It is the client's DatagramPort, as a
// DatagramDriver is over a real socket, and it is the scheduler: run_until() moves
// the clock straight to the next thing due (a datagram arriving, a deadline of either
// side), so seconds of retransmission timers and a 50 ms round trip run in no real
// time, and always the same way. ngtcp2's own tests work like this.
// Ownership: one test, one thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "net/datagram_driver.hpp"
#include "support/manual_clock.hpp"

namespace sluice::test {

/// What the link does to every datagram, each direction alike.
struct LinkProfile {
  std::chrono::microseconds one_way_delay{0};
  /// Chance that a datagram is lost, in percent (0 to 100).
  double loss_percent = 0;
  /// Chance that a datagram is held back by `reorder_delay` on top of the delay, so
  /// that later ones overtake it, in percent.
  double reorder_percent = 0;
  std::chrono::microseconds reorder_delay{0};
  /// Datagrams the link drops with `drop_from_client` / `drop_from_server` returning
  /// true never arrive (a scripted loss, beside the random one).
  std::function<bool(std::size_t index)> drop_from_client;
  std::function<bool(std::size_t index)> drop_from_server;
  std::uint32_t seed = 1;
};

/// The server side as the link sees it (QuicTestServer has this shape).
class LinkServer {
 public:
  virtual ~LinkServer() = default;
  virtual void receive(std::span<const std::uint8_t> datagram, TimePoint now) = 0;
  virtual std::vector<std::vector<std::uint8_t>> send(TimePoint now) = 0;
  virtual std::optional<TimePoint> next_expiry() const = 0;
  virtual void on_expiry(TimePoint now) = 0;
};

class SimulatedLink final : public DatagramPort {
 public:
  SimulatedLink(ManualClock& clock, LinkProfile profile);

  /// Both sides; the client is the codec this link is the port of.
  void attach(DatagramCodec& client, LinkServer& server);

  /// Runs the two sides until `done()` holds (true) or nothing is left to happen or
  /// `limit` of simulated time passed (false).
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds limit = std::chrono::minutes(1));

  // DatagramPort (the client's)
  TimePoint now() const override { return clock_.now(); }
  void request_write() override { write_wanted_ = true; }
  bool send_now(std::span<const std::uint8_t> datagram) override;
  void close() override { closed_ = true; }

  bool closed() const noexcept { return closed_; }
  std::size_t sent_by_client() const noexcept { return client_index_; }
  std::size_t sent_by_server() const noexcept { return server_index_; }
  std::size_t lost() const noexcept { return lost_; }
  std::size_t reordered() const noexcept { return reordered_; }

 private:
  struct InFlight {
    TimePoint arrives;
    bool to_server;
    std::vector<std::uint8_t> bytes;
  };
  void step();
  void write_client();
  void write_server();
  void launch(std::vector<std::uint8_t> bytes, bool to_server);
  std::optional<TimePoint> next_event() const;
  void deliver_due();
  void fire_due_deadlines();

  ManualClock& clock_;
  LinkProfile profile_;
  std::mt19937 random_;
  DatagramCodec* client_ = nullptr;
  LinkServer* server_ = nullptr;
  DatagramBatch batch_;
  std::vector<InFlight> in_flight_;
  bool write_wanted_ = true;
  bool closed_ = false;
  std::size_t client_index_ = 0;
  std::size_t server_index_ = 0;
  std::size_t lost_ = 0;
  std::size_t reordered_ = 0;
};

}  // namespace sluice::test
