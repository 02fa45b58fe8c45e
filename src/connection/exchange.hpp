#pragma once
// The protocol seam: what src/client sees of every HTTP version. A protocol reports
// an exchange's events to an ExchangeSink; src/client implements the sink.
// Ownership: HTTP thread only. Events fire from inside the connection's event
// handling; a sink may call back into its connection (resume, cancel) but must not
// destroy it from inside an event.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/response.hpp"

namespace sluice {

/// The final (non-1xx) response head as the protocol received it (the client makes the
/// public ResponseHead of it).
struct ReceivedHead {
  int status = 0;
  Headers headers;
  /// What the status line said, when it is not the connection's own version (an
  /// "HTTP/1.0" answer on an HTTP/1.1 connection).
  std::optional<HttpVersion> version;
};

class ExchangeSink {
 public:
  virtual ~ExchangeSink() = default;
  virtual void on_response_head(ReceivedHead head) = 0;
  /// Body bytes as received (content-encoded). The sink always takes them (a
  /// receive is bounded); it says through wants_body() whether more may come.
  virtual void on_body(std::span<const std::byte> bytes) = 0;
  virtual void on_trailers(Headers trailers) = 0;
  /// The body ended completely.
  virtual void on_complete() = 0;
  /// The exchange failed; no other event follows.
  virtual void on_error(Error error) = 0;
  /// The exchange failed and the server did not process the request (h2 GOAWAY
  /// above its last stream, REFUSED_STREAM, or never sent): it may be sent again on
  /// another stream or connection whatever its method. No other event follows.
  virtual void on_unprocessed(Error error) { on_error(std::move(error)); }
  /// Unprocessed because the server refused the 0-RTT early data it came in: the
  /// client's own gamble, not the server's refusal of the request, so a sink keeps
  /// a budget for it apart from on_unprocessed's.
  virtual void on_early_data_refused(Error error) { on_unprocessed(std::move(error)); }
  /// Read without locks by the transport after each receive: false pauses receiving
  /// for this exchange until the sink asks its connection to resume.
  virtual bool wants_body() const = 0;
  /// Body bytes received for this exchange and not yet taken by its consumer
  /// (staged, or waiting for the decoder). Flow-controlled protocols (h2, h3) give
  /// credit back only for bytes received minus this: the peer may send at most the
  /// allowance beyond what the consumer took.
  virtual std::size_t held_bytes() const = 0;
  /// Flow-controlled protocols (h2, h3) want to hear, through Connection::resume,
  /// once the consumer has taken `bytes` more than it had when held_bytes() was last
  /// asked (0: no report wanted). One report per call at most: the transport asks
  /// again after each look at the stream. Without it a consumer that stays below
  /// its allowance would never tell the transport that credit is owed.
  virtual void report_taken_after(std::size_t bytes) { (void)bytes; }
  /// False while a limit outside this exchange holds it back (the Client's budget
  /// for staged bytes): flow-controlled protocols then give no credit at all, even
  /// for bytes the consumer took, until the sink asks its connection to resume.
  virtual bool may_extend_window() const { return true; }
  /// The exchange's allowance (its stream's window, or over HTTP/1.1 how much the
  /// socket may deliver before reads stop) is now `bytes`: the sink holds body bytes
  /// up to it before wants_body() turns false. Told when it changes, not at the start
  /// (it starts at ExchangeRequest::allowance.initial_bytes).
  virtual void on_allowance(std::size_t bytes) { (void)bytes; }
  /// How many more body bytes the sink takes before its allowance is reached (HTTP/1.1
  /// reads no more than this at once, so an unread body holds at most its allowance).
  virtual std::size_t body_room() const { return SIZE_MAX; }
  /// Where the next body bytes, up to `max`, may be received in place: the consumer's
  /// own memory, so that they need no copy of the connection's. The transport writes
  /// there and then reports them through on_body with that very span (or a prefix);
  /// anything it does not report is not body. Empty: receive as usual.
  virtual std::span<std::byte> body_space(std::size_t max) {
    (void)max;
    return {};
  }
};

}  // namespace sluice
