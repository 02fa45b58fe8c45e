// H3Session, receiving: the nghttp3 callbacks for what the server sent, turned into
// ExchangeSink events (see h3_session.hpp).
//
// Ownership: HTTP thread only. Every sink call may re-enter the session (cancel,
// resume, submit), so a stream is looked up again by id after each one.

#include <algorithm>
#include <string>
#include <vector>

#include "http3/h3_error_names.hpp"
#include "http3/h3_headers.hpp"
#include "http3/h3_session.hpp"

namespace sluice {
namespace {

std::string stream_name(std::int64_t stream_id) { return "stream " + std::to_string(stream_id); }

}  // namespace

// nghttp3 0.8 reports a stream's HTTP messaging error (a body longer or shorter than
// its content-length, a response that ends without a final head) by failing the
// whole read with NGHTTP3_ERR_MALFORMED_HTTP_MESSAGING. Nothing shared was touched
// (QPACK state lives in header blocks, not in DATA), so only that stream is reset,
// with H3_MESSAGE_ERROR as RFC 9114 section 4.1.2 asks. Everything else ends the
// connection.
Result<std::size_t> H3Session::read_failed(std::int64_t stream_id, long rv, std::size_t size,
                                           std::uint64_t credited_during) {
  H3Stream* stream = find(stream_id);
  if (rv != NGHTTP3_ERR_MALFORMED_HTTP_MESSAGING || stream == nullptr || callback_error_) {
    return fail_connection(fatal_error(rv, "reading from the server"), rv);
  }
  Error error(ErrorCategory::protocol, "HTTP/3: server broke HTTP messaging rules on " +
                                           stream_name(stream_id) +
                                           " (H3_MESSAGE_ERROR); the stream was reset");
  if (stream->got_head && stream->content_length) {
    error =
        Error(ErrorCategory::protocol,
              "HTTP/3: response body on " + stream_name(stream_id) +
                  " does not match its content-length (" + std::to_string(*stream->content_length) +
                  " bytes declared, " + std::to_string(stream->credit.received()) +
                  " received before the server ended or overran it); the stream was reset");
  }
  if (trace_.on()) trace_stream(stream_id, "malformed response: " + error.message());
  abandon_stream(*stream, NGHTTP3_H3_MESSAGE_ERROR);
  fail_stream(stream_id, std::move(error), false);
  // The stream is gone: what this read carried is credited at once, less the body
  // bytes of it a consumer already took and extend_stream credited (crediting
  // those twice would let the server send past the window we meant to hold).
  return size - static_cast<std::size_t>(std::min<std::uint64_t>(size, credited_during));
}

void H3Session::on_begin_headers(std::int64_t stream_id) {
  if (H3Stream* stream = find(stream_id)) stream->block.reset();
}

void H3Session::on_header(std::int64_t stream_id, std::string_view name, std::string_view value) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  auto added = stream->block.add(name, value);
  if (added) return;
  // nghttp3 goes on decoding the section (QPACK state must stay in step); the
  // exchange ends now and the rest of the stream is dropped.
  const bool too_large = added.error().category() == ErrorCategory::too_large;
  if (trace_.on()) trace_stream(stream_id, "response head refused: " + added.error().message());
  abandon_stream(*stream, too_large ? NGHTTP3_H3_EXCESSIVE_LOAD : NGHTTP3_H3_MESSAGE_ERROR);
  fail_stream(stream_id, std::move(added).error(), false);
}

void H3Session::on_end_headers(std::int64_t stream_id) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  const std::optional<int> status = stream->block.status();
  if (!status) {
    // nghttp3's messaging checks catch this first; kept so a head is never empty.
    abandon_stream(*stream, NGHTTP3_H3_MESSAGE_ERROR);
    fail_stream(stream_id,
                Error(ErrorCategory::protocol,
                      "HTTP/3: response without :status on " + stream_name(stream_id)),
                false);
    return;
  }
  if (*status < 200) {
    if (trace_.on()) trace_stream(stream_id, "interim response " + std::to_string(*status));
    stream->block.reset();
    return;
  }
  deliver_head(*stream, *status);
}

void H3Session::deliver_head(H3Stream& stream, int status) {
  stream.got_head = true;
  Headers fields = stream.block.take_fields();
  stream.content_length = content_length_of(fields);
  if (trace_.on()) trace_stream(stream.stream_id, "response " + std::to_string(status));
  stream.sink->on_response_head(ReceivedHead{status, std::move(fields), std::nullopt});
}

void H3Session::on_end_trailers(std::int64_t stream_id) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  Headers trailers = stream->block.take_fields();
  if (trace_.on()) {
    trace_stream(stream_id, "trailers (" + std::to_string(trailers.size()) + " fields)");
  }
  stream->sink->on_trailers(std::move(trailers));
}

void H3Session::on_data(std::int64_t stream_id, std::span<const std::byte> bytes) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) {
    credit_now(stream_id, bytes.size());  // nobody takes them: the server may go on
    return;
  }
  stream_table_.deliver_body(*stream, bytes, time_.now());  // one clock read per piece
}

// Bytes the session is done with at once. For the stream being read they ride on
// on_stream_data's result; for another (a QPACK-blocked stream nghttp3 just
// decoded, or one it dropped) they go through extend_stream.
void H3Session::credit_now(std::int64_t stream_id, std::size_t n) {
  if (n == 0) return;
  if (stream_id == reading_stream_) {
    reading_credit_ += n;
    return;
  }
  if (streams_ != nullptr && !closed_) streams_->extend_stream(stream_id, n);
}

void H3Session::on_end_stream(std::int64_t stream_id) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->sink == nullptr) return;
  // The response is complete while the request body is not: the exchange ends now,
  // so the source (which the caller may free) must not be read any more.
  const bool body_unfinished = stream->body != nullptr;
  if (trace_.on()) {
    trace_stream(stream_id, "exchange complete (" + std::to_string(stream->credit.received()) +
                                " body bytes)");
  }
  ExchangeSink* sink = detach(*stream);
  if (body_unfinished) abandon_stream(*stream, NGHTTP3_H3_REQUEST_CANCELLED);
  sink->on_complete();
}

// nghttp3 found the response malformed (an invalid field, a pseudo-header where it
// may not be) and asks for the stream to be reset; it skips the rest of the stream.
void H3Session::on_library_reset(std::int64_t stream_id, std::uint64_t app_error) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr || stream->shut) return;
  if (trace_.on())
    trace_stream(stream_id, "nghttp3 resets the stream (" + h3_error_name(app_error) + ")");
  abandon_stream(*stream, app_error);
  if (stream->sink == nullptr) return;
  const std::string what = app_error == NGHTTP3_H3_MESSAGE_ERROR
                               ? "malformed response header block from server on "
                               : "sluice reset ";
  fail_stream(
      stream_id,
      Error(ErrorCategory::protocol, "HTTP/3: " + what + stream_name(stream_id) + " (" +
                                         h3_error_name(app_error) + "); the stream was reset"),
      false);
}

// nghttp3 forgot the stream (QuicApplication::on_stream_closed closed it there).
void H3Session::on_library_stream_close(std::int64_t stream_id, std::uint64_t app_error) {
  close_record(stream_id, app_error == NGHTTP3_H3_NO_ERROR
                              ? std::nullopt
                              : std::optional<std::uint64_t>(app_error));
}

// RFC 9114 section 5.2: requests on streams at or above the id were not processed
// and may be sent again elsewhere; the ones below go on, and no new ones start.
void H3Session::on_goaway(std::int64_t stream_id) {
  goaway_received_ = true;
  changed_ = true;
  if (trace_.on()) {
    trace_conn(stream_id >= static_cast<std::int64_t>(NGHTTP3_SHUTDOWN_NOTICE_STREAM_ID)
                   ? std::string("GOAWAY received: the server is shutting down")
                   : "GOAWAY received: streams from " + std::to_string(stream_id) +
                         " were not processed");
  }
  std::vector<std::int64_t> refused;
  for (auto& [id, stream] : stream_table_) {
    if (id < stream_id || stream.sink == nullptr) continue;
    stream.unprocessed = true;
    refused.push_back(id);
  }
  if (!refused.empty()) {
    goaway_refused_streams_ = true;
    goaway_stream_id_ = stream_id;
  }
  std::sort(refused.begin(), refused.end());
  for (std::int64_t id : refused) fail_stream(id, goaway_error(id));
}

Error H3Session::goaway_error(std::int64_t stream_id) const {
  return Error(ErrorCategory::protocol,
               "HTTP/3: GOAWAY: server sent GOAWAY before processing the request on " +
                   stream_name(stream_id) + " (it was not processed: safe to send again)");
}

void H3Session::close_record(std::int64_t stream_id, std::optional<std::uint64_t> app_error) {
  H3Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  if (stream->sink != nullptr) {
    if (app_error && *app_error == NGHTTP3_H3_REQUEST_REJECTED) stream->unprocessed = true;
    Error error(ErrorCategory::protocol,
                app_error ? "HTTP/3: " + stream_name(stream_id) + " reset by server (" +
                                h3_error_name(*app_error) + ")"
                          : "HTTP/3: server closed " + stream_name(stream_id) +
                                " before the response ended");
    fail_stream(stream_id, std::move(error), false);
  }
  stream_table_.erase(stream_id);
}

}  // namespace sluice
