#pragma once
// H2Stream: the exchange state of one HTTP/2 stream (MuxStream, and nghttp2's own),
// kept by H2Session in a map by stream id (connection state and exchange state are
// separate types). It exists from submit until the exchange's last event
// (on_complete or on_error) or a cancel.
// Ownership: owned by H2Session; HTTP thread only.

#include <cstdint>

#include "http2/h2_headers.hpp"
#include "mux/mux_stream.hpp"

namespace sluice {

struct H2Stream : MuxStream {
  H2Stream(std::int32_t id, ExchangeSink& exchange_sink, const ExchangeRequest& request,
           const WindowPolicy& policy)
      : MuxStream(exchange_sink, request, policy), stream_id(id), block(request.max_header_bytes) {}

  std::int32_t stream_id;
  H2HeaderBlock block;         ///< the header block being received
  bool body_deferred = false;  ///< nghttp2 holds the DATA item deferred
};

}  // namespace sluice
