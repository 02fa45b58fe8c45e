// H3ServerSession: QuicTestServer's nghttp3 server (see quic_test_server_h3.hpp).

#include "support/quic_test_server_h3.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

namespace sluice::test {
namespace {

// Client-initiated bidirectional: a request stream (RFC 9000 section 2.1).
bool is_request_stream(std::int64_t stream_id) { return (stream_id & 0x3) == 0; }

std::string text_of(nghttp3_rcbuf* buf) {
  const nghttp3_vec vec = nghttp3_rcbuf_get_buf(buf);
  return {reinterpret_cast<const char*>(vec.base), vec.len};
}

nghttp3_nv field(const Header& header) {
  auto* name = reinterpret_cast<std::uint8_t*>(const_cast<char*>(header.name.data()));
  auto* value = reinterpret_cast<std::uint8_t*>(const_cast<char*>(header.value.data()));
  return {name, value, header.name.size(), header.value.size(), NGHTTP3_NV_FLAG_NONE};
}

}  // namespace

// nghttp3's callbacks: noexcept trampolines into the session. Only allocation can
// fail in them; that fails nghttp3's call, never unwinds through its C frames.
struct H3ServerSession::Callbacks {
  template <class Body>
  static int guarded(void* user_data, Body&& body) noexcept {
    try {
      body(*static_cast<H3ServerSession*>(user_data));
      return 0;
    } catch (...) {
      return NGHTTP3_ERR_CALLBACK_FAILURE;
    }
  }

  static int begin_headers(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) { self.request(stream_id); });
  }
  static int recv_header(nghttp3_conn*, std::int64_t stream_id, std::int32_t, nghttp3_rcbuf* name,
                         nghttp3_rcbuf* value, std::uint8_t, void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) {
      self.request(stream_id).headers.add(text_of(name), text_of(value));
    });
  }
  // Body bytes are consumed as they arrive, so their credit goes back at once.
  static int recv_data(nghttp3_conn*, std::int64_t stream_id, const std::uint8_t* data,
                       std::size_t length, void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) {
      QuicTestRequest& request = self.request(stream_id);
      request.body.append(reinterpret_cast<const char*>(data), length);
      self.credit(stream_id, length);
      const auto& stop = self.stop_sending_;
      if (stop && !request.ended && request.body.size() >= stop->after &&
          self.stopped_.insert(stream_id).second) {
        self.due_stops_.push_back(stream_id);
      }
    });
  }
  // Bytes nghttp3 held back (a header block waiting for the QPACK encoder stream).
  static int deferred_consume(nghttp3_conn*, std::int64_t stream_id, std::size_t consumed,
                              void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) { self.credit(stream_id, consumed); });
  }
  static int end_stream(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) {
      self.request(stream_id).ended = true;
      // A stopped upload goes to the handler once, when it is stopped.
      if (self.stopped_.count(stream_id) == 0) self.ended_.push_back(stream_id);
    });
  }
  static int acked_stream_data(nghttp3_conn*, std::int64_t stream_id, std::uint64_t n,
                               void* user_data, void*) {
    return guarded(user_data, [&](H3ServerSession& self) {
      auto found = self.replies_.find(stream_id);
      if (found == self.replies_.end()) return;
      Reply& reply = found->second;
      reply.body.acked(n);
      if (reply.body.reset_due() && !reply.reset_scheduled) {
        reply.reset_scheduled = true;
        if (reply.silence) {
          self.silent_ = true;
        } else {
          self.due_resets_.push_back(stream_id);
        }
      }
    });
  }
  static int stream_close(nghttp3_conn*, std::int64_t stream_id, std::uint64_t, void* user_data,
                          void*) {
    return guarded(user_data, [&](H3ServerSession& self) { self.replies_.erase(stream_id); });
  }
  // nghttp3 asks the transport to stop reading or to reset a stream (a malformed
  // request, say); ngtcp2 allows both from inside its callbacks.
  static int stop_sending(nghttp3_conn*, std::int64_t stream_id, std::uint64_t app_error,
                          void* user_data, void*) {
    auto& self = *static_cast<H3ServerSession*>(user_data);
    (void)ngtcp2_conn_shutdown_stream_read(self.quic_, stream_id, app_error);
    return 0;
  }
  static int reset_stream(nghttp3_conn*, std::int64_t stream_id, std::uint64_t app_error,
                          void* user_data, void*) {
    auto& self = *static_cast<H3ServerSession*>(user_data);
    (void)ngtcp2_conn_shutdown_stream_write(self.quic_, stream_id, app_error);
    return 0;
  }
  static nghttp3_ssize read_data(nghttp3_conn*, std::int64_t stream_id, nghttp3_vec* vec,
                                 std::size_t veccnt, std::uint32_t* flags, void* user_data,
                                 void*) noexcept {
    auto& self = *static_cast<H3ServerSession*>(user_data);
    auto found = self.replies_.find(stream_id);
    if (found == self.replies_.end()) return NGHTTP3_ERR_CALLBACK_FAILURE;
    try {
      const ReplyBody::Pull pull = found->second.body.pull({vec, veccnt});
      if (pull.eof) *flags |= NGHTTP3_DATA_FLAG_EOF;
      if (pull.count == 0 && !pull.eof) return NGHTTP3_ERR_WOULDBLOCK;
      return static_cast<nghttp3_ssize>(pull.count);
    } catch (...) {
      return NGHTTP3_ERR_CALLBACK_FAILURE;
    }
  }
};

H3ServerSession::H3ServerSession(ngtcp2_conn* quic, QuicTestHandler handler,
                                 std::optional<QuicTestStopSending> stop_sending,
                                 std::optional<QuicTestGoawayPlan> goaway_plan)
    : quic_(quic),
      handler_(std::move(handler)),
      stop_sending_(stop_sending),
      goaway_plan_(goaway_plan) {}

H3ServerSession::~H3ServerSession() { nghttp3_conn_del(conn_); }

Result<void> H3ServerSession::start(std::uint64_t max_client_bidi_streams) {
  nghttp3_callbacks callbacks{};
  callbacks.begin_headers = &Callbacks::begin_headers;
  callbacks.recv_header = &Callbacks::recv_header;
  callbacks.recv_data = &Callbacks::recv_data;
  callbacks.deferred_consume = &Callbacks::deferred_consume;
  callbacks.end_stream = &Callbacks::end_stream;
  callbacks.acked_stream_data = &Callbacks::acked_stream_data;
  callbacks.stream_close = &Callbacks::stream_close;
  callbacks.stop_sending = &Callbacks::stop_sending;
  callbacks.reset_stream = &Callbacks::reset_stream;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  // Let the client's QPACK encoder use a dynamic table, as deployed servers do.
  settings.qpack_max_dtable_capacity = 4096;
  settings.qpack_blocked_streams = 100;
  int rv = nghttp3_conn_server_new(&conn_, &callbacks, &settings, nullptr, this);
  if (rv != 0) return library_failure(rv, "creating the server");
  nghttp3_conn_set_max_client_streams_bidi(conn_, max_client_bidi_streams);
  std::int64_t ids[3] = {-1, -1, -1};  // control, QPACK encoder, QPACK decoder
  for (std::int64_t& id : ids) {
    if (ngtcp2_conn_open_uni_stream(quic_, &id, nullptr) != 0) {
      return Error(ErrorCategory::protocol,
                   "QuicTestServer: the client allows fewer than 3 unidirectional streams");
    }
  }
  rv = nghttp3_conn_bind_control_stream(conn_, ids[0]);
  if (rv == 0) rv = nghttp3_conn_bind_qpack_streams(conn_, ids[1], ids[2]);
  if (rv != 0) return library_failure(rv, "binding its streams");
  return {};
}

QuicTestRequest& H3ServerSession::request(std::int64_t stream_id) {
  auto [found, added] = index_.try_emplace(stream_id, requests_.size());
  if (added) {
    requests_.emplace_back();
    requests_.back().stream_id = stream_id;
  }
  return requests_[found->second];
}

Result<void> H3ServerSession::library_failure(int rv, const char* what) {
  failure_code_ = nghttp3_err_infer_quic_app_error_code(rv);
  return Error(ErrorCategory::protocol,
               std::string("QuicTestServer: nghttp3 failed ") + what + ": " + nghttp3_strerror(rv));
}

void H3ServerSession::credit(std::int64_t stream_id, std::uint64_t n) {
  if (n == 0) return;
  (void)ngtcp2_conn_extend_max_stream_offset(quic_, stream_id, n);
  ngtcp2_conn_extend_max_offset(quic_, n);
}

// The GOAWAY plan: request streams past the first `processed` are never given to
// nghttp3 (so its GOAWAY names the first of them); their bytes are credited back
// so they block nothing else.
bool H3ServerSession::held_back(std::int64_t stream_id, std::size_t length) {
  if (!goaway_plan_ || !is_request_stream(stream_id)) return false;
  if (held_.count(stream_id) == 0 && admitted_.count(stream_id) == 0) {
    if (admitted_.size() < goaway_plan_->processed) {
      admitted_.insert(stream_id);
    } else {
      held_.insert(stream_id);
    }
    if (!goaway_sent_ && admitted_.size() + held_.size() >= goaway_plan_->in_flight)
      goaway_due_ = true;
  }
  if (held_.count(stream_id) == 0) return false;
  credit(stream_id, length);
  return true;
}

Result<void> H3ServerSession::on_stream_data(std::int64_t stream_id,
                                             std::span<const std::uint8_t> data, bool fin) {
  if (held_back(stream_id, data.size())) return {};
  const nghttp3_ssize rv =
      nghttp3_conn_read_stream(conn_, stream_id, data.data(), data.size(), fin ? 1 : 0);
  if (rv < 0) return library_failure(static_cast<int>(rv), "reading a stream");
  // What nghttp3 consumed, DATA payload excepted (recv_data credits that).
  credit(stream_id, static_cast<std::uint64_t>(rv));
  return {};
}

Result<void> H3ServerSession::on_acked(std::int64_t stream_id, std::uint64_t n) {
  if (auto cut = head_cuts_.find(stream_id); cut != head_cuts_.end()) {
    HeadCut& head = cut->second;
    head.acked += n;
    if (head.acked >= head.limit && !head.reset_scheduled) {
      head.reset_scheduled = true;
      due_resets_.push_back(stream_id);
    }
  }
  const int rv = nghttp3_conn_add_ack_offset(conn_, stream_id, n);
  if (rv != 0 && nghttp3_err_is_fatal(rv)) return library_failure(rv, "taking an acknowledgement");
  return {};
}

Result<void> H3ServerSession::on_stream_closed(std::int64_t stream_id, std::uint64_t app_error) {
  if (held_.count(stream_id) != 0) return {};  // nghttp3 never saw it
  const int rv = nghttp3_conn_close_stream(conn_, stream_id, app_error);
  // A stream nghttp3 never saw a byte of closes without it knowing: no error.
  if (rv != 0 && rv != NGHTTP3_ERR_STREAM_NOT_FOUND) return library_failure(rv, "closing a stream");
  return {};
}

Result<void> H3ServerSession::on_stream_reset(std::int64_t stream_id, std::uint64_t app_error) {
  if (held_.count(stream_id) != 0) return {};  // nghttp3 never saw it
  if (index_.count(stream_id) != 0) request(stream_id).reset = app_error;
  const int rv = nghttp3_conn_shutdown_stream_read(conn_, stream_id);
  if (rv != 0 && nghttp3_err_is_fatal(rv)) return library_failure(rv, "dropping a reset stream");
  return {};
}

Result<void> H3ServerSession::on_writable(std::int64_t stream_id) {
  if (auto cut = head_cuts_.find(stream_id);
      cut != head_cuts_.end() && cut->second.written >= cut->second.limit) {
    return {};  // a cut head stays blocked: the rest of its frame never leaves
  }
  const int rv = nghttp3_conn_unblock_stream(conn_, stream_id);
  if (rv != 0 && nghttp3_err_is_fatal(rv)) return library_failure(rv, "unblocking a stream");
  return {};
}

void H3ServerSession::on_max_client_streams(std::uint64_t max_streams) {
  nghttp3_conn_set_max_client_streams_bidi(conn_, max_streams);
}

Result<H3ServerSession::Output> H3ServerSession::next_output(std::span<nghttp3_vec> vecs) {
  while (true) {
    Output output;
    int fin = 0;
    const nghttp3_ssize n =
        nghttp3_conn_writev_stream(conn_, &output.stream_id, &fin, vecs.data(), vecs.size());
    if (n < 0) return library_failure(static_cast<int>(n), "writing").error();
    output.fin = fin != 0;
    output.count = static_cast<std::size_t>(n);
    auto trimmed = trim_to_head_cut(output, vecs);
    if (!trimmed) return std::move(trimmed).error();
    if (*trimmed) return output;
  }
}

Result<bool> H3ServerSession::trim_to_head_cut(Output& output, std::span<nghttp3_vec> vecs) {
  auto cut = head_cuts_.find(output.stream_id);
  if (cut == head_cuts_.end()) return true;
  const HeadCut& head = cut->second;
  std::uint64_t room = head.limit - std::min(head.written, head.limit);
  if (room == 0) {
    nghttp3_conn_block_stream(conn_, output.stream_id);
    return false;
  }
  std::uint64_t offered = 0;
  for (std::size_t i = 0; i < output.count; ++i) offered += vecs[i].len;
  if (output.fin && offered <= room) {  // the whole head fits under the cut
    return Error(ErrorCategory::usage, "QuicTestServer: reset_mid_headers after " +
                                           std::to_string(head.limit) +
                                           " bytes reaches past the HEADERS frame (" +
                                           std::to_string(head.written + offered) + " bytes)");
  }
  std::size_t count = 0;
  for (; count < output.count && room > 0; ++count) {
    vecs[count].len = static_cast<std::size_t>(std::min<std::uint64_t>(vecs[count].len, room));
    room -= vecs[count].len;
  }
  output.count = count;
  output.fin = false;
  return true;
}

Result<void> H3ServerSession::written(std::int64_t stream_id, std::size_t n) {
  if (auto cut = head_cuts_.find(stream_id); cut != head_cuts_.end()) cut->second.written += n;
  const int rv = nghttp3_conn_add_write_offset(conn_, stream_id, n);
  if (rv != 0) return library_failure(rv, "moving its write offset");
  return {};
}

void H3ServerSession::blocked(std::int64_t stream_id) {
  nghttp3_conn_block_stream(conn_, stream_id);
}

void H3ServerSession::shut_write(std::int64_t stream_id) {
  nghttp3_conn_shutdown_stream_write(conn_, stream_id);
}

// STOP_SENDING for each upload the script picked, then the handler answers it.
void H3ServerSession::apply_stops() {
  for (const std::int64_t stream_id : std::exchange(due_stops_, {})) {
    // Fails only for a stream already gone: then there is nothing to stop.
    (void)ngtcp2_conn_shutdown_stream_read(quic_, stream_id, stop_sending_->app_error);
    (void)nghttp3_conn_shutdown_stream_read(conn_, stream_id);
    ended_.push_back(stream_id);
  }
}

Result<std::optional<QuicTestCloseError>> H3ServerSession::answer_requests() {
  apply_stops();
  if (goaway_due_ && !goaway_sent_) {
    goaway_sent_ = true;
    if (auto sent = goaway(); !sent) return std::move(sent).error();
  }
  while (!ended_.empty() && !close_) {
    const std::int64_t stream_id = ended_.front();
    ended_.pop_front();
    // The handler sees the request by reference; nothing adds requests meanwhile.
    const QuicTestResponse response = handler_ ? handler_(request(stream_id)) : QuicTestResponse{};
    auto acted = act(stream_id, response);
    if (!acted) return std::move(acted).error();
  }
  return std::exchange(close_, std::nullopt);
}

Result<void> H3ServerSession::act(std::int64_t stream_id, const QuicTestResponse& response) {
  switch (response.action) {
    case QuicTestAction::respond: return respond(stream_id, response, false);
    case QuicTestAction::reset_mid_body:
    case QuicTestAction::go_silent_mid_body: return respond(stream_id, response, true);
    case QuicTestAction::reset_before_headers: reset(stream_id, response.app_error); return {};
    case QuicTestAction::reset_mid_headers: {
      head_cuts_[stream_id] = HeadCut{std::max<std::uint64_t>(response.reset_after, 1), 0, 0,
                                      response.app_error, false};
      QuicTestResponse head_only = QuicTestResponse::text("", response.status);
      head_only.headers = response.headers;  // a longer head moves the cut's room
      return respond(stream_id, head_only, false);
    }
    case QuicTestAction::close_connection:
      close_ = QuicTestCloseError{true, response.app_error, ""};
      return {};
    case QuicTestAction::close_with_transport_error:
      close_ = QuicTestCloseError{false, response.transport_error, response.close_reason};
      return {};
    case QuicTestAction::never_answer: return {};
    case QuicTestAction::stateless_reset: forgotten_ = true; return {};
  }
  return {};
}

Result<void> H3ServerSession::respond(std::int64_t stream_id, const QuicTestResponse& response,
                                      bool cut) {
  const std::uint64_t size = body_size(response.body);
  if (cut && size == 0) {  // nothing to send before the reset
    reset(stream_id, response.app_error);
    return {};
  }
  std::vector<Header> fields{{":status", std::to_string(response.status)}};
  fields.insert(fields.end(), response.headers.begin(), response.headers.end());
  if (!response.headers.contains("content-length"))
    fields.push_back({"content-length", std::to_string(size)});
  std::vector<nghttp3_nv> nva;
  for (const Header& header : fields) nva.push_back(field(header));
  const nghttp3_data_reader reader{&Callbacks::read_data};
  if (size > 0) {
    // At least one byte before the reset: a reset with nothing acknowledged would
    // wait for an acknowledgement that never comes.
    std::optional<std::uint64_t> cut_at;
    if (cut) cut_at = std::clamp<std::uint64_t>(response.reset_after, 1, size);
    replies_.insert_or_assign(stream_id,
                              Reply{ReplyBody(response.body, cut_at), response.app_error,
                                    response.action == QuicTestAction::go_silent_mid_body});
  }
  // nghttp3 copies the fields; the body stays in replies_ until the stream closes.
  const int rv = nghttp3_conn_submit_response(conn_, stream_id, nva.data(), nva.size(),
                                              size > 0 ? &reader : nullptr);
  if (rv != 0) return library_failure(rv, "submitting a response");
  return {};
}

void H3ServerSession::reset(std::int64_t stream_id, std::uint64_t app_error) {
  nghttp3_conn_shutdown_stream_write(conn_, stream_id);
  // Fails only for a stream already gone: then there is nothing left to reset.
  (void)ngtcp2_conn_shutdown_stream_write(quic_, stream_id, app_error);
}

std::uint64_t H3ServerSession::cut_head_bytes_written() const {
  std::uint64_t total = 0;
  for (const auto& [id, head] : head_cuts_) total += head.written;
  return total;
}

std::uint64_t H3ServerSession::cut_head_bytes_acked() const {
  std::uint64_t total = 0;
  for (const auto& [id, head] : head_cuts_) total += head.acked;
  return total;
}

void H3ServerSession::apply_due_resets() {
  for (const std::int64_t stream_id : std::exchange(due_resets_, {})) {
    if (auto head = head_cuts_.find(stream_id); head != head_cuts_.end()) {
      reset(stream_id, head->second.app_error);
    } else if (auto found = replies_.find(stream_id); found != replies_.end()) {
      reset(stream_id, found->second.app_error);
    }
  }
}

Result<void> H3ServerSession::goaway() {
  int rv = nghttp3_conn_submit_shutdown_notice(conn_);
  // The notice says "soon"; shutdown says which streams are the last, at once.
  if (rv == 0) rv = nghttp3_conn_shutdown(conn_);
  if (rv != 0) return library_failure(rv, "sending GOAWAY");
  return {};
}

}  // namespace sluice::test
