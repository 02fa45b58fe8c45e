// H2Session, sending: request bodies pulled through nghttp2's data provider, and the
// callbacks for frames we sent or could not send (see h2_session.hpp).
//
// Ownership: HTTP thread only.

#include <climits>
#include <cstring>
#include <string>

#include "http2/h2_headers.hpp"
#include "http2/h2_session.hpp"

namespace sluice {
namespace {

std::string stream_name(std::int32_t stream_id) { return "stream " + std::to_string(stream_id); }

// What a connection error we detected means, for the person reading the error.
std::string connection_error_meaning(std::uint32_t error_code) {
  switch (error_code) {
    case NGHTTP2_FLOW_CONTROL_ERROR:
      return "the server sent more data than the connection's flow-control window allows";
    case NGHTTP2_COMPRESSION_ERROR:
      return "the server's header block could not be decoded (HPACK state broken, or a "
             "header field too large)";
    case NGHTTP2_FRAME_SIZE_ERROR: return "the server sent a frame larger than allowed";
    case NGHTTP2_PROTOCOL_ERROR: return "the server broke the HTTP/2 protocol";
    case NGHTTP2_ENHANCE_YOUR_CALM: return "the server sent more than sluice accepts";
    default: return "the connection failed";
  }
}

}  // namespace

Result<H2Session::Verdict> H2Session::on_frame_send(const nghttp2_frame& frame) {
  switch (frame.hd.type) {
    case NGHTTP2_HEADERS:
      // The stream exists in nghttp2 only from here on, so its window is set now.
      if (frame.headers.cat == NGHTTP2_HCAT_REQUEST) {
        if (const H2Stream* stream = find(frame.hd.stream_id)) apply_initial_window(*stream);
      }
      return Verdict::proceed;
    case NGHTTP2_RST_STREAM: {
      const std::uint32_t code = frame.rst_stream.error_code;
      if (trace_.on())
        trace_stream(frame.hd.stream_id, "RST_STREAM sent (" + h2_error_name(code) + ")");
      H2Stream* stream = find(frame.hd.stream_id);
      if (stream != nullptr && !stream->failure) stream->failure = own_reset_error(*stream, code);
      return Verdict::proceed;
    }
    case NGHTTP2_GOAWAY: {
      const std::uint32_t code = frame.goaway.error_code;
      const std::string debug(reinterpret_cast<const char*>(frame.goaway.opaque_data),
                              frame.goaway.opaque_data_len);
      if (trace_.on()) {
        trace_conn("GOAWAY sent (" + h2_error_name(code) + (debug.empty() ? "" : ": " + debug) +
                   ")");
      }
      if (code != NGHTTP2_NO_ERROR && !terminal_error_) {
        terminal_error_ =
            Error(ErrorCategory::protocol,
                  "HTTP/2: " + connection_error_meaning(code) + " (" + h2_error_name(code) +
                      (debug.empty() ? "" : ": " + debug) + "); the connection was closed");
      }
      return Verdict::proceed;
    }
    case NGHTTP2_PING:
      if (trace_.on() && !(frame.hd.flags & NGHTTP2_FLAG_ACK)) trace_conn("PING sent");
      return Verdict::proceed;
    default: return Verdict::proceed;
  }
}

Result<H2Session::Verdict> H2Session::on_frame_not_send(const nghttp2_frame& frame,
                                                        int lib_error_code) {
  if (frame.hd.type != NGHTTP2_HEADERS || frame.headers.cat != NGHTTP2_HCAT_REQUEST) {
    return Verdict::proceed;
  }
  const std::int32_t stream_id = frame.hd.stream_id;
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return Verdict::proceed;
  // The request never left because the connection is going away: another one may take
  // it. A request nghttp2 refuses for itself (a header block too large) would fail
  // again anywhere.
  stream->unprocessed = lib_error_code == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED ||
                        lib_error_code == NGHTTP2_ERR_STREAM_CLOSING ||
                        lib_error_code == NGHTTP2_ERR_SESSION_CLOSING || goaway_received_;
  Error error = stream->failure ? *stream->failure
                : goaway_received_
                    ? goaway_error(stream_id)
                    : Error(ErrorCategory::protocol, "HTTP/2: could not send the request on " +
                                                         stream_name(stream_id) + ": " +
                                                         nghttp2_strerror(lib_error_code));
  fail_stream(stream_id, std::move(error));
  return Verdict::proceed;
}

Error H2Session::own_reset_error(const H2Stream& stream, std::uint32_t error_code) const {
  const std::string name = stream_name(stream.stream_id);
  switch (error_code) {
    case NGHTTP2_FLOW_CONTROL_ERROR:
      return Error(ErrorCategory::protocol,
                   "HTTP/2: server sent more data on " + name +
                       " than its flow-control window allows (FLOW_CONTROL_ERROR); the stream "
                       "was reset");
    case NGHTTP2_PROTOCOL_ERROR: {
      // nghttp2 resets silently when a body does not match its content-length.
      std::optional<std::uint64_t> declared = stream.content_length;
      if (declared) {
        return Error(ErrorCategory::protocol,
                     "HTTP/2: response body on " + name + " does not match its content-length (" +
                         std::to_string(*declared) + " bytes declared, " +
                         std::to_string(stream.credit.received()) +
                         " received before the server ended or overran it); the stream was reset");
      }
      return Error(ErrorCategory::protocol, "HTTP/2: server broke HTTP messaging rules on " + name +
                                                " (PROTOCOL_ERROR); the stream was reset");
    }
    case NGHTTP2_CANCEL:
      return Error(ErrorCategory::cancelled, "HTTP/2: " + name + " was cancelled");
    default:
      return Error(ErrorCategory::protocol,
                   "HTTP/2: sluice reset " + name + " (" + h2_error_name(error_code) + ")");
  }
}

Error H2Session::goaway_error(std::int32_t stream_id) const {
  return Error(ErrorCategory::protocol,
               "HTTP/2: GOAWAY: server sent GOAWAY before processing the request on " +
                   stream_name(stream_id) + " (it was not processed: safe to send again)");
}

// A stream whose initial allowance differs from SETTINGS_INITIAL_WINDOW_SIZE gets its
// own window.
// Lowering it takes effect as the server's earlier allowance is used up (nghttp2
// withholds WINDOW_UPDATE for the difference). Until the server acknowledges our
// SETTINGS it counts from the protocol default; when ours is the same, the stream's
// window holds at once, otherwise only after the acknowledgement.
void H2Session::apply_initial_window(const H2Stream& stream) {
  if (!settings_acked_ && options_.stream_window != NGHTTP2_INITIAL_WINDOW_SIZE) return;
  if (stream.credit.window() == options_.stream_window) return;
  const auto window = static_cast<std::int32_t>(
      std::min<std::uint64_t>(stream.credit.window(), static_cast<std::uint64_t>(INT32_MAX)));
  const int rv =
      nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, stream.stream_id, window);
  if (trace_.on()) {
    trace_stream(stream.stream_id,
                 rv == 0 ? "window set to the initial allowance, " + std::to_string(window)
                         : std::string("window not set: ") + nghttp2_strerror(rv));
  }
}

// nghttp2's data provider: copies the next piece of the request body into its frame
// buffer. `into` is at most what the peer's window and the frame size allow.
Result<ssize_t> H2Session::read_body(std::int32_t stream_id, std::span<std::uint8_t> into,
                                     std::uint32_t& data_flags) {
  H2Stream* stream = find(stream_id);
  if (stream == nullptr || stream->body == nullptr) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  const std::optional<std::uint64_t> length = stream->body->length();
  if (length && stream->body_sent >= *length) {
    data_flags |= NGHTTP2_DATA_FLAG_EOF;
    end_body(*stream);
    return 0;
  }
  stream->body_woken = false;
  SourceChunk chunk = stream->body->peek(into.size());
  switch (chunk.state) {
    case SourceChunk::State::waiting: stream->body_deferred = true; return NGHTTP2_ERR_DEFERRED;
    case SourceChunk::State::failed:
      stream->failure =
          chunk.error ? *chunk.error : Error(ErrorCategory::io, "HTTP/2: the request body failed");
      return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // nghttp2 resets the stream
    case SourceChunk::State::end:
      if (length && stream->body_sent < *length) {
        stream->failure =
            Error(ErrorCategory::io, "HTTP/2: the request body ended after " +
                                         std::to_string(stream->body_sent) + " of its " +
                                         std::to_string(*length) + " bytes");
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
      }
      data_flags |= NGHTTP2_DATA_FLAG_EOF;
      end_body(*stream);
      return 0;
    case SourceChunk::State::data: break;
  }
  if (chunk.bytes.empty()) {  // nothing after all: wait for the waker, do not spin
    stream->body_deferred = true;
    return NGHTTP2_ERR_DEFERRED;
  }
  const std::size_t n = std::min(into.size(), chunk.bytes.size());
  std::memcpy(into.data(), chunk.bytes.data(), n);
  stream->body->consume(n);
  stream->body_sent += n;
  if (length && stream->body_sent >= *length) {
    data_flags |= NGHTTP2_DATA_FLAG_EOF;
    end_body(*stream);
  }
  return static_cast<ssize_t>(n);
}

void H2Session::end_body(H2Stream& stream) {
  if (stream.body == nullptr) return;
  stream.body->set_waker([] {});
  stream.body = nullptr;
  if (trace_.on()) {
    trace_stream(stream.stream_id,
                 "request body sent (" + std::to_string(stream.body_sent) + " bytes)");
  }
}

void H2Session::wake_body(std::int32_t stream_id) {
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  stream->body_woken = true;
  bodies_woken_ = true;
  if (!in_library_) resume_woken_bodies();
  if (on_output_ready_) on_output_ready_();
}

// Resumes bodies outside nghttp2's own calls: a waker may fire inside peek(), before
// the DATA item is deferred, when resume_data would not find it deferred yet; then
// the next drain_output resumes it (wants_write() says there is output).
void H2Session::resume_woken_bodies() {
  if (!bodies_woken_) return;
  for (auto& entry : streams_) {
    H2Stream& stream = entry.second;
    if (!stream.body_deferred || !stream.body_woken) continue;
    stream.body_deferred = false;
    stream.body_woken = false;
    nghttp2_session_resume_data(session_, stream.stream_id);
  }
  bodies_woken_ = false;
}

}  // namespace sluice
