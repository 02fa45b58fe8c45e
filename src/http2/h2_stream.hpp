#pragma once
// H2Stream: the exchange state of one HTTP/2 stream, kept by H2Session in a map by
// stream id (connection state and exchange state are separate types). It exists
// from submit until the exchange's last event (on_complete or on_error) or a cancel.
// Ownership: owned by H2Session; HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "http2/h2_headers.hpp"
#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "mux/stream_credit.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct H2Stream {
  H2Stream(std::int32_t id, ExchangeSink& exchange_sink, const ExchangeRequest& request,
           const WindowPolicy& policy)
      : stream_id(id),
        sink(&exchange_sink),
        body(request.body),
        credit(request.allowance.initial_bytes, request.allowance.max_bytes, policy),
        block(request.max_header_bytes) {}

  std::int32_t stream_id;
  ExchangeSink* sink;
  RequestBodySource* body;  ///< nullptr once the request body ended (or none)
  /// The allowance: the receive window (it starts at the initial allowance), what was received and
  /// credited, and whether the sink holds the stream Paused.
  StreamCredit credit;

  // Response side.
  H2HeaderBlock block;      ///< the header block being received
  bool got_head = false;    ///< the final (non-1xx) head was delivered
  std::optional<std::uint64_t> content_length;  ///< from the final head

  // Request body side.
  std::uint64_t body_sent = 0;  ///< bytes copied into DATA frames
  bool body_deferred = false;   ///< nghttp2 holds the DATA item deferred
  bool body_woken = false;      ///< the source's waker fired since the last peek

  /// Why the stream ended badly, when we know better than its RST_STREAM code says
  /// (a limit, an invalid field, a GOAWAY, the body source's own error).
  std::optional<Error> failure;
  /// The server did not process the request (GOAWAY above its last stream id, or
  /// REFUSED_STREAM): the sink hears on_unprocessed and may send it again.
  bool unprocessed = false;
};

}  // namespace sluice
