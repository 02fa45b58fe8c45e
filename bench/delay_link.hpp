#pragma once
// Delay links: in-process proxies on 127.0.0.1 that forward to a local server after
// a one-way delay in each direction (and, optionally, no faster than a rate), so
// that a benchmark measures through a real round-trip time, not only loopback.
//
// They model a long fat pipe: every byte is read from either side as soon as it
// arrives and buffered in user space until it is due, so nothing but the end points'
// own limits (an HTTP/2 or QUIC flow-control window, a congestion controller) holds
// a sender back. The TCP connection between a client and the link is loopback, so
// TCP's own receive window never limits anything: the links say nothing about what
// a real TCP window would do (HTTP/1.1 is then only bounded by the delay).
//
// Ownership: each link is owned by whoever starts it (sluice-bench starts them in a
// process of their own, see link_process.hpp) and runs one thread of its own with
// every socket; start(), port() and the destructor from the owner's thread,
// counters() from any thread.

#include <atomic>
#include <cstdint>
#include <memory>

#include "bench/link_queue.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

/// What a link has carried so far. Any thread (relaxed atomics).
struct LinkCounters {
  std::uint64_t connections = 0;  ///< TCP connections accepted; UDP client addresses seen
  std::uint64_t bytes_to_server = 0;
  std::uint64_t bytes_to_client = 0;
  std::uint64_t resets = 0;   ///< TCP connections ended by a reset or an error
  std::uint64_t dropped = 0;  ///< UDP datagrams dropped (backlog over its cap, send failed)
};

/// The counters a link's thread updates and anyone may read.
struct LinkCounterCells {
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> bytes_to_server{0};
  std::atomic<std::uint64_t> bytes_to_client{0};
  std::atomic<std::uint64_t> resets{0};
  std::atomic<std::uint64_t> dropped{0};

  LinkCounters snapshot() const;
};

/// A TCP delay proxy. Accepts any number of connections; for each it connects to
/// 127.0.0.1:target_port and forwards both ways, each chunk written once due. A
/// half-close (FIN) is forwarded after the bytes before it; a reset or an error
/// closes both sides. The link's own connect() to the target is not delayed, and the
/// client's connect() to the link completes at once: a new connection's TCP
/// handshake costs no round trip (TLS and QUIC handshakes cost theirs).
class TcpDelayLink {
 public:
  /// Listens on 127.0.0.1:listen_port (0: an ephemeral port) and starts its thread.
  /// Fails (category io) when the port is taken or a socket cannot be made.
  static Result<std::unique_ptr<TcpDelayLink>> start(std::uint16_t target_port, LinkShape shape,
                                                     std::uint16_t listen_port = 0);
  /// Stops the thread and closes every socket (open connections are reset).
  ~TcpDelayLink();
  TcpDelayLink(const TcpDelayLink&) = delete;
  TcpDelayLink& operator=(const TcpDelayLink&) = delete;

  std::uint16_t port() const noexcept;
  LinkCounters counters() const;

  class Relay;  // tcp_delay_link.cpp

 private:
  explicit TcpDelayLink(std::unique_ptr<Relay> relay);
  std::unique_ptr<Relay> relay_;
};

/// A UDP delay proxy. For each client address it opens an upstream socket
/// connected to 127.0.0.1:target_port; every datagram is forwarded as one datagram
/// once due, in each direction. Datagrams beyond a backlog cap are dropped, as a
/// router's full queue would.
class UdpDelayLink {
 public:
  /// Binds 127.0.0.1:listen_port (0: an ephemeral port) and starts its thread.
  static Result<std::unique_ptr<UdpDelayLink>> start(std::uint16_t target_port, LinkShape shape,
                                                     std::uint16_t listen_port = 0);
  ~UdpDelayLink();
  UdpDelayLink(const UdpDelayLink&) = delete;
  UdpDelayLink& operator=(const UdpDelayLink&) = delete;

  std::uint16_t port() const noexcept;
  LinkCounters counters() const;

  class Relay;  // udp_delay_link.cpp

 private:
  explicit UdpDelayLink(std::unique_ptr<Relay> relay);
  std::unique_ptr<Relay> relay_;
};

/// The links in front of one server port: always TCP, and UDP too when asked, then
/// on the same port number as the TCP one (a URL names one port for both). Owned by
/// whoever started them; destroying it stops both.
struct DelayLinks {
  std::unique_ptr<TcpDelayLink> tcp;
  std::unique_ptr<UdpDelayLink> udp;  ///< null unless with_udp

  std::uint16_t port() const noexcept { return tcp->port(); }
};

/// Starts the links to 127.0.0.1:target_port. Fails (category io) when a link cannot
/// start or no port is free for both TCP and UDP after a few tries.
Result<DelayLinks> start_delay_links(std::uint16_t target_port, LinkShape shape, bool with_udp);

}  // namespace sluice::bench
