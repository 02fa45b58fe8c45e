#pragma once
// OwnerReports: what a connection that carries many exchanges (HTTP/2, HTTP/3) has
// told its ConnectionOwner, so that the owner hears of each change once: the
// connection closed, it started draining (a GOAWAY frees its place in the pool's
// per-origin limit), or it can take more exchanges than when last told. Counts alone
// can mislead (one read may bring SETTINGS lowering the limit and streams ending), so
// the owner also hears whenever an exchange ended.
// Ownership: a member of its connection; HTTP thread only.

#include <cstddef>
#include <cstdint>

#include "connection/connection.hpp"

namespace sluice {

/// The connection's state as the owner may want to hear of it.
struct OwnerView {
  bool closed = false;
  bool draining = false;
  std::size_t available = 0;  ///< exchanges it can start now
  std::uint64_t ended = 0;    ///< exchanges that ended so far
  bool early = false;         ///< takes only requests safe for early data (Connection::early)
};

class OwnerReports {
 public:
  explicit OwnerReports(ConnectionOwner& owner) : owner_(owner) {}

  /// After an event: tells the owner what changed since it last heard. The owner
  /// may start exchanges (or close `conn`) from inside the call.
  void tell(Connection& conn, const OwnerView& now);
  /// An exchange started: the owner already knows the slot is taken.
  void started(const OwnerView& now);
  /// The owner closed the connection itself: it needs no closed report.
  void owner_closed() noexcept { told_closed_ = true; }

 private:
  ConnectionOwner& owner_;
  bool told_closed_ = false;
  bool told_draining_ = false;
  std::size_t told_available_ = 0;
  std::uint64_t told_ended_ = 0;
  bool told_early_ = false;
};

}  // namespace sluice
