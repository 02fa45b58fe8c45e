#pragma once
// MuxStream: what one exchange on a multiplexed connection (an HTTP/2 or HTTP/3
// request stream) keeps whatever the protocol: its sink and request body, its receive
// credit, how far the response and the request body got, and how it ended.
// H2Stream and H3Stream add only their library's bookkeeping (the header block being
// received, nghttp2's deferral, nghttp3's buffers in flight).
// Ownership: a base of the session's stream record; HTTP thread only.

#include <cstdint>
#include <optional>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "mux/stream_credit.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct MuxStream {
  MuxStream(ExchangeSink& exchange_sink, const ExchangeRequest& request, const WindowPolicy& policy)
      : sink(&exchange_sink),
        body(request.body),
        credit(request.allowance.initial_bytes, request.allowance.max_bytes, policy) {}

  ExchangeSink* sink;       ///< nullptr once the exchange ended (HTTP/3 keeps the record longer)
  RequestBodySource* body;  ///< nullptr once the request body ended (or none)
  /// The allowance: the receive window (it starts at the initial allowance), the body
  /// bytes received and credited, and whether the sink holds the stream paused.
  StreamCredit credit;

  // Response side.
  bool got_head = false;                        ///< the final (non-1xx) head was delivered
  std::optional<std::uint64_t> content_length;  ///< from the final head

  // Request body side.
  std::uint64_t body_sent = 0;  ///< bytes taken from the source
  bool body_woken = false;      ///< the source's waker fired since the last peek

  /// Why the exchange ended badly, when we know better than a reset code says (a
  /// limit, an invalid field, a GOAWAY, the body source's own error).
  std::optional<Error> failure;
  /// The server did not process the request (GOAWAY beyond the stream, or a refusal:
  /// REFUSED_STREAM, H3_REQUEST_REJECTED): the sink hears on_unprocessed and may send
  /// it again.
  bool unprocessed = false;
};

}  // namespace sluice
