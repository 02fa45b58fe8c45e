#pragma once
// HopExchange: the exchange of a fetch's current hop on its connection. It knows
// which connection the pool handed over, the exchange's id there, and whether that
// connection had served before; it does the three things a fetch does to a running
// exchange (start, resume, abandon) and forgets the connection when the exchange
// reports its end.
//
// A start may fail inside the connection, and the fetch may then retry on another
// connection before start() returns: the id is kept only when no other attach came
// in between, so a later resume or abandon never reaches a stale exchange.
// Ownership: a member of its Transfer; HTTP thread only.

#include <cstdint>
#include <utility>

#include "connection/connection.hpp"

namespace sluice {

class HopExchange {
 public:
  /// The pool handed `conn` over for this hop.
  void attach(Connection& conn) {
    conn_ = &conn;
    id_ = kNoExchange;
    reused_ = conn.was_reused();
    ++attaches_;
  }
  /// Starts `request` on the attached connection, `sink` hearing its events.
  void start(ExchangeRequest request, ExchangeSink& sink) {
    Connection& conn = *conn_;
    const std::uint64_t attach = attaches_;
    const ExchangeId id = conn.start(std::move(request), sink);
    if (attach == attaches_ && conn_ == &conn) id_ = id;
  }
  /// The exchange reported its end (complete, error, unprocessed): nothing is left
  /// to cancel.
  void ended() {
    conn_ = nullptr;
    id_ = kNoExchange;
  }
  /// Cancels a running exchange (HTTP/1.1 closes its connection; h2 and h3 reset the
  /// stream). Nothing when none runs.
  void abandon() {
    if (conn_ == nullptr) return;
    Connection* conn = std::exchange(conn_, nullptr);
    conn->cancel(std::exchange(id_, kNoExchange));
  }
  /// The reader caught up: the connection may receive for this exchange again.
  void resume() {
    if (conn_ != nullptr) conn_->resume(id_);
  }

  /// The connection while the exchange runs; null before attach and after its end.
  Connection* connection() const noexcept { return conn_; }
  bool running() const noexcept { return conn_ != nullptr; }
  /// The connection had served an exchange before this one (a pooled connection the
  /// server may have closed meanwhile).
  bool reused() const noexcept { return reused_; }
  /// The connection itself is gone (not only this exchange's stream).
  bool connection_died() const noexcept { return conn_ != nullptr && conn_->is_closed(); }

 private:
  Connection* conn_ = nullptr;
  ExchangeId id_ = kNoExchange;  // the exchange on conn_
  std::uint64_t attaches_ = 0;   // a start that retried inside is not ours
  bool reused_ = false;
};

}  // namespace sluice
