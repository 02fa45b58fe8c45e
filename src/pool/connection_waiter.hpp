#pragma once
// ConnectionWaiter: what the pool sees of a request waiting for a connection (the
// client's Transfer, one hop of a fetch): where it goes and how, and the two ways its
// wait ends. The pool groups waiters by origin, protocols and proxy, and calls
// exactly one of attach() or fail() for each, unless it was withdrawn first.
// Ownership: HTTP thread only; the waiter outlives its wait (it withdraws itself
// before it is destroyed).

#include <cassert>
#include <chrono>
#include <optional>

#include "connect/proxy_hop.hpp"
#include "connection/connection.hpp"
#include "sluice/error.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

/// Whether a WaiterQueue holds the waiter (pool/waiter_queue.hpp), so that a waiter
/// destroyed while the pool still points at it stops a debug build at the mistake.
/// A base of its own: a friend of ConnectionWaiter itself would make its protected
/// destructor reachable from outside.
class PoolQueueMark {
 protected:
  ~PoolQueueMark() {
    assert(!queued_ && "a ConnectionWaiter must leave the pool before it is destroyed");
  }

 private:
  friend class WaiterQueue;
  bool queued_ = false;
};

class ConnectionWaiter : public PoolQueueMark {
 public:
  virtual const Url& url() const noexcept = 0;
  virtual VersionPolicy version_policy() const noexcept = 0;
  /// The proxy this hop goes through, if any: connections are never shared across.
  virtual const std::optional<ProxyHop>& proxy_route() const noexcept = 0;
  virtual std::chrono::milliseconds tls_timeout() const noexcept = 0;
  virtual std::chrono::milliseconds connect_timeout() const noexcept = 0;
  /// Whether the request may go as 0-RTT early data (it is safe to replay).
  virtual bool safe_for_early_data() const noexcept = 0;
  /// A connection takes the request (it may fail at once, and end the wait of others).
  virtual void attach(Connection& conn) = 0;
  /// No connection could be had: the error says why.
  virtual void fail(Error error) = 0;

 protected:
  ~ConnectionWaiter() = default;
};

}  // namespace sluice
