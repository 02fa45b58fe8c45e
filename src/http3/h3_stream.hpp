#pragma once
// H3Stream: the exchange state of one HTTP/3 request stream, kept by H3Session in a
// map by QUIC stream id (connection state and exchange state are separate types).
//
// It has two lifetimes. The exchange runs from submit until its last sink event
// (on_complete, on_error) or a cancel: `sink` is then cleared. The record itself
// lives until the QUIC stream is closed both ways (QuicApplication::on_stream_closed),
// because nghttp3 keeps pointers into `in_flight` until the server acknowledged them
// and may still hand data for the stream to the session.
//
// Ownership: owned by H3Session; HTTP thread only.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "http3/h3_headers.hpp"
#include "core/byte_queue.hpp"
#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "mux/stream_credit.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct H3Stream {
  H3Stream(std::int64_t id, ExchangeSink& exchange_sink, const ExchangeRequest& request,
           const WindowPolicy& policy)
      : stream_id(id),
        sink(&exchange_sink),
        body(request.body),
        credit(request.allowance.initial_bytes, request.allowance.max_bytes, policy),
        block(request.max_header_bytes) {}

  std::int64_t stream_id;
  ExchangeSink* sink;       ///< nullptr once the exchange ended
  RequestBodySource* body;  ///< nullptr once the request body ended (or none)
  /// The allowance: the receive window (it starts at the initial allowance), body bytes received and
  /// credited, and whether the sink holds the stream Paused.
  StreamCredit credit;

  /// The request's fields while nghttp3_conn_submit_request waits (a submit from
  /// inside an nghttp3 callback is deferred until the library returns).
  std::unique_ptr<H3RequestHeaders> pending_request;
  bool submitted = false;  ///< nghttp3 knows the stream
  bool shut = false;       ///< we reset it: incoming bytes are dropped, nothing is sent

  // Response side.
  H3HeaderBlock block;    ///< the field section being received
  bool got_head = false;  ///< the final (non-1xx) head was delivered
  std::optional<std::uint64_t> content_length;  ///< from the final head

  // Request body side. nghttp3 sends body bytes from buffers the application keeps
  // until they are acknowledged; a RequestBodySource's bytes are valid only until
  // its consume(), so each piece is copied into a block of its own here (one block
  // per read, never appended to, so the pointers nghttp3 holds stay valid) and
  // dropped as acknowledgements arrive.
  std::deque<ByteQueue> in_flight;
  std::size_t in_flight_bytes = 0;
  std::uint64_t body_sent = 0;  ///< bytes taken from the source
  bool body_blocked = false;    ///< read_data returned WOULDBLOCK
  bool body_woken = false;      ///< the source's waker fired since the last peek

  /// Why the exchange ended badly, when we know better than a reset code says.
  std::optional<Error> failure;
  /// The server did not process the request (GOAWAY at or below its id, or
  /// H3_REQUEST_REJECTED): the sink hears on_unprocessed and may send it again.
  bool unprocessed = false;
  /// Unprocessed because it went in 0-RTT early data that the server refused.
  bool refused_early = false;
};

}  // namespace sluice
