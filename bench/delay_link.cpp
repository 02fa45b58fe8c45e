// What the TCP and UDP delay links share outside their threads: counter snapshots,
// and starting the pair on one port.

#include "bench/delay_link.hpp"

#include <utility>

namespace sluice::bench {
namespace {

// A UDP port the kernel picked may be taken for TCP; a few tries find one free for both.
constexpr int kPortAttempts = 20;

}  // namespace

LinkCounters LinkCounterCells::snapshot() const {
  constexpr auto relaxed = std::memory_order_relaxed;
  return LinkCounters{connections.load(relaxed), bytes_to_server.load(relaxed),
                      bytes_to_client.load(relaxed), resets.load(relaxed), dropped.load(relaxed)};
}

Result<DelayLinks> start_delay_links(std::uint16_t target_port, LinkShape shape, bool with_udp) {
  if (!with_udp) {
    Result<std::unique_ptr<TcpDelayLink>> tcp = TcpDelayLink::start(target_port, shape);
    if (!tcp) return std::move(tcp).error();
    return DelayLinks{std::move(*tcp), nullptr};
  }
  Error last = Error(ErrorCategory::io, "delay link: no port free for both TCP and UDP");
  for (int attempt = 0; attempt < kPortAttempts; ++attempt) {
    Result<std::unique_ptr<UdpDelayLink>> udp = UdpDelayLink::start(target_port, shape);
    if (!udp) return std::move(udp).error();
    Result<std::unique_ptr<TcpDelayLink>> tcp =
        TcpDelayLink::start(target_port, shape, (*udp)->port());
    if (tcp) return DelayLinks{std::move(*tcp), std::move(*udp)};
    last = std::move(tcp).error();
  }
  return last;
}

}  // namespace sluice::bench
