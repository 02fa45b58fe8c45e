// H3Session: setup, the nghttp3 trampolines, the calls the QUIC transport makes, and
// the plumbing that keeps nghttp3 from being re-entered (see h3_session.hpp).
//
// Ownership: HTTP thread only.

#include "http3/h3_session.hpp"

#include <algorithm>
#include <array>
#include <exception>

#include "http3/h3_error_names.hpp"

namespace sluice {
namespace {

std::string_view view(nghttp3_rcbuf* buf) {
  const nghttp3_vec vec = nghttp3_rcbuf_get_buf(buf);
  return {reinterpret_cast<const char*>(vec.base), vec.len};
}

// Client-initiated bidirectional streams are requests (RFC 9000 section 2.1).
bool is_request_stream(std::int64_t stream_id) { return (stream_id & 0x3) == 0; }

// What a connection error nghttp3 detected means, for the person reading the error.
std::string connection_error_meaning(long rv) {
  switch (rv) {
    case NGHTTP3_ERR_H3_FRAME_UNEXPECTED:
      return "the server sent a frame where HTTP/3 does not allow it";
    case NGHTTP3_ERR_H3_FRAME_ERROR: return "the server sent a malformed frame";
    case NGHTTP3_ERR_H3_MISSING_SETTINGS:
      return "the server's control stream did not start with SETTINGS";
    case NGHTTP3_ERR_H3_SETTINGS_ERROR: return "the server sent invalid SETTINGS";
    case NGHTTP3_ERR_H3_CLOSED_CRITICAL_STREAM:
      return "the server closed its control or QPACK stream";
    case NGHTTP3_ERR_H3_ID_ERROR:
      return "the server sent an invalid stream id (GOAWAY above an earlier one)";
    case NGHTTP3_ERR_H3_STREAM_CREATION_ERROR:
      return "the server opened a stream HTTP/3 does not allow";
    case NGHTTP3_ERR_QPACK_DECOMPRESSION_FAILED:
    case NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR:
    case NGHTTP3_ERR_QPACK_DECODER_STREAM_ERROR:
    case NGHTTP3_ERR_QPACK_FATAL:
      return "the server's header compression (QPACK) could not be decoded";
    default: return "the server broke the HTTP/3 protocol";
  }
}

}  // namespace

// C callbacks: recover `self`, call a member, keep the real Error on the session and
// hand nghttp3 its failure code. No exception crosses nghttp3. Stream-level problems
// are handled inside the members (nghttp3 0.8 has no "reset just this stream" return
// code: every failure it is given ends the connection).
struct H3Session::Trampolines {
  template <class Call>
  static int guard(void* user_data, Call&& call) noexcept {
    H3Session& self = *static_cast<H3Session*>(user_data);
    try {
      call(self);
      return self.callback_error_ ? NGHTTP3_ERR_CALLBACK_FAILURE : 0;
    } catch (const std::exception& e) {
      self.note_fatal(Error(ErrorCategory::protocol,
                            std::string("HTTP/3: internal failure in a callback: ") + e.what()));
    } catch (...) {
      self.note_fatal(Error(ErrorCategory::protocol, "HTTP/3: internal failure in a callback"));
    }
    return NGHTTP3_ERR_CALLBACK_FAILURE;
  }

  static int acked_stream_data(nghttp3_conn*, std::int64_t stream_id, std::uint64_t n,
                               void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_body_acked(stream_id, n); });
  }
  static int stream_close(nghttp3_conn*, std::int64_t stream_id, std::uint64_t app_error,
                          void* user_data, void*) noexcept {
    return guard(user_data,
                 [&](H3Session& self) { self.on_library_stream_close(stream_id, app_error); });
  }
  static int recv_data(nghttp3_conn*, std::int64_t stream_id, const std::uint8_t* data,
                       std::size_t len, void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) {
      self.on_data(stream_id, {reinterpret_cast<const std::byte*>(data), len});
    });
  }
  static int deferred_consume(nghttp3_conn*, std::int64_t stream_id, std::size_t consumed,
                              void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.credit_now(stream_id, consumed); });
  }
  static int begin_headers(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_begin_headers(stream_id); });
  }
  static int recv_header(nghttp3_conn*, std::int64_t stream_id, std::int32_t, nghttp3_rcbuf* name,
                         nghttp3_rcbuf* value, std::uint8_t, void* user_data, void*) noexcept {
    return guard(user_data,
                 [&](H3Session& self) { self.on_header(stream_id, view(name), view(value)); });
  }
  static int end_headers(nghttp3_conn*, std::int64_t stream_id, int, void* user_data,
                         void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_end_headers(stream_id); });
  }
  static int end_trailers(nghttp3_conn*, std::int64_t stream_id, int, void* user_data,
                          void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_end_trailers(stream_id); });
  }
  static int end_stream(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_end_stream(stream_id); });
  }
  // nghttp3 asks for STOP_SENDING and RESET_STREAM (a malformed response): one
  // shutdown_stream does both.
  static int reset_stream(nghttp3_conn*, std::int64_t stream_id, std::uint64_t app_error,
                          void* user_data, void*) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_library_reset(stream_id, app_error); });
  }
  static int shutdown(nghttp3_conn*, std::int64_t stream_id, void* user_data) noexcept {
    return guard(user_data, [&](H3Session& self) { self.on_goaway(stream_id); });
  }
  static nghttp3_ssize read_data(nghttp3_conn*, std::int64_t stream_id, nghttp3_vec* vec,
                                 std::size_t veccnt, std::uint32_t* flags, void* user_data,
                                 void*) noexcept {
    H3Session& self = *static_cast<H3Session*>(user_data);
    if (veccnt == 0) return NGHTTP3_ERR_WOULDBLOCK;
    try {
      return self.read_body(stream_id, vec, *flags);
    } catch (...) {
      self.note_fatal(Error(ErrorCategory::protocol, "HTTP/3: internal failure reading a body"));
    }
    return NGHTTP3_ERR_CALLBACK_FAILURE;
  }
};

const nghttp3_data_reader& H3Session::body_reader() noexcept {
  static const nghttp3_data_reader reader{&Trampolines::read_data};
  return reader;
}

H3Session::H3Session(const Trace& trace, std::uint64_t conn_id, const TimeSource& time,
                     H3SessionOptions options, std::function<void()> on_change)
    : trace_(trace),
      conn_id_(conn_id),
      time_(time),
      options_(options),
      on_change_(std::move(on_change)),
      stream_table_(*this, TraceScope(trace, conn_id, "h3")) {}

H3Session::~H3Session() {
  *alive_ = false;
  // nghttp3 first: it points into the streams' body blocks.
  if (conn_ != nullptr) nghttp3_conn_del(conn_);
  for (auto& entry : stream_table_) {
    if (entry.second.body != nullptr) entry.second.body->set_waker([] {});
  }
}

Result<void> H3Session::on_handshake_completed(QuicStreams& streams) {
  Entry entry(*this);
  // Set up for 0-RTT already, and the server accepted the early data.
  if (conn_ != nullptr && streams_ == &streams && !broken_ && !closed_) return {};
  if (conn_ != nullptr || closed_) {
    return Error(ErrorCategory::protocol, "HTTP/3: the session was already started or closed");
  }
  auto ready = setup(streams);
  if (!ready) {
    if (conn_ != nullptr) nghttp3_conn_del(conn_);
    conn_ = nullptr;
    broken_ = true;
    terminal_error_ = ready.error();
    close_code_ = NGHTTP3_H3_INTERNAL_ERROR;
    return ready;
  }
  changed_ = true;
  streams.request_write();
  return {};
}

Result<void> H3Session::setup(QuicStreams& streams) {
  streams_ = &streams;
  nghttp3_callbacks callbacks{};
  callbacks.acked_stream_data = &Trampolines::acked_stream_data;
  callbacks.stream_close = &Trampolines::stream_close;
  callbacks.recv_data = &Trampolines::recv_data;
  callbacks.deferred_consume = &Trampolines::deferred_consume;
  callbacks.begin_headers = &Trampolines::begin_headers;
  callbacks.recv_header = &Trampolines::recv_header;
  callbacks.end_headers = &Trampolines::end_headers;
  callbacks.begin_trailers = &Trampolines::begin_headers;
  callbacks.recv_trailer = &Trampolines::recv_header;
  callbacks.end_trailers = &Trampolines::end_trailers;
  callbacks.stop_sending = &Trampolines::reset_stream;
  callbacks.end_stream = &Trampolines::end_stream;
  callbacks.reset_stream = &Trampolines::reset_stream;
  callbacks.shutdown = &Trampolines::shutdown;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  settings.max_field_section_size = options_.max_field_section_size;
  settings.qpack_max_dtable_capacity = options_.qpack_max_dtable_capacity;
  settings.qpack_blocked_streams = options_.qpack_blocked_streams;
  settings.qpack_encoder_max_dtable_capacity = options_.qpack_encoder_max_dtable_capacity;
  const int rv = nghttp3_conn_client_new(&conn_, &callbacks, &settings, nullptr, this);
  if (rv != 0) {
    conn_ = nullptr;
    return fatal_error(rv, "creating the session");
  }
  return bind_streams();
}

// RFC 9114 section 6.2: the control stream and QPACK's encoder and decoder streams
// are the client's first unidirectional streams.
Result<void> H3Session::bind_streams() {
  auto control = streams_->open_uni_stream();
  if (!control) return control.error();
  auto encoder = streams_->open_uni_stream();
  if (!encoder) return encoder.error();
  auto decoder = streams_->open_uni_stream();
  if (!decoder) return decoder.error();
  int rv = nghttp3_conn_bind_control_stream(conn_, *control);
  if (rv == 0) rv = nghttp3_conn_bind_qpack_streams(conn_, *encoder, *decoder);
  if (rv != 0) return fatal_error(rv, "binding the control and QPACK streams");
  if (trace_.on()) {
    trace_conn("session started: control stream " + std::to_string(*control) + ", QPACK encoder " +
               std::to_string(*encoder) + ", decoder " + std::to_string(*decoder));
  }
  return {};
}

void H3Session::queue_op(PendingOp::Kind kind, std::int64_t stream_id) {
  if (in_library_) {
    pending_ops_.push_back(PendingOp{kind, stream_id});
    return;
  }
  run_op(PendingOp{kind, stream_id});
}

void H3Session::run_pending_ops() {
  while (!pending_ops_.empty()) {
    std::vector<PendingOp> ops;
    ops.swap(pending_ops_);
    for (const PendingOp& op : ops) run_op(op);
  }
}

void H3Session::run_op(const PendingOp& op) {
  if (conn_ == nullptr || broken_) return;
  switch (op.kind) {
    case PendingOp::Kind::submit: submit_deferred(op.stream_id); return;
    case PendingOp::Kind::shut: {
      nghttp3_conn_shutdown_stream_write(conn_, op.stream_id);
      const int rv = nghttp3_conn_shutdown_stream_read(conn_, op.stream_id);
      if (rv != 0 && nghttp3_err_is_fatal(rv)) {
        fail_connection(fatal_error(rv, "closing a stream"), rv);
      }
      return;
    }
    case PendingOp::Kind::shut_write:
      nghttp3_conn_shutdown_stream_write(conn_, op.stream_id);
      return;
    case PendingOp::Kind::resume_body: resume_body(op.stream_id); return;
  }
}

void H3Session::note_fatal(Error error) noexcept {
  // The first error is the cause; later ones are its consequences.
  if (!callback_error_) callback_error_ = std::move(error);
}

Error H3Session::fatal_error(long rv, const char* operation) const {
  if (callback_error_) return *callback_error_;
  const int code = static_cast<int>(rv);
  switch (code) {
    case NGHTTP3_ERR_NOMEM:
      return Error(ErrorCategory::io, std::string("HTTP/3: out of memory ") + operation);
    case NGHTTP3_ERR_QPACK_HEADER_TOO_LARGE:
      return Error(ErrorCode::headers_too_large,
                   "HTTP/3: server sent a header field larger than nghttp3 decodes (64 KiB); "
                   "the connection was closed");
    default: break;
  }
  if (code <= NGHTTP3_ERR_FATAL) {
    return Error(ErrorCode::http3_failed,
                 std::string("HTTP/3: ") + operation + " failed: " + nghttp3_strerror(code));
  }
  return Error(ErrorCode::http3_failed,
               "HTTP/3: " + connection_error_meaning(rv) + " (" +
                   h3_error_name(nghttp3_err_infer_quic_app_error_code(code)) +
                   "); the connection was closed");
}

Error H3Session::fail_connection(Error error, long rv) {
  if (broken_) return terminal_error_ ? *terminal_error_ : error;
  broken_ = true;
  changed_ = true;
  terminal_error_ = error;
  close_code_ = callback_error_ ? NGHTTP3_H3_INTERNAL_ERROR
                                : nghttp3_err_infer_quic_app_error_code(static_cast<int>(rv));
  pending_ops_.clear();
  if (trace_.on()) trace_conn("failed: " + error.message());
  fail_exchanges(error);
  return error;
}

Result<std::size_t> H3Session::on_stream_data(std::int64_t stream_id,
                                              std::span<const std::uint8_t> data, bool fin) {
  Entry entry(*this);
  if (broken_) return *terminal_error_;
  if (conn_ == nullptr) {
    return Error(ErrorCategory::protocol, "HTTP/3: stream data before the session started");
  }
  if (is_request_stream(stream_id)) {
    const H3Stream* stream = find(stream_id);
    // A stream we reset, or one nghttp3 closed already: the bytes go nowhere, and
    // nghttp3 would take an unknown request stream for a new one.
    if (stream == nullptr || stream->shut) return data.size();
  }
  reading_stream_ = stream_id;
  reading_credit_ = 0;
  const H3Stream* before = find(stream_id);
  const std::uint64_t credited_before = before != nullptr ? before->credit.credited() : 0;
  const nghttp3_ssize rv = in_library([&] {
    return nghttp3_conn_read_stream(conn_, stream_id, data.data(), data.size(), fin ? 1 : 0);
  });
  reading_stream_ = -1;
  if (rv < 0) {
    const H3Stream* after = find(stream_id);
    const std::uint64_t credited_during =
        after != nullptr && after->credit.credited() > credited_before
            ? after->credit.credited() - credited_before
            : 0;
    return read_failed(stream_id, rv, data.size(), credited_during);
  }
  return static_cast<std::size_t>(rv) + reading_credit_;
}

void H3Session::on_stream_acked(std::int64_t stream_id, std::uint64_t n) {
  Entry entry(*this);
  if (conn_ == nullptr || broken_) return;
  const int rv = in_library([&] { return nghttp3_conn_add_ack_offset(conn_, stream_id, n); });
  if (rv != 0) fail_connection(fatal_error(rv, "taking acknowledgements"), rv);
}

void H3Session::on_stream_closed(std::int64_t stream_id, std::optional<std::uint64_t> app_error) {
  Entry entry(*this);
  const H3Stream* stream = find(stream_id);
  if (conn_ != nullptr && !broken_ && (stream == nullptr || stream->submitted)) {
    const int rv = in_library([&] {
      return nghttp3_conn_close_stream(conn_, stream_id, app_error.value_or(NGHTTP3_H3_NO_ERROR));
    });
    // nghttp3 never knew a stream closed before any byte moved; that is no error.
    if (rv != 0 && rv != NGHTTP3_ERR_STREAM_NOT_FOUND) {
      fail_connection(fatal_error(rv, "closing a stream"), rv);
    }
  }
  // nghttp3's stream_close callback ended the record already if it knew the stream.
  if (find(stream_id) != nullptr) close_record(stream_id, app_error);
}

void H3Session::on_stream_reset(std::int64_t stream_id, std::uint64_t app_error) {
  Entry entry(*this);
  if (trace_.on() && find(stream_id) != nullptr) {
    trace_stream(stream_id, "RESET_STREAM received (" + h3_error_name(app_error) + ")");
  }
  H3Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  if (stream->sink == nullptr) {
    if (!stream->shut) abandon_stream(*stream, NGHTTP3_H3_REQUEST_CANCELLED);
    return;
  }
  // RFC 9114 section 4.1.1: H3_REQUEST_REJECTED means no processing took place.
  if (app_error == NGHTTP3_H3_REQUEST_REJECTED) stream->unprocessed = true;
  fail_stream(stream_id, Error(ErrorCategory::protocol,
                               "HTTP/3: stream " + std::to_string(stream_id) +
                                   " reset by server (" + h3_error_name(app_error) + ")"));
}

// The server no longer reads the request. With H3_NO_ERROR it answers anyway (RFC
// 9114 section 4.1: a complete response before the whole request); any other code
// abandons the request. The transport answers STOP_SENDING with RESET_STREAM itself.
void H3Session::on_stop_sending(std::int64_t stream_id, std::uint64_t app_error) {
  Entry entry(*this);
  H3Stream* stream = find(stream_id);
  if (stream == nullptr) return;
  if (trace_.on()) {
    trace_stream(stream_id, "STOP_SENDING received (" + h3_error_name(app_error) + ")");
  }
  if (stream->body != nullptr) end_body(*stream);
  if (stream->submitted) queue_op(PendingOp::Kind::shut_write, stream_id);
  if (stream->sink == nullptr || app_error == NGHTTP3_H3_NO_ERROR) return;
  if (app_error == NGHTTP3_H3_REQUEST_REJECTED) stream->unprocessed = true;
  fail_stream(stream_id,
              Error(ErrorCategory::protocol,
                    "HTTP/3: server stopped reading the request on stream " +
                        std::to_string(stream_id) + " (" + h3_error_name(app_error) + ")"));
}

void H3Session::on_stream_writable(std::int64_t stream_id) {
  Entry entry(*this);
  if (conn_ == nullptr || broken_) return;
  const int rv = nghttp3_conn_unblock_stream(conn_, stream_id);
  if (rv != 0) {
    fail_connection(fatal_error(rv, "unblocking a stream"), rv);
    return;
  }
  streams_->request_write();
}

void H3Session::on_streams_available() {
  Entry entry(*this);
  if (trace_.on()) trace_conn("the server allows more streams");
  changed_ = true;
}

void H3Session::on_connection_closed(const Error& error) {
  Entry entry(*this);
  if (closed_) return;
  closed_ = true;
  changed_ = true;
  pending_ops_.clear();
  if (trace_.on()) trace_conn("closed: " + error.message());
  fail_exchanges(error);
  streams_ = nullptr;
  if (conn_ != nullptr) nghttp3_conn_del(conn_);
  conn_ = nullptr;
  stream_table_.clear();
  spare_blocks_.clear();
}

void H3Session::fail_all_unprocessed(const Error& error) {
  for (auto& [stream_id, stream] : stream_table_) stream.unprocessed = true;
  fail_all(error);
}

void H3Session::fail_all_refused_early(const Error& error) {
  for (auto& [stream_id, stream] : stream_table_) stream.refused_early = true;
  fail_all_unprocessed(error);
}

void H3Session::fail_all(const Error& error) {
  Entry entry(*this);
  closing_ = true;
  changed_ = true;
  fail_exchanges(error);
}

}  // namespace sluice
