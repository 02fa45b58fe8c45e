// H2TestPeer and the recording fakes (see h2_test_peer.hpp).

#include "support/h2_test_peer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "core/byte_queue.hpp"
#include "http2/h2_session.hpp"

namespace sluice::test {
namespace {

nghttp2_nv make_nv(const Header& field) {
  return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.value.data())),
                    field.name.size(), field.value.size(), NGHTTP2_NV_FLAG_NONE};
}

std::vector<nghttp2_nv> make_nva(const std::vector<Header>& fields) {
  std::vector<nghttp2_nv> nva;
  for (const Header& field : fields) nva.push_back(make_nv(field));
  return nva;
}

std::vector<Header> with_status(int status, const Headers& headers) {
  std::vector<Header> fields{{":status", std::to_string(status)}};
  for (const Header& field : headers) fields.push_back(field);
  return fields;
}

}  // namespace

struct H2TestPeer::Callbacks {
  static H2TestPeer& peer(void* user_data) { return *static_cast<H2TestPeer*>(user_data); }

  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    H2TestPeer& self = peer(user_data);
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      self.requests_[frame->hd.stream_id].stream_id = frame->hd.stream_id;
      self.order_.push_back(frame->hd.stream_id);
    }
    return 0;
  }
  static int header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                    std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                    std::uint8_t, void* user_data) {
    H2TestPeer& self = peer(user_data);
    auto found = self.requests_.find(frame->hd.stream_id);
    if (found != self.requests_.end()) {
      found->second.headers.add(std::string(reinterpret_cast<const char*>(name), namelen),
                                std::string(reinterpret_cast<const char*>(value), valuelen));
    }
    return 0;
  }
  static int frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    H2TestPeer& self = peer(user_data);
    auto found = self.requests_.find(frame->hd.stream_id);
    if (frame->hd.type == NGHTTP2_PING && !(frame->hd.flags & NGHTTP2_FLAG_ACK)) ++self.pings_;
    // nghttp2 has applied the new window (or SETTINGS_INITIAL_WINDOW_SIZE) by now; a
    // body the send policy deferred may go. nghttp2 itself resumes only what it
    // deferred for a closed window, never what the read callback deferred.
    if (frame->hd.type == NGHTTP2_WINDOW_UPDATE || frame->hd.type == NGHTTP2_SETTINGS) {
      self.resume_waiting_for_window();
    }
    if (found == self.requests_.end()) return 0;
    if (frame->hd.type == NGHTTP2_RST_STREAM)
      found->second.reset_code = frame->rst_stream.error_code;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      found->second.head_received = true;
    }
    if ((frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      found->second.ended = true;
    }
    return 0;
  }
  static int data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id,
                        const std::uint8_t* data, std::size_t len, void* user_data) {
    H2TestPeer& self = peer(user_data);
    auto found = self.requests_.find(stream_id);
    if (found != self.requests_.end()) {
      found->second.body.append(reinterpret_cast<const char*>(data), len);
    }
    return 0;
  }
  static int stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t,
                          void* user_data) {
    H2TestPeer& self = peer(user_data);
    auto found = self.requests_.find(stream_id);
    if (found != self.requests_.end()) found->second.closed = true;
    return 0;
  }
  static ssize_t padding(nghttp2_session*, const nghttp2_frame* frame, std::size_t max_payloadlen,
                         void* user_data) {
    H2TestPeer& self = peer(user_data);
    if (frame->hd.type != NGHTTP2_DATA) return static_cast<ssize_t>(frame->hd.length);
    return static_cast<ssize_t>(
        std::min(max_payloadlen, frame->hd.length + self.options_.data_padding));
  }
  static ssize_t body(nghttp2_session*, std::int32_t stream_id, std::uint8_t* buf,
                      std::size_t length, std::uint32_t* data_flags, nghttp2_data_source*,
                      void* user_data) {
    return peer(user_data).read_body(stream_id, {buf, length}, *data_flags);
  }
};

H2TestPeer::H2TestPeer(H2PeerOptions options) : options_(std::move(options)) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Callbacks::begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Callbacks::header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Callbacks::frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Callbacks::data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Callbacks::stream_close);
  if (options_.data_padding > 0) {
    nghttp2_session_callbacks_set_select_padding_callback(callbacks, &Callbacks::padding);
  }
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  nghttp2_option_set_max_send_header_block_length(option, options_.max_send_header_block);
  if (nghttp2_session_server_new2(&session_, callbacks, this, option) != 0)
    note("server_new failed");
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  if (nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, options_.settings.data(),
                              options_.settings.size()) != 0) {
    note("submit_settings failed");
  }
}

H2TestPeer::~H2TestPeer() { nghttp2_session_del(session_); }

void H2TestPeer::note(const std::string& what) {
  if (error_.empty()) error_ = what;
}

void H2TestPeer::receive(std::span<const std::byte> bytes) {
  const ssize_t rv = nghttp2_session_mem_recv(
      session_, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (rv < 0) note(std::string("server mem_recv: ") + nghttp2_strerror(static_cast<int>(rv)));
}

std::string H2TestPeer::take_output() {
  std::string out = std::move(raw_);
  raw_.clear();
  for (;;) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      note(std::string("server mem_send: ") + nghttp2_strerror(static_cast<int>(n)));
      break;
    }
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  return out;
}

const H2TestPeer::Request* H2TestPeer::request(std::int32_t stream_id) const {
  auto found = requests_.find(stream_id);
  return found == requests_.end() ? nullptr : &found->second;
}

void H2TestPeer::submit_head(std::int32_t stream_id, int status, const Headers& headers,
                             bool end_stream) {
  const std::vector<Header> fields = with_status(status, headers);
  const auto nva = make_nva(fields);
  nghttp2_data_provider provider{};
  provider.read_callback = &Callbacks::body;
  outgoing_[stream_id];
  if (nghttp2_submit_response(session_, stream_id, nva.data(), nva.size(),
                              end_stream ? nullptr : &provider) != 0) {
    note("submit_response failed");
  }
}

void H2TestPeer::respond(std::int32_t stream_id, int status, Headers headers, bool end_stream) {
  submit_head(stream_id, status, headers, end_stream);
}

void H2TestPeer::send_interim(std::int32_t stream_id, int status) {
  const std::vector<Header> fields = with_status(status, {});
  const auto nva = make_nva(fields);
  if (nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, stream_id, nullptr, nva.data(),
                             nva.size(), nullptr) < 0) {
    note("submit_headers (interim) failed");
  }
}

// nghttp2's read callback for response bodies. `buf` is already no longer than the
// windows and the frame size allow; the send policy may allow less, or nothing yet.
ssize_t H2TestPeer::read_body(std::int32_t stream_id, std::span<std::uint8_t> buf,
                              std::uint32_t& flags) {
  Outgoing& out = outgoing_[stream_id];
  if (out.pending.empty() && !out.end) {
    out.wait = Wait::body;
    return NGHTTP2_ERR_DEFERRED;
  }
  if (has_send_policy() && out.reserved == 0 && !out.pending.empty()) {
    const Reservation reservation = reserve(stream_id, out);
    if (reservation.wait != Wait::none) {
      out.wait = reservation.wait;
      return NGHTTP2_ERR_DEFERRED;
    }
    out.reserved = reservation.bytes;
  }
  std::size_t n = buf.size();
  if (has_send_policy()) n = static_cast<std::size_t>(std::min<std::uint64_t>(n, out.reserved));
  n = out.pending.read(std::as_writable_bytes(buf.first(n)));
  if (has_send_policy()) out.reserved -= n;
  out.sent += n;
  if (out.pending.empty() && out.end) end_body(stream_id, out, flags);
  return static_cast<ssize_t>(n);
}

// The last DATA frame: END_STREAM, or trailers after it.
void H2TestPeer::end_body(std::int32_t stream_id, const Outgoing& out, std::uint32_t& flags) {
  flags |= NGHTTP2_DATA_FLAG_EOF;
  if (!out.trailers) return;
  flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
  const std::vector<Header> fields(out.trailers->begin(), out.trailers->end());
  const auto nva = make_nva(fields);
  if (nghttp2_submit_trailer(session_, stream_id, nva.data(), nva.size()) != 0) {
    note("submit_trailer failed");
  }
}

// Whether a unit (data_unit) or a burst (min_send_window alone) may begin now, and
// how many bytes it commits to. Only called with body bytes queued.
H2TestPeer::Reservation H2TestPeer::reserve(std::int32_t stream_id, const Outgoing& out) const {
  const std::uint64_t window = send_window(stream_id);
  const std::uint64_t left = out.pending.size();
  // With the end queued, `left` is the whole rest of the body: no need to wait for
  // more window than it takes.
  const std::uint64_t gate =
      out.end ? std::min<std::uint64_t>(options_.min_send_window, left) : options_.min_send_window;
  if (options_.data_unit > 0) {
    if (left < options_.data_unit && !out.end) return {0, Wait::body};
    const std::uint64_t unit = std::min<std::uint64_t>(options_.data_unit, left);
    if (window < std::max(unit, gate)) return {0, Wait::window};
    return {unit, Wait::none};
  }
  if (window < gate) return {0, Wait::window};
  return {window, Wait::none};
}

std::uint64_t H2TestPeer::send_window(std::int32_t stream_id) const {
  const std::int32_t stream = nghttp2_session_get_stream_remote_window_size(session_, stream_id);
  const std::int32_t conn = nghttp2_session_get_remote_window_size(session_);
  return static_cast<std::uint64_t>(std::max(0, std::min(stream, conn)));
}

void H2TestPeer::resume(std::int32_t stream_id) {
  Outgoing& out = outgoing_[stream_id];
  if (out.wait == Wait::none) return;
  out.wait = Wait::none;
  nghttp2_session_resume_data(session_, stream_id);
}

void H2TestPeer::resume_waiting_for_window() {
  for (auto& [stream_id, out] : outgoing_) {
    if (out.wait == Wait::window) resume(stream_id);
  }
}

void H2TestPeer::send_body(std::int32_t stream_id, std::string_view bytes, bool end) {
  Outgoing& out = outgoing_[stream_id];
  out.pending.push(std::string(bytes));
  out.end = out.end || end;
  resume(stream_id);
}

void H2TestPeer::send_body_generated(std::int32_t stream_id, std::uint64_t size, std::uint64_t seed,
                                     bool end) {
  Outgoing& out = outgoing_[stream_id];
  out.pending.push_generated(size, seed);
  out.end = out.end || end;
  resume(stream_id);
}

void H2TestPeer::send_trailers(std::int32_t stream_id, Headers trailers) {
  Outgoing& out = outgoing_[stream_id];
  out.trailers = std::move(trailers);
  out.end = true;
  resume(stream_id);
}

void H2TestPeer::reset(std::int32_t stream_id, std::uint32_t error_code) {
  if (nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, error_code) != 0) {
    note("submit_rst_stream failed");
  }
}

void H2TestPeer::goaway(std::int32_t last_stream_id, std::uint32_t error_code) {
  if (nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_stream_id, error_code, nullptr, 0) !=
      0) {
    note("submit_goaway failed");
  }
}

void H2TestPeer::goaway(std::int32_t last_stream_id, std::uint32_t error_code,
                        std::string_view debug) {
  if (nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_stream_id, error_code,
                            reinterpret_cast<const std::uint8_t*>(debug.data()),
                            debug.size()) != 0) {
    note("submit_goaway failed");
  }
}

std::int32_t H2TestPeer::remote_window(std::int32_t stream_id) const {
  if (stream_id == 0) return nghttp2_session_get_remote_window_size(session_);
  return nghttp2_session_get_stream_remote_window_size(session_, stream_id);
}

std::size_t H2TestPeer::unsent_body(std::int32_t stream_id) const {
  auto found = outgoing_.find(stream_id);
  return found == outgoing_.end() ? 0 : static_cast<std::size_t>(found->second.pending.size());
}

std::uint64_t H2TestPeer::body_sent(std::int32_t stream_id) const {
  auto found = outgoing_.find(stream_id);
  return found == outgoing_.end() ? 0 : found->second.sent;
}

std::optional<Error> pump(H2Session& client, H2TestPeer& peer) {
  std::optional<Error> first;
  // Bounded: a test that loops forever should fail, not hang.
  for (int round = 0; round < 100000; ++round) {
    ByteQueue out;
    auto drained = client.drain_output(out);
    if (!drained && !first) first = drained.error();
    if (!out.empty()) peer.receive(out.readable());
    const std::string back = peer.take_output();
    if (!back.empty()) {
      auto fed = client.feed(as_bytes(back));
      if (!fed && !first) first = fed.error();
    }
    if (out.empty() && back.empty()) return first;
  }
  if (!first) first = Error(ErrorCategory::protocol, "pump: client and peer never went quiet");
  return first;
}

H2ClientHarness::H2ClientHarness(H2PeerOptions options, H2SessionOptions session_options)
    : trace([this](std::string_view line) { lines.emplace_back(line); }),
      peer(std::move(options)),
      session([this] { ++output_ready; }, trace, 1, clock, std::move(session_options)) {}

ExchangeRequest H2ClientHarness::get(std::string target) {
  ExchangeRequest request;
  request.method = "GET";
  request.scheme = "https";
  request.authority = "example.test";
  request.target = std::move(target);
  // The peers' scenarios are written for a 256 KiB first window; how far it grows
  // is the policy's (WindowPolicy::max_window), as before the allowance.
  request.allowance = BodyAllowance{256 * 1024, SIZE_MAX};
  return request;
}

ExchangeRequest H2ClientHarness::post(RequestBodySource& body) {
  ExchangeRequest request = get("/upload");
  request.method = "POST";
  request.body = &body;
  return request;
}

std::int32_t H2ClientHarness::submit(ExchangeRequest request, ExchangeSink& sink) {
  auto stream_id = session.submit(request, sink);
  EXPECT_TRUE(stream_id.ok()) << (stream_id.ok() ? "" : stream_id.error().message());
  return stream_id.ok() ? *stream_id : 0;
}

void H2ClientHarness::round_trip(std::chrono::nanoseconds delay) {
  ByteQueue out;
  if (auto drained = session.drain_output(out); !drained) pump_errors.push_back(drained.error());
  if (!out.empty()) peer.receive(out.readable());
  clock.advance(delay);
  const std::string back = peer.take_output();
  if (back.empty()) return;
  auto fed = session.feed(std::as_bytes(std::span<const char>(back.data(), back.size())));
  if (!fed) pump_errors.push_back(fed.error());
}

void H2ClientHarness::pump() {
  if (auto error = test::pump(session, peer)) pump_errors.push_back(*error);
  EXPECT_EQ(peer.error(), "");
}

bool H2ClientHarness::traced(std::string_view part) const {
  for (const auto& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string h2_frame(std::uint8_t type, std::uint8_t flags, std::int32_t stream_id,
                     std::string_view payload) {
  std::string frame;
  const std::size_t length = payload.size();
  frame += static_cast<char>((length >> 16) & 0xff);
  frame += static_cast<char>((length >> 8) & 0xff);
  frame += static_cast<char>(length & 0xff);
  frame += static_cast<char>(type);
  frame += static_cast<char>(flags);
  frame += h2_uint32(static_cast<std::uint32_t>(stream_id) & 0x7fffffffu);
  frame.append(payload);
  return frame;
}

std::string h2_uint32(std::uint32_t value) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xff);
  return out;
}

std::string data_frame(std::int32_t stream_id, std::string_view payload, bool end_stream) {
  return h2_frame(NGHTTP2_DATA, end_stream ? NGHTTP2_FLAG_END_STREAM : NGHTTP2_FLAG_NONE, stream_id,
                  payload);
}

std::string settings_frame(const std::vector<nghttp2_settings_entry>& entries) {
  std::string payload;
  for (const nghttp2_settings_entry& entry : entries) {
    payload += static_cast<char>((entry.settings_id >> 8) & 0xff);
    payload += static_cast<char>(entry.settings_id & 0xff);
    payload += h2_uint32(entry.value);
  }
  return h2_frame(NGHTTP2_SETTINGS, NGHTTP2_FLAG_NONE, 0, payload);
}

std::string window_update_frame(std::int32_t stream_id, std::uint32_t increment) {
  return h2_frame(NGHTTP2_WINDOW_UPDATE, NGHTTP2_FLAG_NONE, stream_id,
                  h2_uint32(increment & 0x7fffffffu));
}

std::string goaway_frame(std::int32_t last_stream_id, std::uint32_t error_code,
                         std::string_view debug) {
  std::string payload = h2_uint32(static_cast<std::uint32_t>(last_stream_id) & 0x7fffffffu);
  payload += h2_uint32(error_code);
  payload.append(debug);
  return h2_frame(NGHTTP2_GOAWAY, NGHTTP2_FLAG_NONE, 0, payload);
}

std::string rst_stream_frame(std::int32_t stream_id, std::uint32_t error_code) {
  return h2_frame(NGHTTP2_RST_STREAM, NGHTTP2_FLAG_NONE, stream_id, h2_uint32(error_code));
}

std::string h2_client_opening(const std::vector<nghttp2_settings_entry>& settings,
                              std::string_view path) {
  // A HPACK literal field with a name from the static table (RFC 7541 6.2.2,
  // "without indexing"), values shorter than 127 bytes.
  const auto literal = [](std::uint8_t name_index, std::string_view value) {
    std::string field;
    field += static_cast<char>(name_index);
    field += static_cast<char>(value.size());
    field.append(value);
    return field;
  };
  std::string block;
  block += static_cast<char>(0x82);     // :method GET (static table entry 2)
  block += static_cast<char>(0x86);     // :scheme http (entry 6)
  block += literal(4, path);            // :path
  block += literal(1, "example.test");  // :authority
  std::string out(NGHTTP2_CLIENT_MAGIC, NGHTTP2_CLIENT_MAGIC_LEN);
  out += settings_frame(settings);
  out += h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_END_STREAM, 1, block);
  return out;
}

std::vector<H2Frame> take_h2_frames(std::string& bytes) {
  std::vector<H2Frame> frames;
  std::size_t at = 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[at + i]); };
  while (bytes.size() - at >= 9) {
    const std::size_t length = (std::size_t{byte(0)} << 16) | (std::size_t{byte(1)} << 8) | byte(2);
    if (bytes.size() - at < 9 + length) break;
    H2Frame frame;
    frame.type = byte(3);
    frame.flags = byte(4);
    frame.stream_id =
        static_cast<std::int32_t>(((std::uint32_t{byte(5)} << 24) | (std::uint32_t{byte(6)} << 16) |
                                   (std::uint32_t{byte(7)} << 8) | byte(8)) &
                                  0x7fffffffu);
    frame.payload = bytes.substr(at + 9, length);
    frames.push_back(std::move(frame));
    at += 9 + length;
  }
  bytes.erase(0, at);
  return frames;
}

void RecordingSink::check_open() {
  if (completed || error) ++events_after_end;
}

void RecordingSink::on_response_head(ReceivedHead response_head) {
  check_open();
  head = std::move(response_head);
}

void RecordingSink::on_body(std::span<const std::byte> bytes) {
  check_open();
  body.append(as_text(bytes));
  if (held_bytes() >= mark_) paused_ = true;
  if (after_body) after_body();
}

void RecordingSink::on_trailers(Headers fields) {
  check_open();
  trailers = std::move(fields);
}

void RecordingSink::on_complete() {
  check_open();
  completed = true;
  if (on_end) on_end();
}

void RecordingSink::on_error(Error failure) {
  check_open();
  error = std::move(failure);
  if (on_end) on_end();
}

void RecordingSink::report_taken_after(std::size_t bytes) {
  report_at_ = bytes == 0 ? 0 : taken_at_look_ + bytes;
  report_due_ = report_at_ != 0 && taken_ >= report_at_;
  if (report_due_) report_at_ = 0;
}

bool RecordingSink::take(std::size_t n) {
  taken_ += std::min(n, body.size() - taken_);
  bool post = std::exchange(report_due_, false);
  if (report_at_ != 0 && taken_ >= report_at_) {
    report_at_ = 0;
    post = true;
  }
  const std::size_t held = hold_ ? body.size() - taken_ : 0;
  if (paused_ && held < mark_ / 2) {
    paused_ = false;
    post = true;
  }
  return post;
}

SourceChunk ScriptedBody::peek(std::size_t max) {
  ++peeks_;
  SourceChunk chunk;
  if (offset_ < data_.size()) {
    chunk.state = SourceChunk::State::data;
    const std::size_t n = std::min(max, data_.size() - offset_);
    chunk.bytes = as_bytes(std::string_view(data_).substr(offset_, n));
  } else if (error_) {
    chunk.state = SourceChunk::State::failed;
    chunk.error = error_;
  } else if (end_) {
    chunk.state = SourceChunk::State::end;
  }
  return chunk;
}

void ScriptedBody::provide(std::string_view bytes, bool end) {
  data_.append(bytes);
  end_ = end_ || end;
  if (waker_) waker_();
}

void ScriptedBody::fail(Error error) {
  error_ = std::move(error);
  if (waker_) waker_();
}

}  // namespace sluice::test
