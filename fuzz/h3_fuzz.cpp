// Fuzz target: H3Session (src/http3, nghttp3 inside) over the QuicStreams seam, with
// a fake QUIC transport in place of ngtcp2: it opens streams, takes everything the
// session writes and acknowledges it, holds server bytes beyond a request stream's
// receive window back until the session credits the stream (QUIC flow control), and
// delivers server stream data and transport events chosen by the input. The server's control stream (3) starts with
// its type and an empty SETTINGS, its QPACK encoder (7) and decoder (11) streams
// with their types; the input continues them and the request streams.
// Input: a config byte (bits 0-1: 1-4 requests on streams 0, 4, 8, 12; bit 2: the
// first is a POST with a 70000-byte body; bits 3-4: the staging mark, as in
// h2_session_fuzz.cpp), the consumer actions (fuzz_exchange.hpp), then records:
//   selector byte: bits 0-2 the stream (0-2: request 0-2; 3: stream 1, a server
//     bidirectional stream; 4: 3; 5: 7; 6: 11; 7: 15, a server uni stream of any
//     type), bit 3 fin, bits 4-6 the event (0-3: data; 4: RESET_STREAM; 5:
//     STOP_SENDING; 6: the stream closed; 7: the server allows 4 more streams)
//   a 16-bit little-endian length: of the data, or the app error code otherwise
//   the data (data events only)
// One consumer action runs after each record, in turn.
// Invariants checked: the credit the session returns (at once, and later through
// extend_stream) never exceeds the bytes it received on a stream; an error from the
// session, followed by the transport's close, leaves every exchange ended; every
// exchange gets its events in order and ends exactly once, never after a cancel.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.hpp"
#include "fuzz_exchange.hpp"
#include "fuzz_input.hpp"
#include "http3/h3_session.hpp"
#include "quic/quic_streams.hpp"

namespace {

using sluice::fuzz::check;
using sluice::fuzz::CheckingSink;
using sluice::fuzz::ConsumerAction;

constexpr std::size_t kMarks[] = {1024, 16 * 1024, 65535, 256 * 1024};
constexpr std::size_t kMaxExchanges = 8;
constexpr std::uint64_t kInitialWindow = 64 * 1024;
constexpr std::int64_t kServerStreams[] = {1, 3, 7, 11, 15};

bool is_client_bidi(std::int64_t stream_id) { return stream_id % 4 == 0; }

// The fake transport. Counts what it delivered and what the session credited back.
class FakeQuic final : public sluice::QuicStreams {
 public:
  struct Stream {
    std::uint64_t delivered = 0;
    std::uint64_t credited = 0;
    std::uint64_t window = kInitialWindow;
    std::uint64_t unacked = 0;  // written by the session, not yet acknowledged
    std::string pending;        // sent by the server, held back by flow control
    bool pending_fin = false;   // the server's FIN follows `pending`
    bool done = false;          // fin delivered, reset, closed or shut down
  };

  sluice::Result<std::int64_t> open_bidi_stream() override {
    if (bidi_left_ == 0) return sluice::Error(sluice::ErrorCategory::protocol, "fuzz: no streams");
    --bidi_left_;
    streams_[next_bidi_];
    return std::exchange(next_bidi_, next_bidi_ + 4);
  }
  sluice::Result<std::int64_t> open_uni_stream() override {
    streams_[next_uni_];
    return std::exchange(next_uni_, next_uni_ + 4);
  }
  std::uint64_t bidi_streams_left() const override { return bidi_left_; }
  void extend_stream(std::int64_t stream_id, std::uint64_t n) override { credit(stream_id, n); }
  void set_stream_window(std::int64_t stream_id, std::uint64_t window) override {
    streams_[stream_id].window = window;
  }
  void shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) override {
    if (sluice::fuzz::debug_on()) {
      std::fprintf(stderr, "fuzz: stream %lld: shut down by the session (0x%llx)\n",
                   static_cast<long long>(stream_id), static_cast<unsigned long long>(app_error));
    }
    Stream& stream = streams_[stream_id];
    stream.done = true;
    stream.pending.clear();
  }
  void request_write() override {}
  // Windows never grow here (the session's policy has no max_window), so every
  // credit is for bytes received, which credit() checks.
  void grow_stream_window(std::int64_t stream_id, std::uint64_t by) override {
    streams_[stream_id].window += by;
  }
  void extend_connection_window(std::uint64_t) override {}
  std::chrono::nanoseconds path_rtt() const override { return std::chrono::nanoseconds::zero(); }

  void credit(std::int64_t stream_id, std::uint64_t n) {
    Stream& stream = streams_[stream_id];
    stream.credited += n;
    if (sluice::fuzz::debug_on()) {
      std::fprintf(stderr, "fuzz: stream %lld: credit %llu, now %llu of %llu received\n",
                   static_cast<long long>(stream_id), static_cast<unsigned long long>(n),
                   static_cast<unsigned long long>(stream.credited),
                   static_cast<unsigned long long>(stream.delivered));
    }
    check(stream.credited <= stream.delivered,
          "the session never credits more than it received on a stream");
  }
  // How much of `size` bytes flow control lets through on the stream now.
  std::size_t room(std::int64_t stream_id, std::size_t size) {
    const Stream& stream = streams_[stream_id];
    if (!is_client_bidi(stream_id)) return size;
    const std::uint64_t limit = stream.credited + stream.window;
    const std::uint64_t left = limit > stream.delivered ? limit - stream.delivered : 0;
    return static_cast<std::size_t>(std::min<std::uint64_t>(left, size));
  }
  Stream& stream(std::int64_t stream_id) { return streams_[stream_id]; }
  std::map<std::int64_t, Stream>& streams() { return streams_; }
  void allow_more() { bidi_left_ += 4; }

 private:
  std::map<std::int64_t, Stream> streams_;
  std::int64_t next_bidi_ = 0;
  std::int64_t next_uni_ = 2;
  std::uint64_t bidi_left_ = 8;
};

struct Exchange {
  sluice::ExchangeRequest request;
  std::unique_ptr<CheckingSink> sink;
  std::int64_t stream_id = -1;
};

class Run {
 public:
  Run(std::uint8_t config, const sluice::Trace& trace)
      : session_(trace, 1, clock_), mark_(kMarks[(config >> 3) & 3]) {}
  ~Run() {
    if (!closed_) close("fuzz: run over");
  }

  bool start(std::uint8_t config);
  bool record(sluice::fuzz::FuzzInput& input);
  bool act(const ConsumerAction& action);

  // The transport closes; every exchange must end.
  void close(const char* why) {
    closed_ = true;
    session_.on_connection_closed(sluice::Error(sluice::ErrorCategory::protocol, why));
    for (const auto& exchange : exchanges_) {
      check(exchange.sink->ended(), "a closed connection has ended every exchange");
    }
  }

 private:
  bool send(std::int64_t stream_id, std::string_view bytes, bool fin);
  bool flush(std::int64_t stream_id);
  bool flush_all();
  bool transport_event(int event, std::int64_t stream_id, bool fin, std::uint16_t value);
  void submit(bool with_body);
  bool drain();
  // A session call failed: the transport closes the connection.
  bool failed(const sluice::Error& error) {
    if (sluice::fuzz::debug_on())
      std::fprintf(stderr, "fuzz: session: %s\n", error.message().c_str());
    close("fuzz: the session failed");
    return false;
  }

  sluice::fuzz::FuzzClock clock_;
  sluice::fuzz::FixedBody body_{70000};
  std::deque<Exchange> exchanges_;
  FakeQuic quic_;
  sluice::H3Session session_;
  std::size_t mark_;
  bool closed_ = false;
};

bool Run::start(std::uint8_t config) {
  if (auto started = session_.on_handshake_completed(quic_); !started) {
    return failed(started.error());
  }
  const std::size_t requests = (config & 3) + 1;
  for (std::size_t i = 0; i < requests; ++i) submit(i == 0 && (config & 4) != 0);
  if (!drain()) return false;
  // Control stream: type 0x00, SETTINGS (0x04) of length 0. QPACK: types 0x02, 0x03.
  return send(3, std::string_view("\x00\x04\x00", 3), false) && send(7, "\x02", false) &&
         send(11, "\x03", false);
}

void Run::submit(bool with_body) {
  auto& exchange = exchanges_.emplace_back();
  exchange.request.method = with_body ? "POST" : "GET";
  exchange.request.scheme = "https";
  exchange.request.authority = "fuzz.example";
  exchange.request.target = "/";
  exchange.request.allowance = {mark_, mark_};
  if (with_body) exchange.request.body = &body_;
  exchange.sink = std::make_unique<CheckingSink>(mark_);
  auto stream_id = session_.submit(exchange.request, *exchange.sink);
  if (!stream_id) {
    exchanges_.pop_back();
    return;
  }
  exchange.stream_id = *stream_id;
}

// Takes everything the session has to send and acknowledges it at once.
bool Run::drain() {
  for (int round = 0; round < 256; ++round) {
    std::array<sluice::QuicVec, 16> vecs{};
    auto out = session_.next_output(vecs);
    if (!out) return failed(out.error());
    if (out->stream_id < 0) break;
    std::size_t total = 0;
    for (std::size_t i = 0; i < out->count; ++i) total += vecs[i].len;
    auto written = session_.on_output_written(out->stream_id, total);
    if (!written) return failed(written.error());
    quic_.stream(out->stream_id).unacked += total;
  }
  for (auto& [stream_id, stream] : quic_.streams()) {
    if (stream.unacked == 0) continue;
    session_.on_stream_acked(stream_id, std::exchange(stream.unacked, 0));
  }
  return true;
}

// The server sends on a stream: the bytes wait in `pending` until flow control lets
// them through, as QUIC would hold them at the sender.
bool Run::send(std::int64_t stream_id, std::string_view bytes, bool fin) {
  FakeQuic::Stream& stream = quic_.stream(stream_id);
  if (stream.done || stream.pending_fin) return true;  // nothing follows a FIN or reset
  stream.pending.append(bytes);
  stream.pending_fin = fin;
  return flush(stream_id);
}

// Delivers what flow control allows of a stream's pending bytes.
bool Run::flush(std::int64_t stream_id) {
  FakeQuic::Stream& stream = quic_.stream(stream_id);
  if (stream.done) return true;
  const std::size_t allowed = quic_.room(stream_id, stream.pending.size());
  const bool fin = stream.pending_fin && allowed == stream.pending.size();
  if (allowed == 0 && !fin) return true;
  const std::string bytes = stream.pending.substr(0, allowed);
  stream.pending.erase(0, allowed);
  stream.delivered += bytes.size();
  stream.done = fin;
  if (sluice::fuzz::debug_on()) {
    std::fprintf(stderr, "fuzz: stream %lld: deliver %zu%s\n", static_cast<long long>(stream_id),
                 bytes.size(), fin ? " + fin" : "");
  }
  auto credited = session_.on_stream_data(
      stream_id, {reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, fin);
  if (!credited) return failed(credited.error());
  check(*credited <= bytes.size(), "a stream's immediate credit is at most its data");
  quic_.credit(stream_id, *credited);
  return drain();
}

// Credit may have come back (a consumer took bytes): deliver what now fits.
bool Run::flush_all() {
  for (auto& [stream_id, stream] : quic_.streams()) {
    if (stream.pending.empty() && !stream.pending_fin) continue;
    if (!flush(stream_id)) return false;
  }
  return true;
}

bool Run::transport_event(int event, std::int64_t stream_id, bool fin, std::uint16_t value) {
  FakeQuic::Stream& stream = quic_.stream(stream_id);
  // QUIC reports events only for streams that exist: ours, or the server's once used.
  if (stream_id % 2 != 0 && stream.delivered == 0 && event != 7) return true;
  const std::uint64_t app_error = 0x100u + value;
  switch (event) {
    case 4:
      if (stream.done) return true;
      stream.done = true;
      stream.pending.clear();
      session_.on_stream_reset(stream_id, app_error);
      break;
    case 5: session_.on_stop_sending(stream_id, app_error); break;
    case 6: {
      // A clean close only when nothing the server sent is still held back.
      const bool clean = fin && stream.pending.empty();
      stream.done = true;
      stream.pending.clear();
      session_.on_stream_closed(stream_id, clean ? std::nullopt : std::optional(app_error));
      break;
    }
    default:
      quic_.allow_more();
      session_.on_streams_available();
      break;
  }
  return drain();
}

bool Run::record(sluice::fuzz::FuzzInput& input) {
  const std::uint8_t selector = input.byte();
  const std::uint16_t length = input.u16();
  const std::size_t which = selector & 7;
  const bool fin = (selector & 8) != 0;
  const int event = (selector >> 4) & 7;
  std::int64_t stream_id = 0;
  if (which < 3) {
    if (exchanges_.empty()) return true;
    stream_id = exchanges_[which % exchanges_.size()].stream_id;
  } else {
    stream_id = kServerStreams[which - 3];
  }
  if (event < 4) return send(stream_id, input.take(length), fin);
  return transport_event(event, stream_id, fin, length);
}

bool Run::act(const ConsumerAction& action) {
  using Kind = ConsumerAction::Kind;
  if (exchanges_.empty()) return true;
  Exchange& exchange = exchanges_[action.exchange % exchanges_.size()];
  CheckingSink& sink = *exchange.sink;
  switch (action.kind) {
    case Kind::none: break;
    case Kind::hold: sink.hold(); break;
    case Kind::take_all:
    case Kind::take_half: {
      const std::size_t n = action.kind == Kind::take_all ? SIZE_MAX : sink.held_bytes() / 2;
      if (sink.take(n) && !sink.ended()) session_.resume_stream(exchange.stream_id);
      break;
    }
    case Kind::cancel:
      if (!sink.ended()) {
        sink.cancelled();
        session_.cancel_stream(exchange.stream_id);
      }
      break;
    case Kind::extra:  // the sweep, and time passing: quiet streams give credit back
      (void)session_.release_scratch();
      clock_.advance(std::chrono::milliseconds(5));
      session_.on_timer();
      break;
    case Kind::submit:
      if (exchanges_.size() < kMaxExchanges && session_.available_streams() > 0) submit(false);
      break;
    case Kind::close:
      session_.fail_all(sluice::Error(sluice::ErrorCategory::protocol, "fuzz: fail_all"));
      for (const auto& each : exchanges_) check(each.sink->ended(), "fail_all ends every exchange");
      break;
  }
  return drain() && flush_all();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::uint8_t config = input.byte();
  const auto actions = sluice::fuzz::read_actions(input);
  const sluice::Trace trace;  // off
  Run run(config, trace);
  if (!run.start(config)) return 0;
  for (std::size_t i = 0; !input.empty(); ++i) {
    if (!run.record(input)) return 0;
    if (!actions.empty() && !run.act(actions[i % actions.size()])) return 0;
  }
  return 0;
}
