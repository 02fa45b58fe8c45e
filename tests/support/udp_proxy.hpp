#pragma once
// UdpProxy: a UDP relay between one client and a target (a QUIC server) that drops,
// delays, duplicates and reorders datagrams, or swallows them all (a blocked UDP
// path), so that HTTP/3 tests see a hostile network on loopback.
// Listens on 127.0.0.1:<free port>; what arrives there goes to the target from one
// upstream socket, and what the target sends back goes to the client address that
// sent last (one client at a time: a new client socket takes over the replies).
// Faults apply to both directions, each datagram deciding independently with a
// seeded PRNG, so a run is repeatable for the same sequence of datagrams.
// Thread-safety: constructed and destroyed on the test thread; the relay runs on its
// own thread; set_black_hole, set_options and counters may be called from any
// thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace sluice::test {

struct UdpProxyOptions {
  double drop_probability = 0.0;       ///< each datagram is lost with this probability
  double duplicate_probability = 0.0;  ///< each forwarded datagram is sent twice
  /// Each datagram is held back with this probability and sent right after the next
  /// one of the same direction (or after reorder_hold_limit when none comes).
  double reorder_probability = 0.0;
  std::chrono::microseconds reorder_hold_limit{std::chrono::milliseconds(50)};
  std::chrono::microseconds delay{0};   ///< added to every datagram, one way
  std::chrono::microseconds jitter{0};  ///< plus a uniform [0, jitter] per datagram
  std::uint64_t seed = 1;
};

/// Counts since construction. forwarded counts datagrams sent out (a duplicate's two
/// copies count two); dropped includes black-holed ones and replies that arrived
/// before any client had sent.
struct UdpProxyCounters {
  std::uint64_t received = 0;
  std::uint64_t forwarded = 0;
  std::uint64_t dropped = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t reordered = 0;
};

class UdpProxy {
 public:
  /// Relays to target_address (numeric IPv4 or IPv6, e.g. "127.0.0.1", "::1") and
  /// target_port. Throws std::runtime_error when a socket cannot be set up.
  UdpProxy(const std::string& target_address, std::uint16_t target_port,
           UdpProxyOptions options = {});
  ~UdpProxy();  ///< stops and joins the relay thread, closes the sockets
  UdpProxy(const UdpProxy&) = delete;
  UdpProxy& operator=(const UdpProxy&) = delete;

  /// The port on 127.0.0.1 where clients send.
  std::uint16_t port() const noexcept;

  /// On: every datagram, either way, is dropped (and counted) until switched off.
  void set_black_hole(bool on) noexcept;
  /// Replaces the fault options from the next datagram on; the PRNG is reseeded
  /// only when the seed changes.
  void set_options(const UdpProxyOptions& options);
  UdpProxyCounters counters() const noexcept;
  /// Waits until `done` holds for the counters, checked each time the relay moved
  /// them; false when it did not within `deadline` (a hang guard, not a pace).
  bool wait_for_counters(const std::function<bool(const UdpProxyCounters&)>& done,
                         std::chrono::milliseconds deadline = std::chrono::seconds(10));

 private:
  class Relay;
  std::unique_ptr<Relay> relay_;
};

}  // namespace sluice::test
