#pragma once
// DelayRoute: runs a benchmark through delay links when --rtt was given. It starts a
// TCP delay link to the URL's port (and, for --http3 and --http3-only, a UDP one on
// the same port number, so that a fall-back to TCP and an HTTP/2 comparison run go
// through the link too) and rewrites the URL's port to the links' port. The host
// name stays, so certificates issued for it still verify. Every contender, ours and
// the peers, then uses the rewritten URL.
//
// Ownership: owned by main's thread for the whole subcommand; the links run in a
// process of their own (link_process.hpp) until finish() or the destructor.

#include <cstdint>
#include <optional>

#include "bench/bench_options.hpp"
#include "bench/link_process.hpp"
#include "sluice/error.hpp"

namespace sluice::bench {

class DelayRoute {
 public:
  /// Without --rtt, no link: options() are `options` unchanged. Fails (category io)
  /// when a link cannot be started.
  static Result<DelayRoute> start(const BenchOptions& options);

  DelayRoute(DelayRoute&&) noexcept = default;
  DelayRoute& operator=(DelayRoute&&) = delete;
  ~DelayRoute();

  /// The options to run with: the URL points at the links when there are any.
  const BenchOptions& options() const { return routed_; }
  /// Prints `rtt_ms` and `link_mbit` (nothing without a link).
  void print_figures() const;
  /// Stops the links and says on stderr what they carried (connections, bytes,
  /// resets, drops, their CPU time). Nothing without a link.
  void finish();

 private:
  DelayRoute() = default;
  BenchOptions routed_;
  // /proc/net/snmp's Udp RcvbufErrors when the UDP link started: datagrams the kernel
  // dropped for a full receive buffer (the client's, as a rule) count from there.
  std::optional<std::uint64_t> udp_buffer_errors_;
  std::optional<LinkProcess> links_;
};

}  // namespace sluice::bench
