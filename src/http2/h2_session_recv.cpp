// H2Session, receiving: the nghttp2 callbacks for frames from the server, turned into
// ExchangeSink events (see h2_session.hpp).
//
// Ownership: HTTP thread only. Every sink call may re-enter the session (cancel,
// resume, submit), so a stream is looked up again by id after each one.

#include <charconv>
#include <string>

#include "http2/h2_frame_errors.hpp"
#include "http2/h2_headers.hpp"
#include "http2/h2_session.hpp"

namespace sluice {
namespace {

// Text from the wire shown in an error message: printable ASCII only, bounded.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 200)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

}  // namespace

Result<H2Session::Verdict> H2Session::on_begin_headers(const nghttp2_frame& frame) {
  if (frame.hd.type != NGHTTP2_HEADERS) return Verdict::proceed;
  if (H2Stream* stream = find(frame.hd.stream_id)) stream->block.reset();
  return Verdict::proceed;
}

Result<H2Session::Verdict> H2Session::on_header(const nghttp2_frame& frame, std::string_view name,
                                                std::string_view value) {
  if (frame.hd.type != NGHTTP2_HEADERS) return Verdict::proceed;
  H2Stream* stream = find(frame.hd.stream_id);
  if (stream == nullptr) return Verdict::proceed;
  auto added = stream->block.add(name, value);
  if (added) return Verdict::proceed;
  if (!stream->failure) stream->failure = std::move(added).error();
  return Verdict::reset_stream;  // nghttp2 resets the stream and skips the rest
}

Result<H2Session::Verdict> H2Session::on_invalid_header(const nghttp2_frame& frame,
                                                        std::string_view name) {
  H2Stream* stream = find(frame.hd.stream_id);
  if (stream == nullptr) return Verdict::proceed;
  if (!stream->failure) {
    stream->failure = Error(ErrorCategory::protocol,
                            "HTTP/2: invalid header field '" + printable(name) +
                                "' from server on stream " + std::to_string(frame.hd.stream_id));
  }
  return Verdict::reset_stream;
}

Result<H2Session::Verdict> H2Session::on_frame_recv(const nghttp2_frame& frame) {
  switch (frame.hd.type) {
    case NGHTTP2_HEADERS: return on_headers_frame(frame);
    case NGHTTP2_DATA:
      // nghttp2 calls this for END_STREAM only once the content-length check passed.
      if (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) finish_stream(frame.hd.stream_id);
      return Verdict::proceed;
    case NGHTTP2_RST_STREAM:
      if (trace_.on()) {
        trace_stream(frame.hd.stream_id,
                     "RST_STREAM received (" + h2_error_name(frame.rst_stream.error_code) + ")");
      }
      return Verdict::proceed;
    case NGHTTP2_GOAWAY: on_goaway(frame); return Verdict::proceed;
    case NGHTTP2_PING:
      if (frame.hd.flags & NGHTTP2_FLAG_ACK) on_ping_ack(frame);
      return Verdict::proceed;
    case NGHTTP2_SETTINGS:
      if (frame.hd.flags & NGHTTP2_FLAG_ACK) {
        on_settings_ack();
        return Verdict::proceed;
      }
      if (trace_.on()) {
        trace_conn("SETTINGS from server: max concurrent streams " +
                   std::to_string(nghttp2_session_get_remote_settings(
                       session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)) +
                   ", initial window " +
                   std::to_string(nghttp2_session_get_remote_settings(
                       session_, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE)));
      }
      return Verdict::proceed;
    default: return Verdict::proceed;
  }
}

Result<H2Session::Verdict> H2Session::on_headers_frame(const nghttp2_frame& frame) {
  const std::int32_t stream_id = frame.hd.stream_id;
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return Verdict::proceed;
  const bool end = (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (!stream->got_head) {
    const std::optional<int> status = stream->block.status();
    if (!status) {
      // nghttp2's messaging checks catch this first; kept so a head is never empty.
      nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_PROTOCOL_ERROR);
      fail_stream(stream_id,
                  Error(ErrorCategory::protocol,
                        "HTTP/2: response without :status on stream " + std::to_string(stream_id)));
      return Verdict::proceed;
    }
    if (*status < 200) {
      if (trace_.on()) trace_stream(stream_id, "interim response " + std::to_string(*status));
      stream->block.reset();
      return Verdict::proceed;
    }
    deliver_head(*stream, *status);
  } else {
    Headers trailers = stream->block.take_fields();
    if (trace_.on())
      trace_stream(stream_id, "trailers (" + std::to_string(trailers.size()) + " fields)");
    stream->sink->on_trailers(std::move(trailers));
  }
  if (end) finish_stream(stream_id);
  return Verdict::proceed;
}

void H2Session::deliver_head(H2Stream& stream, int status) {
  stream.got_head = true;
  Headers fields = stream.block.take_fields();
  stream.content_length = content_length_of(fields);
  if (trace_.on()) trace_stream(stream.stream_id, "response " + std::to_string(status));
  stream.sink->on_response_head(ReceivedHead{status, std::move(fields), std::nullopt});
}

void H2Session::finish_stream(std::int32_t stream_id) {
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  // The response is complete while the request body is not: the exchange ends now,
  // so the source (which the caller may free) must not be read any more.
  const bool body_unfinished = stream->body != nullptr;
  if (trace_.on()) {
    trace_stream(stream_id, "exchange complete (" + std::to_string(stream->credit.received()) +
                                " body bytes)");
  }
  ExchangeSink* sink = detach(stream_id);
  if (body_unfinished) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
  }
  sink->on_complete();
}

Result<H2Session::Verdict> H2Session::on_data_chunk(std::int32_t stream_id,
                                                    std::span<const std::byte> bytes) {
  // The connection window comes back at once, whoever holds the bytes: one held
  // stream must not stall its siblings.
  const int rv = nghttp2_session_consume_connection(session_, bytes.size());
  if (rv != 0) return fatal_error(rv, "returning connection window");
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return Verdict::proceed;  // cancelled: the bytes go nowhere
  const TimePoint now = time_.now();               // one clock read per DATA frame
  streams_.deliver_body(*stream, bytes, now);
  maybe_probe_rtt(now);
  return Verdict::proceed;
}

Result<H2Session::Verdict> H2Session::on_stream_close(std::int32_t stream_id,
                                                      std::uint32_t error_code) {
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return Verdict::proceed;
  std::optional<Error> error = std::move(stream->failure);
  if (!error && error_code == NGHTTP2_NO_ERROR) {
    error =
        Error(ErrorCategory::protocol, "HTTP/2: server closed stream " + std::to_string(stream_id) +
                                           " (NO_ERROR) before the response ended");
  } else if (!error) {
    // RFC 9113 8.7: REFUSED_STREAM means no application processing took place.
    if (error_code == NGHTTP2_REFUSED_STREAM) stream->unprocessed = true;
    error =
        Error(ErrorCategory::protocol, "HTTP/2: stream " + std::to_string(stream_id) +
                                           " reset by server (" + h2_error_name(error_code) + ")");
  }
  fail_stream(stream_id, std::move(*error));
  return Verdict::proceed;
}

// nghttp2 ends the connection (frames on stream 0) or resets the stream after this
// callback; the error says which frame was wrong and how, and the code it ends with.
Result<H2Session::Verdict> H2Session::on_invalid_frame(const nghttp2_frame& frame,
                                                       int lib_error_code) {
  const std::string code = h2_error_name(h2_code_for_library_error(lib_error_code));
  const std::string type = h2_frame_type_name(frame.hd.type);
  // These end the connection whatever stream they name: SETTINGS, PING and GOAWAY
  // belong on stream 0, and a PUSH_PROMISE names the stream it would push beside.
  const bool connection_frame = frame.hd.stream_id == 0 || frame.hd.type == NGHTTP2_SETTINGS ||
                                frame.hd.type == NGHTTP2_PING || frame.hd.type == NGHTTP2_GOAWAY ||
                                frame.hd.type == NGHTTP2_PUSH_PROMISE;
  if (connection_frame) {
    std::string what;
    if (frame.hd.type == NGHTTP2_PUSH_PROMISE) {
      what = "server push on stream " + std::to_string(frame.hd.stream_id) +
             ", which sluice turned off (SETTINGS_ENABLE_PUSH 0)";
    } else if (frame.hd.stream_id != 0) {
      what = "sent on stream " + std::to_string(frame.hd.stream_id) + "; it must be on stream 0";
    } else {
      what = describe_invalid_frame(frame, lib_error_code);
    }
    if (!terminal_error_) {
      terminal_error_ = Error(ErrorCode::http2_framing, "HTTP/2: server sent an invalid " + type +
                                                            " frame: " + what + " (" + code +
                                                            "); the connection was closed");
    }
    return Verdict::proceed;
  }
  H2Stream* stream = find(frame.hd.stream_id);
  if (stream == nullptr || stream->failure) return Verdict::proceed;
  const std::string on_stream = " on stream " + std::to_string(frame.hd.stream_id);
  if (frame.hd.type == NGHTTP2_HEADERS || frame.hd.type == NGHTTP2_DATA) {
    stream->failure =
        Error(ErrorCode::http2_framing, "HTTP/2: invalid response from server" + on_stream + ": " +
                                            nghttp2_strerror(lib_error_code));
  } else {
    stream->failure = Error(ErrorCode::http2_framing,
                            "HTTP/2: server sent an invalid " + type + " frame" + on_stream + ": " +
                                describe_invalid_frame(frame, lib_error_code) + " (" + code +
                                "); the stream was reset");
  }
  return Verdict::proceed;
}

// Streams above last_stream_id were never processed: they may be retried elsewhere.
// nghttp2 closes them (REFUSED_STREAM) right after this callback; the ones below go
// on, and the session takes no new streams.
void H2Session::on_goaway(const nghttp2_frame& frame) {
  goaway_received_ = true;
  goaway_last_stream_ = frame.goaway.last_stream_id;
  goaway_code_ = frame.goaway.error_code;
  goaway_debug_ = printable(std::string_view(
      reinterpret_cast<const char*>(frame.goaway.opaque_data), frame.goaway.opaque_data_len));
  if (trace_.on()) {
    trace_conn("GOAWAY received: last stream " + std::to_string(goaway_last_stream_) + " (" +
               h2_error_name(goaway_code_) +
               (goaway_debug_.empty() ? std::string() : ": " + goaway_debug_) + ")");
  }
  for (auto& entry : streams_) {
    H2Stream& stream = entry.second;
    if (stream.stream_id <= goaway_last_stream_) continue;
    stream.unprocessed = true;
    goaway_refused_streams_ = true;
    if (!stream.failure) stream.failure = goaway_error(stream.stream_id);
  }
}

// nghttp2 applies our SETTINGS_INITIAL_WINDOW_SIZE to open streams when the server
// acknowledges it; a stream with its own initial allowance is set again after that.
void H2Session::on_settings_ack() {
  settings_acked_ = true;
  for (const auto& entry : streams_) apply_initial_window(entry.second);
}

}  // namespace sluice
