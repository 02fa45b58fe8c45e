// H3TestPeer: the fake QUIC transport and the nghttp3 server (see h3_test_peer.hpp).

#include "support/h3_test_peer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace sluice::test {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max() / 4;
// Bounds on the work of one pump: a test that loops forever should fail, not hang.
constexpr int kRounds = 200000;
constexpr int kWritesPerRound = 4096;
// Generated body is made in pieces of this size as nghttp3 asks (and freed on ack).
constexpr std::size_t kGeneratedPiece = 64 * 1024;

bool is_bidi(std::int64_t stream_id) { return (stream_id & 0x2) == 0; }

nghttp3_nv make_nv(const Header& field) {
  return nghttp3_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(field.value.data())),
                    field.name.size(), field.value.size(), NGHTTP3_NV_FLAG_NONE};
}

std::vector<nghttp3_nv> make_nva(const std::vector<Header>& fields) {
  std::vector<nghttp3_nv> nva;
  for (const Header& field : fields) nva.push_back(make_nv(field));
  return nva;
}

std::vector<Header> with_status(int status, const Headers& headers) {
  std::vector<Header> fields{{":status", std::to_string(status)}};
  for (const Header& field : headers) fields.push_back(field);
  return fields;
}

std::string text(nghttp3_rcbuf* buf) {
  const nghttp3_vec vec = nghttp3_rcbuf_get_buf(buf);
  return {reinterpret_cast<const char*>(vec.base), vec.len};
}

}  // namespace

std::string quic_varint(std::uint64_t value) {
  std::string out;
  auto put = [&](int bytes, std::uint8_t prefix) {
    for (int i = bytes - 1; i >= 0; --i) {
      std::uint8_t byte = static_cast<std::uint8_t>(value >> (8 * i));
      if (i == bytes - 1) byte |= prefix;
      out += static_cast<char>(byte);
    }
  };
  if (value < 64) {
    put(1, 0x00);
  } else if (value < 16384) {
    put(2, 0x40);
  } else if (value < (1u << 30)) {
    put(4, 0x80);
  } else {
    put(8, 0xc0);
  }
  return out;
}

std::string h3_frame(std::uint64_t type, std::string_view payload) {
  return quic_varint(type) + quic_varint(payload.size()) + std::string(payload);
}

// The nghttp3 server's callbacks: record requests, serve queued bodies.
struct H3TestPeer::Callbacks {
  static H3TestPeer& peer(void* user_data) { return *static_cast<H3TestPeer*>(user_data); }

  static int begin_headers(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) {
    H3TestPeer& self = peer(user_data);
    if (self.requests_.count(stream_id) == 0) {
      self.requests_[stream_id].stream_id = stream_id;
      self.order_.push_back(stream_id);
    }
    return 0;
  }
  static int recv_header(nghttp3_conn*, std::int64_t stream_id, std::int32_t, nghttp3_rcbuf* name,
                         nghttp3_rcbuf* value, std::uint8_t, void* user_data, void*) {
    peer(user_data).requests_[stream_id].headers.add(text(name), text(value));
    return 0;
  }
  static int end_headers(nghttp3_conn*, std::int64_t stream_id, int, void* user_data, void*) {
    peer(user_data).requests_[stream_id].head_received = true;
    return 0;
  }
  static int recv_data(nghttp3_conn*, std::int64_t stream_id, const std::uint8_t* data,
                       std::size_t len, void* user_data, void*) {
    peer(user_data).requests_[stream_id].body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }
  static int end_stream(nghttp3_conn*, std::int64_t stream_id, void* user_data, void*) {
    peer(user_data).requests_[stream_id].ended = true;
    return 0;
  }
  static int acked_stream_data(nghttp3_conn*, std::int64_t stream_id, std::uint64_t n,
                               void* user_data, void*) {
    Outgoing& out = peer(user_data).outgoing_[stream_id];
    out.acked += n;
    while (!out.pieces.empty() && out.next > 0 && out.acked >= out.pieces.front().size()) {
      out.acked -= out.pieces.front().size();
      out.pieces.pop_front();
      --out.next;
    }
    return 0;
  }
  static int library_reset(nghttp3_conn*, std::int64_t stream_id, std::uint64_t app_error,
                           void* user_data, void*) {
    peer(user_data).note("the server's nghttp3 reset stream " + std::to_string(stream_id) +
                         " (a malformed request) with code " + std::to_string(app_error));
    return 0;
  }
  static nghttp3_ssize read_data(nghttp3_conn*, std::int64_t stream_id, nghttp3_vec* vec,
                                 std::size_t veccnt, std::uint32_t* flags, void* user_data, void*) {
    Outgoing& out = peer(user_data).outgoing_[stream_id];
    std::size_t count = 0;
    // Given pieces move whole; generated body is made only up to one piece's worth
    // per call, so a large one never sits in memory at once.
    std::size_t budget = kGeneratedPiece;
    while (count < veccnt) {
      if (out.next == out.pieces.size()) {
        std::string piece = out.queued.take(budget);
        if (piece.empty()) break;
        budget -= std::min(budget, piece.size());
        out.pieces.push_back(std::move(piece));  // a deque: earlier pieces stay put
      }
      std::string& piece = out.pieces[out.next++];
      vec[count].base = reinterpret_cast<std::uint8_t*>(piece.data());
      vec[count].len = piece.size();
      ++count;
    }
    if (out.next == out.pieces.size() && out.queued.empty() && out.end) {
      *flags |= NGHTTP3_DATA_FLAG_EOF;
      return static_cast<nghttp3_ssize>(count);
    }
    if (count == 0) {
      out.blocked = true;
      return NGHTTP3_ERR_WOULDBLOCK;
    }
    return static_cast<nghttp3_ssize>(count);
  }
};

H3TestPeer::H3TestPeer(QuicApplication& client, H3PeerOptions options)
    : client_(client), options_(options), max_bidi_(options.max_bidi_streams) {
  nghttp3_callbacks callbacks{};
  callbacks.acked_stream_data = &Callbacks::acked_stream_data;
  callbacks.recv_data = &Callbacks::recv_data;
  callbacks.begin_headers = &Callbacks::begin_headers;
  callbacks.recv_header = &Callbacks::recv_header;
  callbacks.end_headers = &Callbacks::end_headers;
  callbacks.begin_trailers = &Callbacks::begin_headers;
  callbacks.recv_trailer = &Callbacks::recv_header;
  callbacks.end_trailers = &Callbacks::end_headers;
  callbacks.stop_sending = &Callbacks::library_reset;
  callbacks.reset_stream = &Callbacks::library_reset;
  callbacks.end_stream = &Callbacks::end_stream;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  settings.qpack_max_dtable_capacity = options_.qpack_max_dtable_capacity;
  settings.qpack_blocked_streams = options_.qpack_blocked_streams;
  settings.qpack_encoder_max_dtable_capacity = options_.qpack_encoder_max_dtable_capacity;
  if (nghttp3_conn_server_new(&server_, &callbacks, &settings, nullptr, this) != 0) {
    note("nghttp3_conn_server_new failed");
    return;
  }
  nghttp3_conn_set_max_client_streams_bidi(server_, max_bidi_);
  // The server's own unidirectional streams: control, QPACK encoder and decoder.
  if (nghttp3_conn_bind_control_stream(server_, 3) != 0 ||
      nghttp3_conn_bind_qpack_streams(server_, 7, 11) != 0) {
    note("binding the server's streams failed");
  }
}

H3TestPeer::~H3TestPeer() { nghttp3_conn_del(server_); }

void H3TestPeer::note(const std::string& what) {
  if (error_.empty()) error_ = what;
}

H3TestPeer::Pipe& H3TestPeer::pipe(std::int64_t stream_id) {
  auto [found, added] = pipes_.try_emplace(stream_id);
  if (added) {
    // Both ways unlimited on unidirectional streams (QUIC's stream windows for them
    // are not what the session manages); request streams start with the windows.
    const bool bidi = is_bidi(stream_id);
    found->second.up.window = bidi ? options_.server_stream_window : kUnlimited;
    found->second.down.window = bidi ? options_.initial_client_window : kUnlimited;
  }
  return found->second;
}

const H3TestPeer::Pipe* H3TestPeer::find_pipe(std::int64_t stream_id) const {
  auto found = pipes_.find(stream_id);
  return found == pipes_.end() ? nullptr : &found->second;
}

Result<std::int64_t> H3TestPeer::open_bidi_stream() {
  if (connection_closed_) return Error(ErrorCategory::protocol, "QUIC: the connection is closed");
  if (bidi_opened_ >= max_bidi_) {
    return Error(ErrorCategory::protocol, "QUIC: the server's stream limit is reached");
  }
  ++bidi_opened_;
  const std::int64_t stream_id = next_bidi_;
  next_bidi_ += 4;
  pipe(stream_id);
  return stream_id;
}

Result<std::int64_t> H3TestPeer::open_uni_stream() {
  if (connection_closed_) return Error(ErrorCategory::protocol, "QUIC: the connection is closed");
  const std::int64_t stream_id = next_uni_;
  next_uni_ += 4;
  pipe(stream_id);
  return stream_id;
}

std::uint64_t H3TestPeer::bidi_streams_left() const {
  return max_bidi_ > bidi_opened_ ? max_bidi_ - bidi_opened_ : 0;
}

void H3TestPeer::extend_stream(std::int64_t stream_id, std::uint64_t n) {
  Direction& down = pipe(stream_id).down;
  down.credited += n;
  if (down.credited > down.delivered) {
    note("client credited stream " + std::to_string(stream_id) + " up to " +
         std::to_string(down.credited) + " bytes, beyond the " + std::to_string(down.delivered) +
         " it received");
  }
  unblock_server(stream_id);
}

void H3TestPeer::set_stream_window(std::int64_t stream_id, std::uint64_t window) {
  pipe(stream_id).down.window = window;
  unblock_server(stream_id);
}

void H3TestPeer::grow_stream_window(std::int64_t stream_id, std::uint64_t by) {
  pipe(stream_id).down.window += by;
  unblock_server(stream_id);
}

// MAX_STREAM_DATA reached the server: a stream it could not send on may go again.
void H3TestPeer::unblock_server(std::int64_t stream_id) {
  if (has_send_policy(stream_id)) {
    move_staged(stream_id);
    return;
  }
  Direction& down = pipe(stream_id).down;
  if (!down.blocked || down.room() == 0) return;
  down.blocked = false;
  if (nghttp3_conn_unblock_stream(server_, stream_id) != 0) note("server unblock_stream failed");
}

// RESET_STREAM and STOP_SENDING from the client. The server's transport discards
// what it had not read, and answers STOP_SENDING with a RESET_STREAM of its own.
void H3TestPeer::shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) {
  Pipe& p = pipe(stream_id);
  if (!p.client_reset) p.client_reset = app_error;
  if (!p.up.reset && !(p.up.fin && p.up.pending.empty() && p.up.unacked == 0)) {
    p.up.reset = app_error;
    p.up.pending.clear();
    p.up.pieces.clear();
    p.up.unacked = 0;
    nghttp3_conn_shutdown_stream_read(server_, stream_id);
  }
  if (!p.down.reset && !p.down.fin_delivered) {
    p.down.reset = app_error;
    clear_down(p);
    nghttp3_conn_shutdown_stream_write(server_, stream_id);
    events_.push_back(
        [this, stream_id, app_error] { client_.on_stream_reset(stream_id, app_error); });
  }
}

// A reset direction drops what it had not delivered, sent or only staged.
void H3TestPeer::clear_down(Pipe& p) {
  p.down.pending.clear();
  p.down.pieces.clear();
  p.staged = Staged{};
}

std::optional<Error> H3TestPeer::start() {
  auto started = client_.on_handshake_completed(*this);
  if (!started) return started.error();
  return std::nullopt;
}

std::optional<Error> H3TestPeer::pump() {
  for (int round = 0; round < kRounds && !connection_closed_; ++round) {
    bool moved = client_write();
    moved = server_read() || moved;
    moved = server_write() || moved;
    moved = client_read() || moved;
    moved = run_events() || moved;
    moved = close_streams() || moved;
    if (!moved) return std::exchange(client_error_, std::nullopt);
  }
  if (!connection_closed_) note("pump: client and server never went quiet");
  return std::exchange(client_error_, std::nullopt);
}

void H3TestPeer::client_failed(const Error& error) {
  if (!client_error_ && !connection_closed_) client_error_ = error;
  close_connection(error);
}

void H3TestPeer::close_connection(const Error& error) {
  if (connection_closed_) return;
  connection_closed_ = true;
  events_.clear();
  client_.on_connection_closed(error);
}

bool H3TestPeer::client_write() {
  bool moved = false;
  for (int i = 0; i < kWritesPerRound && !connection_closed_; ++i) {
    std::array<QuicVec, 16> vecs{};
    auto out = client_.next_output(vecs);
    if (!out) {
      client_failed(out.error());
      return true;
    }
    if (out->stream_id < 0) return moved;
    if (take_client_output(*out, std::span<const QuicVec>(vecs.data(), out->count))) moved = true;
  }
  return moved;
}

bool H3TestPeer::take_client_output(const QuicOutput& out, std::span<const QuicVec> vecs) {
  Pipe& p = pipe(out.stream_id);
  if (p.up.reset || p.closed) {
    note("client wrote on stream " + std::to_string(out.stream_id) + " after resetting it");
    return false;
  }
  std::uint64_t total = 0;
  for (const QuicVec& vec : vecs) total += vec.len;
  if (total == 0 && !out.fin) {
    note("client offered nothing on stream " + std::to_string(out.stream_id));
    return false;
  }
  const std::uint64_t n = std::min(total, p.up.room());
  if (n == 0 && total > 0) {
    p.up.blocked = true;
    client_.on_stream_blocked(out.stream_id);
    return true;
  }
  std::uint64_t left = n;
  for (const QuicVec& vec : vecs) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, vec.len));
    p.up.pending.append(reinterpret_cast<const char*>(vec.base), take);
    left -= take;
  }
  p.up.sent += n;
  p.up.unacked += n;  // the server's transport has them now
  if (out.fin && n == total) p.up.fin = true;
  auto written = client_.on_output_written(out.stream_id, static_cast<std::size_t>(n));
  if (!written) client_failed(written.error());
  return true;
}

// The server's transport acknowledges what it received (unless acks are held), and
// nghttp3 reads it (unless reading is held); everything read is credited back at once.
bool H3TestPeer::server_read() {
  bool moved = false;
  if (!acks_held_) {
    for (auto& [stream_id, p] : pipes_) {
      if (p.up.unacked > 0 && !connection_closed_) {
        ack_client(stream_id);
        moved = true;
      }
    }
  }
  for (auto& [stream_id, p] : pipes_) {
    Direction& up = p.up;
    if (up.reset || (up.pending.empty() && (!up.fin || up.fin_delivered))) continue;
    if (reading_held_ && is_bidi(stream_id)) continue;
    const std::string data = std::move(up.pending);
    up.pending.clear();
    const bool fin = up.fin;
    const nghttp3_ssize rv = nghttp3_conn_read_stream(
        server_, stream_id, reinterpret_cast<const std::uint8_t*>(data.data()), data.size(),
        fin ? 1 : 0);
    if (rv < 0) note(std::string("server read_stream: ") + nghttp3_strerror(static_cast<int>(rv)));
    up.delivered += data.size();
    up.fin_delivered = fin;
    up.credited += data.size();
    moved = true;
    if (up.blocked && up.room() > 0) {
      up.blocked = false;
      const std::int64_t id = stream_id;
      events_.push_back([this, id] { client_.on_stream_writable(id); });
    }
  }
  return moved;
}

void H3TestPeer::ack_client(std::int64_t stream_id) {
  Direction& up = pipe(stream_id).up;
  if (up.unacked == 0) return;
  const std::uint64_t n = std::exchange(up.unacked, 0);
  client_.on_stream_acked(stream_id, n);
}

bool H3TestPeer::server_write() {
  bool moved = false;
  int idle = 0;
  for (int i = 0; i < kWritesPerRound && idle < static_cast<int>(pipes_.size()) + 4; ++i) {
    std::array<nghttp3_vec, 16> vecs{};
    std::int64_t stream_id = -1;
    int fin = 0;
    const nghttp3_ssize n =
        nghttp3_conn_writev_stream(server_, &stream_id, &fin, vecs.data(), vecs.size());
    if (n < 0) {
      note(std::string("server writev_stream: ") + nghttp3_strerror(static_cast<int>(n)));
      return moved;
    }
    if (stream_id < 0) {
      ++idle;  // nghttp3 may have unscheduled a stream with nothing to send: ask again
      continue;
    }
    idle = 0;
    if (take_server_output(
            stream_id, fin != 0,
            std::span<const nghttp3_vec>(vecs.data(), static_cast<std::size_t>(n)))) {
      moved = true;
    }
  }
  return moved;
}

bool H3TestPeer::take_server_output(std::int64_t stream_id, bool fin,
                                    std::span<const nghttp3_vec> vecs) {
  if (has_send_policy(stream_id)) return stage_server_output(stream_id, fin, vecs);
  Direction& down = pipe(stream_id).down;
  std::uint64_t total = 0;
  for (const nghttp3_vec& vec : vecs) total += vec.len;
  const std::uint64_t n = std::min(total, down.room());
  if (n == 0 && total > 0) {
    down.blocked = true;
    nghttp3_conn_block_stream(server_, stream_id);
    return false;
  }
  std::uint64_t left = n;
  for (const nghttp3_vec& vec : vecs) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, vec.len));
    down.pending.append(reinterpret_cast<const char*>(vec.base), take);
    left -= take;
  }
  if (n > 0) down.pieces.emplace_back(n, true);
  down.sent += n;
  if (fin && n == total) down.fin = true;
  if (nghttp3_conn_add_write_offset(server_, stream_id, static_cast<std::size_t>(n)) != 0) {
    note("server add_write_offset failed");
  }
  return true;
}

bool H3TestPeer::client_read() {
  bool moved = false;
  for (auto& [stream_id, p] : pipes_) {
    if (connection_closed_) break;
    if (deliver(stream_id, p)) moved = true;
  }
  return moved;
}

// Hands the server's bytes to the client a packet at a time. The client may reset
// the stream (or others) from inside on_stream_data, so the state is read afresh
// after every call; `pipes_` itself never loses entries.
bool H3TestPeer::deliver(std::int64_t stream_id, Pipe& p) {
  bool moved = false;
  Direction& down = p.down;
  while (!connection_closed_ && !down.reset &&
         (!down.pending.empty() || (down.fin && !down.fin_delivered))) {
    const std::size_t n = std::min(options_.packet, down.pending.size());
    const std::string chunk = down.pending.substr(0, n);
    down.pending.erase(0, n);
    const bool last = down.pending.empty() && down.fin;
    down.delivered += n;
    if (last) down.fin_delivered = true;
    moved = true;
    auto credit = client_.on_stream_data(
        stream_id, {reinterpret_cast<const std::uint8_t*>(chunk.data()), chunk.size()}, last);
    if (!credit) {
      client_failed(credit.error());
      return true;
    }
    if (*credit > n)
      note("client credited more than one delivery on stream " + std::to_string(stream_id));
    extend_stream(stream_id, *credit);
    ack_server(stream_id, n);
  }
  return moved;
}

// The client's transport acknowledges what it received; nghttp3 frees its buffers.
void H3TestPeer::ack_server(std::int64_t stream_id, std::uint64_t n) {
  Direction& down = pipe(stream_id).down;
  std::uint64_t library_bytes = 0;
  while (n > 0 && !down.pieces.empty()) {
    auto& [length, from_library] = down.pieces.front();
    const std::uint64_t k = std::min(n, length);
    if (from_library) library_bytes += k;
    length -= k;
    n -= k;
    if (length == 0) down.pieces.pop_front();
  }
  if (library_bytes > 0 && nghttp3_conn_add_ack_offset(server_, stream_id, library_bytes) != 0) {
    note("server add_ack_offset failed");
  }
}

bool H3TestPeer::run_events() {
  bool moved = false;
  while (!events_.empty() && !connection_closed_) {
    auto event = std::move(events_.front());
    events_.pop_front();
    event();
    moved = true;
  }
  return moved;
}

// A request stream closes once both directions are done: the client's side sent
// and acknowledged (or reset), the server's side delivered (or reset).
bool H3TestPeer::close_streams() {
  bool moved = false;
  for (auto& [stream_id, p] : pipes_) {
    if (connection_closed_) break;
    if (p.closed || !is_bidi(stream_id)) continue;
    const bool up_done = p.up.reset || (p.up.fin && p.up.fin_delivered && p.up.unacked == 0);
    const bool down_done = p.down.reset || p.down.fin_delivered;
    if (!up_done || !down_done) continue;
    p.closed = true;
    moved = true;
    const std::optional<std::uint64_t> code = p.down.reset ? p.down.reset : p.up.reset;
    nghttp3_conn_close_stream(server_, stream_id, code.value_or(NGHTTP3_H3_NO_ERROR));
    client_.on_stream_closed(stream_id, code);
  }
  return moved;
}

void H3TestPeer::respond(std::int64_t stream_id, int status, Headers headers, bool end_stream) {
  const std::vector<Header> fields = with_status(status, headers);
  const auto nva = make_nva(fields);
  nghttp3_data_reader reader{&Callbacks::read_data};
  outgoing_[stream_id];
  if (nghttp3_conn_submit_response(server_, stream_id, nva.data(), nva.size(),
                                   end_stream ? nullptr : &reader) != 0) {
    note("submit_response failed");
  }
}

void H3TestPeer::send_interim(std::int64_t stream_id, int status) {
  const std::vector<Header> fields = with_status(status, {});
  const auto nva = make_nva(fields);
  if (nghttp3_conn_submit_info(server_, stream_id, nva.data(), nva.size()) != 0) {
    note("submit_info failed");
  }
}

void H3TestPeer::resume_body(std::int64_t stream_id) {
  Outgoing& out = outgoing_[stream_id];
  if (!out.blocked) return;
  out.blocked = false;
  nghttp3_conn_resume_stream(server_, stream_id);
}

void H3TestPeer::send_body(std::int64_t stream_id, std::string_view bytes, bool end) {
  Outgoing& out = outgoing_[stream_id];
  out.queued.push(std::string(bytes));
  out.end = out.end || end;
  resume_body(stream_id);
}

void H3TestPeer::send_body_generated(std::int64_t stream_id, std::uint64_t size, std::uint64_t seed,
                                     bool end) {
  Outgoing& out = outgoing_[stream_id];
  out.queued.push_generated(size, seed);
  out.end = out.end || end;
  resume_body(stream_id);
}

void H3TestPeer::send_trailers(std::int64_t stream_id, Headers trailers) {
  std::vector<Header> fields(trailers.begin(), trailers.end());
  const auto nva = make_nva(fields);
  if (nghttp3_conn_submit_trailers(server_, stream_id, nva.data(), nva.size()) != 0) {
    note("submit_trailers failed");
  }
  outgoing_[stream_id].end = true;
  resume_body(stream_id);
}

void H3TestPeer::reset(std::int64_t stream_id, std::uint64_t app_error, bool stop) {
  Pipe& p = pipe(stream_id);
  if (!p.down.reset && !p.down.fin_delivered) {
    p.down.reset = app_error;
    clear_down(p);
    nghttp3_conn_shutdown_stream_write(server_, stream_id);
    events_.push_back(
        [this, stream_id, app_error] { client_.on_stream_reset(stream_id, app_error); });
  }
  if (stop) stop_sending(stream_id, app_error);
}

// The client's transport answers STOP_SENDING with RESET_STREAM (ngtcp2 does).
void H3TestPeer::stop_sending(std::int64_t stream_id, std::uint64_t app_error) {
  Pipe& p = pipe(stream_id);
  if (p.up.reset || (p.up.fin && p.up.fin_delivered)) return;
  p.up.reset = app_error;
  p.up.pending.clear();
  p.up.unacked = 0;
  nghttp3_conn_shutdown_stream_read(server_, stream_id);
  events_.push_back(
      [this, stream_id, app_error] { client_.on_stop_sending(stream_id, app_error); });
}

void H3TestPeer::goaway(std::int64_t stream_id) {
  send_raw(kControlStream, h3_frame(0x07, quic_varint(static_cast<std::uint64_t>(stream_id))));
}

void H3TestPeer::send_raw(std::int64_t stream_id, std::string bytes) {
  if (has_send_policy(stream_id)) {
    // Behind what is staged, so the stream's bytes keep their order.
    Pipe& p = pipe(stream_id);
    p.down.pieces.emplace_back(bytes.size(), false);
    p.staged.bytes += bytes;
    move_staged(stream_id);
    return;
  }
  Direction& down = pipe(stream_id).down;
  down.pieces.emplace_back(bytes.size(), false);
  down.sent += bytes.size();
  down.pending += bytes;
}

void H3TestPeer::raise_stream_limit(std::uint64_t n) {
  max_bidi_ += n;
  nghttp3_conn_set_max_client_streams_bidi(server_, max_bidi_);
  events_.push_back([this] { client_.on_streams_available(); });
}

const H3TestPeer::Request* H3TestPeer::request(std::int64_t stream_id) const {
  auto found = requests_.find(stream_id);
  return found == requests_.end() ? nullptr : &found->second;
}

std::uint64_t H3TestPeer::credited(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? 0 : p->down.credited;
}

std::uint64_t H3TestPeer::delivered(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? 0 : p->down.delivered;
}

std::uint64_t H3TestPeer::send_room(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? 0 : p->down.room();
}

std::uint64_t H3TestPeer::client_window(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? 0 : p->down.window;
}

std::uint64_t H3TestPeer::unacked(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? 0 : p->up.unacked;
}

std::optional<std::uint64_t> H3TestPeer::client_reset(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p == nullptr ? std::nullopt : p->client_reset;
}

bool H3TestPeer::closed(std::int64_t stream_id) const {
  const Pipe* p = find_pipe(stream_id);
  return p != nullptr && p->closed;
}

H3ClientHarness::H3ClientHarness(H3PeerOptions options, H3SessionOptions session_options)
    : trace([this](std::string_view line) { lines.emplace_back(line); }),
      session(trace, 1, clock, session_options, [this] { ++changes; }),
      peer(session, options) {
  if (auto failed = peer.start()) ADD_FAILURE() << "handshake: " << failed->message();
  pump();
}

ExchangeRequest H3ClientHarness::get(std::string target) {
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

ExchangeRequest H3ClientHarness::post(RequestBodySource& body) {
  ExchangeRequest request = get("/upload");
  request.method = "POST";
  request.body = &body;
  return request;
}

std::int64_t H3ClientHarness::submit(ExchangeRequest request, ExchangeSink& sink) {
  auto stream_id = session.submit(request, sink);
  EXPECT_TRUE(stream_id.ok()) << (stream_id.ok() ? "" : stream_id.error().message());
  return stream_id.ok() ? *stream_id : -1;
}

void H3ClientHarness::pump() {
  if (auto error = peer.pump()) pump_errors.push_back(*error);
  EXPECT_EQ(peer.error(), "");
}

bool H3ClientHarness::traced(std::string_view part) const {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(part) != std::string::npos; });
}

}  // namespace sluice::test
