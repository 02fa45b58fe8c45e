#pragma once
// H3Stream: the exchange state of one HTTP/3 request stream (MuxStream, and
// nghttp3's own), kept by H3Session in a map by QUIC stream id (connection state and
// exchange state are separate types).
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

#include "core/byte_queue.hpp"
#include "http3/h3_headers.hpp"
#include "mux/mux_stream.hpp"

namespace sluice {

struct H3Stream : MuxStream {
  H3Stream(std::int64_t id, ExchangeSink& exchange_sink, const ExchangeRequest& request,
           const WindowPolicy& policy)
      : MuxStream(exchange_sink, request, policy), stream_id(id), block(request.max_header_bytes) {}

  std::int64_t stream_id;

  /// The request's fields while nghttp3_conn_submit_request waits (a submit from
  /// inside an nghttp3 callback is deferred until the library returns).
  std::unique_ptr<H3RequestHeaders> pending_request;
  bool submitted = false;  ///< nghttp3 knows the stream
  bool shut = false;       ///< we reset it: incoming bytes are dropped, nothing is sent

  H3HeaderBlock block;  ///< the field section being received

  // Request body side. nghttp3 sends body bytes from buffers the application keeps
  // until they are acknowledged; a RequestBodySource's bytes are valid only until
  // its consume(), so each piece is copied into a block of its own here (one block
  // per read, never appended to, so the pointers nghttp3 holds stay valid) and
  // dropped as acknowledgements arrive.
  std::deque<ByteQueue> in_flight;
  std::size_t in_flight_bytes = 0;
  bool body_blocked = false;  ///< read_data returned WOULDBLOCK

  /// Unprocessed because it went in 0-RTT early data that the server refused.
  bool refused_early = false;
};

}  // namespace sluice
