// H2Session: setup, the nghttp2 trampolines, feeding and draining bytes, submitting,
// and the per-stream window accounting (see h2_session.hpp).
//
// Ownership: HTTP thread only.

#include "http2/h2_session.hpp"

#include <algorithm>
#include <climits>
#include <exception>
#include <vector>

#include "http2/h2_headers.hpp"

namespace sluice {
namespace {

// drain_output stops once this much waits in `out`, so a fast request body cannot
// fill memory ahead of a slow socket.
constexpr std::size_t kOutputHighWater = 64 * 1024;
// SETTINGS_MAX_FRAME_SIZE: we keep the default, so no frame from the server is larger.
constexpr std::size_t kMaxFrame = 16 * 1024;
// SETTINGS and PING acknowledgements nghttp2 may hold unsent; past this the
// connection is closed (nghttp2's default, stated). They pile up when the server does
// not read, or sends more in one read than this (one feed() answers nothing).
constexpr std::size_t kMaxUnsentAcks = 1000;

std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

// C callbacks: recover `self`, call a member returning Result, keep the real Error on
// the session and hand nghttp2 its failure code. No exception crosses nghttp2.
struct H2Session::Trampolines {
  template <class Call>
  static int guard(void* user_data, Call&& call) noexcept {
    H2Session& self = *static_cast<H2Session*>(user_data);
    try {
      return self.verdict_code(call(self));
    } catch (const std::exception& e) {
      self.note_fatal(Error(ErrorCategory::protocol,
                            std::string("HTTP/2: internal failure in a callback: ") + e.what()));
    } catch (...) {
      self.note_fatal(Error(ErrorCategory::protocol, "HTTP/2: internal failure in a callback"));
    }
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }

  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) { return self.on_begin_headers(*frame); });
  }
  static int header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                    std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                    std::uint8_t, void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) {
      return self.on_header(*frame, view(name, namelen), view(value, valuelen));
    });
  }
  static int invalid_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                            std::size_t namelen, const std::uint8_t*, std::size_t, std::uint8_t,
                            void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) {
      return self.on_invalid_header(*frame, view(name, namelen));
    });
  }
  static int frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) { return self.on_frame_recv(*frame); });
  }
  static int data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id,
                        const std::uint8_t* data, std::size_t len, void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) {
      return self.on_data_chunk(stream_id, {reinterpret_cast<const std::byte*>(data), len});
    });
  }
  static int stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code,
                          void* user_data) noexcept {
    return guard(user_data,
                 [&](H2Session& self) { return self.on_stream_close(stream_id, error_code); });
  }
  static int frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) noexcept {
    return guard(user_data, [&](H2Session& self) { return self.on_frame_send(*frame); });
  }
  static int frame_not_send(nghttp2_session*, const nghttp2_frame* frame, int lib_error_code,
                            void* user_data) noexcept {
    return guard(user_data,
                 [&](H2Session& self) { return self.on_frame_not_send(*frame, lib_error_code); });
  }
  static int invalid_frame(nghttp2_session*, const nghttp2_frame* frame, int lib_error_code,
                           void* user_data) noexcept {
    return guard(user_data,
                 [&](H2Session& self) { return self.on_invalid_frame(*frame, lib_error_code); });
  }
  static int library_error(nghttp2_session*, int, const char* msg, std::size_t len,
                           void* user_data) noexcept {
    H2Session& self = *static_cast<H2Session*>(user_data);
    try {
      if (self.trace_.on()) self.trace_conn("nghttp2: " + std::string(msg, len));
    } catch (...) {
      // Tracing only; losing the line is harmless.
    }
    return 0;
  }
  static ssize_t body(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf,
                      std::size_t length, std::uint32_t* data_flags, nghttp2_data_source*,
                      void* user_data) noexcept {
    H2Session& self = *static_cast<H2Session*>(user_data);
    try {
      auto read = self.read_body(stream_id, {buf, length}, *data_flags);
      if (read) return *read;
      self.note_fatal(std::move(read).error());
    } catch (...) {
      self.note_fatal(Error(ErrorCategory::protocol, "HTTP/2: internal failure reading a body"));
    }
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
};

H2Session::H2Session(std::function<void()> on_output_ready, const Trace& trace,
                     std::uint64_t conn_id, const TimeSource& time, H2SessionOptions options)
    : on_output_ready_(std::move(on_output_ready)),
      trace_(trace),
      conn_id_(conn_id),
      time_(time),
      options_(options),
      streams_(*this, TraceScope(trace, conn_id, "h2")) {
  auto ready = setup();
  if (!ready) {
    setup_error_ = std::move(ready).error();
    closing_ = true;
  }
}

H2Session::~H2Session() {
  *alive_ = false;
  if (session_ != nullptr) nghttp2_session_del(session_);
}

Result<void> H2Session::status() const {
  if (setup_error_) return *setup_error_;
  return {};
}

void H2Session::install_callbacks(nghttp2_session_callbacks* callbacks) {
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Trampolines::begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Trampolines::header);
  nghttp2_session_callbacks_set_on_invalid_header_callback(callbacks, &Trampolines::invalid_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Trampolines::frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Trampolines::data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Trampolines::stream_close);
  nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &Trampolines::frame_send);
  nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, &Trampolines::frame_not_send);
  nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks,
                                                               &Trampolines::invalid_frame);
  nghttp2_session_callbacks_set_error_callback2(callbacks, &Trampolines::library_error);
}

Result<void> H2Session::setup() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_option* option = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0 || nghttp2_option_new(&option) != 0) {
    nghttp2_session_callbacks_del(callbacks);
    return Error(ErrorCategory::io, "HTTP/2: out of memory creating the session");
  }
  install_callbacks(callbacks);
  // Window updates follow the consumer, not the socket (the backpressure).
  nghttp2_option_set_no_auto_window_update(option, 1);
  nghttp2_option_set_peer_max_concurrent_streams(option, options_.assumed_max_streams);
  nghttp2_option_set_max_send_header_block_length(option, options_.max_header_list);
  // A header block as large as SETTINGS_MAX_HEADER_LIST_SIZE must fit in 16 KiB frames
  // (nghttp2 allows 8 CONTINUATIONs by default, ~144 KiB); past that it is a flood.
  nghttp2_option_set_max_continuations(option, options_.max_header_list / kMaxFrame + 1);
  nghttp2_option_set_max_outbound_ack(option, kMaxUnsentAcks);
  const int rv = nghttp2_session_client_new2(&session_, callbacks, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  if (rv != 0) {
    session_ = nullptr;
    return fatal_error(rv, "creating the session");
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, options_.stream_window},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, options_.max_header_list},
  };
  int submitted = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings,
                                          sizeof settings / sizeof settings[0]);
  connection_window_ =
      static_cast<std::int32_t>(std::min<std::uint32_t>(options_.connection_window, INT32_MAX));
  if (submitted == 0) {
    submitted =
        nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, connection_window_);
  }
  if (submitted != 0) return fatal_error(submitted, "sending SETTINGS");
  // The window policy needs the round-trip time before the first body byte: the
  // server answers this PING in the same flight as its SETTINGS.
  return submit_ping(false);
}

int H2Session::verdict_code(Result<Verdict> result) noexcept {
  if (!result) {
    note_fatal(std::move(result).error());
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
  return *result == Verdict::proceed ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
}

void H2Session::note_fatal(Error error) noexcept {
  // The first error is the cause; later ones are its consequences.
  if (!callback_error_) callback_error_ = std::move(error);
}

Error H2Session::fatal_error(long rv, const char* operation) {
  if (callback_error_) return *callback_error_;
  switch (rv) {
    case NGHTTP2_ERR_NOMEM:
      return Error(ErrorCategory::io, std::string("HTTP/2: out of memory ") + operation);
    case NGHTTP2_ERR_TOO_MANY_CONTINUATIONS:
      return Error(ErrorCode::headers_too_large,
                   "HTTP/2: server sent a header block far over the limit of " +
                       std::to_string(options_.max_header_list) +
                       " bytes (too many CONTINUATION frames); the connection was closed");
    case NGHTTP2_ERR_FLOODED:
      return Error(ErrorCategory::protocol,
                   "HTTP/2: server flooded the connection with frames that need answers (over " +
                       std::to_string(kMaxUnsentAcks) +
                       " SETTINGS or PING acknowledgements waiting to be sent); the connection "
                       "was closed");
    default: break;
  }
  return Error(ErrorCode::http2_framing, std::string("HTTP/2: ") + operation +
                                             " failed: " + nghttp2_strerror(static_cast<int>(rv)));
}

Result<std::size_t> H2Session::feed(std::span<const std::byte> bytes) {
  if (session_ == nullptr) return *setup_error_;
  if (broken_) return Error(ErrorCategory::protocol, "HTTP/2: the session has failed");
  in_library_ = true;
  const ssize_t rv = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  in_library_ = false;
  if (rv < 0) {
    Error error = fatal_error(rv, "reading frames from the server");
    broken_ = true;
    fail_all(error);
    return error;
  }
  check_finished();
  return static_cast<std::size_t>(rv);
}

Result<void> H2Session::drain_output(ByteQueue& out) {
  if (session_ == nullptr) return *setup_error_;
  // Nothing more goes out of a failed session, nor from inside nghttp2's own callbacks
  // (a sink closing the connection from an event): nghttp2 is not re-entrant.
  if (broken_ || in_library_) return {};
  resume_woken_bodies();
  while (out.size() < kOutputHighWater) {
    const std::uint8_t* data = nullptr;
    in_library_ = true;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    in_library_ = false;
    if (n < 0) {
      Error error = fatal_error(n, "writing frames");
      broken_ = true;
      fail_all(error);
      return error;
    }
    if (n == 0) break;
    out.append(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data),
                                          static_cast<std::size_t>(n)));
  }
  check_finished();
  return {};
}

bool H2Session::wants_read() const {
  return session_ != nullptr && !broken_ && nghttp2_session_want_read(session_) != 0;
}

bool H2Session::wants_write() const {
  if (session_ == nullptr || broken_) return false;
  // nghttp2 does not count deferred DATA; a woken body is output waiting to be made.
  if (bodies_woken_) return true;
  return nghttp2_session_want_write(session_) != 0;
}

Result<std::int32_t> H2Session::submit(ExchangeRequest& request, ExchangeSink& sink) {
  if (session_ == nullptr) return *setup_error_;
  if (goaway_received_) return goaway_error(nghttp2_session_get_next_stream_id(session_));
  if (closing_) return Error(ErrorCategory::protocol, "HTTP/2: the connection is closing");
  H2RequestHeaders headers(request);
  nghttp2_data_provider provider{};
  provider.read_callback = &Trampolines::body;
  const auto nv = headers.nv();
  const std::int32_t stream_id =
      nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(),
                             request.body != nullptr ? &provider : nullptr, nullptr);
  if (stream_id < 0) return fatal_error(stream_id, "submitting a request");
  H2Stream& stream = streams_.add(stream_id, sink, request, options_.window);
  if (stream.body != nullptr) {
    stream.body->set_waker([this, alive = std::weak_ptr<bool>(alive_), stream_id] {
      auto still = alive.lock();
      if (still && *still) wake_body(stream_id);
    });
  }
  if (trace_.on()) trace_stream(stream_id, request.method + " " + request.target);
  return stream_id;
}

void H2Session::cancel_stream(std::int32_t stream_id) {
  if (detach(stream_id) == nullptr || session_ == nullptr) return;
  // nghttp2 ignores DATA for a stream with RST_STREAM queued and returns its
  // connection window itself; on_data_chunk also does for streams it no longer knows.
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
}

void H2Session::resume_stream(std::int32_t stream_id) { streams_.resume(stream_id, time_.now()); }

std::size_t H2Session::available_streams() const {
  if (session_ == nullptr || closing_ || goaway_received_) return 0;
  // Stream ids are 31-bit and never reused: an old connection runs out.
  if (nghttp2_session_get_next_stream_id(session_) > static_cast<std::uint32_t>(INT32_MAX)) {
    return 0;
  }
  // Before the server's SETTINGS arrive nghttp2 assumes 100 (RFC 9113's minimum).
  const std::uint32_t limit =
      nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  return limit > streams_.size() ? limit - streams_.size() : 0;
}

bool H2Session::receiving_since(TimePoint paused_before) const {
  return streams_.receiving_since(paused_before);
}

void H2Session::terminate(std::uint32_t error_code) {
  closing_ = true;
  if (session_ == nullptr) return;
  if (trace_.on()) trace_conn("sending GOAWAY (" + h2_error_name(error_code) + ")");
  nghttp2_session_terminate_session(session_, error_code);
}

void H2Session::fail_all(const Error& error) {
  closing_ = true;
  std::vector<std::int32_t> ids;
  ids.reserve(streams_.size());
  for (const auto& entry : streams_) ids.push_back(entry.second.stream_id);
  std::sort(ids.begin(), ids.end());
  // One at a time: a sink may cancel another stream from inside its event.
  for (std::int32_t stream_id : ids) fail_stream(stream_id, error);
}

Error H2Session::peer_closed_error(const std::string& peer) const {
  std::string message = "HTTP/2: " + peer + " closed the connection";
  if (goaway_received_) {
    message += " after GOAWAY (" + h2_error_name(goaway_code_) +
               (goaway_debug_.empty() ? std::string() : ": " + goaway_debug_) + ")";
  }
  return Error(ErrorCode::body_truncated, message + " before the response ended");
}

Result<void> H2Session::send_ping() {
  if (session_ == nullptr) return *setup_error_;
  return submit_ping(true);
}

ExchangeSink* H2Session::detach(std::int32_t stream_id) {
  H2Stream* stream = find(stream_id);
  if (stream == nullptr) return nullptr;
  ++streams_ended_;
  ExchangeSink* sink = stream->sink;
  // A stale waker finds no stream; the no-op keeps the source from calling an empty
  // function, since it may be destroyed right after the sink's event.
  if (stream->body != nullptr) stream->body->set_waker([] {});
  streams_.erase(stream_id);
  return sink;
}

void H2Session::fail_stream(std::int32_t stream_id, Error error) {
  if (trace_.on() && find(stream_id) != nullptr) {
    trace_stream(stream_id, "failed: " + error.message());
  }
  H2Stream* stream = find(stream_id);
  const bool unprocessed = stream != nullptr && stream->unprocessed;
  ExchangeSink* sink = detach(stream_id);
  if (sink == nullptr) return;
  if (unprocessed) {
    sink->on_unprocessed(std::move(error));
  } else {
    sink->on_error(std::move(error));
  }
}

// nghttp2 stops wanting to read and write once it has sent a GOAWAY for a fatal error
// (or both sides are done): streams still open then can never finish.
void H2Session::check_finished() {
  if (streams_.empty() || !finished()) return;
  fail_all(terminal_error_ ? *terminal_error_
                           : Error(ErrorCategory::protocol,
                                   "HTTP/2: the session ended before the response did"));
}

void H2Session::trace_conn(const std::string& what) const { trace_.emit(conn_id_, "h2", what); }

void H2Session::trace_stream(std::int32_t stream_id, const std::string& what) const {
  trace_.emit(conn_id_, stream_id, "h2", what);
}

}  // namespace sluice
