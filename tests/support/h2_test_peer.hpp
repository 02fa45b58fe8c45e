#pragma once
// H2TestPeer: an in-memory HTTP/2 server (an nghttp2 server session, sans-IO) for unit
// tests of the client side. The test moves bytes: the client's output goes into
// receive(), take_output() goes back to the client. No sockets, no threads.
// Also here: a recording ExchangeSink whose consumer can hold bytes like the staging
// buffer does, and a scripted RequestBodySource.

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "core/trace.hpp"
#include "http2/h2_session.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "support/manual_clock.hpp"
#include "support/test_body.hpp"

namespace sluice::test {

/// Options of the server session. The two send policies below shape only response
/// bodies (send_body, send_body_generated) and imitate servers that wait for window
/// instead of sending what it allows; both 0 (the default) sends as much as the
/// windows allow. They may be combined: then a unit starts only when the window also
/// reaches min_send_window (or covers the rest of the body).
struct H2PeerOptions {
  /// SETTINGS the server sends first (an empty SETTINGS frame when none).
  std::vector<nghttp2_settings_entry> settings;
  /// nghttp2 refuses to send larger header blocks (its default is 64 KiB).
  std::size_t max_send_header_block = 64 * 1024;
  /// Padding added to every DATA frame the server sends (0..255 bytes). Padding
  /// counts against the windows, so with a send policy a unit may wait part way.
  std::size_t data_padding = 0;
  /// When non-zero, body bytes go only in whole units of this many bytes: a unit
  /// starts only when the stream's and the connection's send windows both hold all
  /// of it, and then goes out whole (in as many DATA frames as the frame size needs).
  /// The body's last bytes, once fewer than a unit are left and the end is queued,
  /// form a shorter final unit that also waits until the windows hold all of it.
  /// Fewer than a unit queued without the end: the server waits for more body.
  std::size_t data_unit = 0;
  /// When non-zero, nothing goes on a stream while min(stream send window,
  /// connection send window) is below this many bytes, unless the end is queued and
  /// fewer body bytes are left (then the window must cover them). Once it is reached
  /// the server sends what that window allows (a burst of the window it saw), then
  /// waits again.
  std::size_t min_send_window = 0;
};

class H2TestPeer {
 public:
  struct Request {
    std::int32_t stream_id = 0;
    Headers headers;  ///< pseudo-headers included, in order
    std::string body;
    bool ended = false;                       ///< END_STREAM arrived
    bool head_received = false;               ///< the whole request header block arrived
    std::optional<std::uint32_t> reset_code;  ///< RST_STREAM from the client
    bool closed = false;  ///< the server's side of the stream closed (ended both ways or reset)
  };

  explicit H2TestPeer(H2PeerOptions options = {});
  ~H2TestPeer();
  H2TestPeer(const H2TestPeer&) = delete;
  H2TestPeer& operator=(const H2TestPeer&) = delete;

  /// Client bytes in.
  void receive(std::span<const std::byte> bytes);
  /// Everything the server has to send now, raw bytes first.
  std::string take_output();
  /// Bytes sent as they are, ahead of the session's own frames (crafted frames).
  void send_raw(std::string bytes) { raw_ += bytes; }

  const Request* request(std::int32_t stream_id) const;
  /// Stream ids of the requests received, in arrival order.
  const std::vector<std::int32_t>& request_ids() const { return order_; }

  /// Response head; the body follows with send_body unless `end_stream`.
  void respond(std::int32_t stream_id, int status, Headers headers = {}, bool end_stream = false);
  /// An interim (1xx) head.
  void send_interim(std::int32_t stream_id, int status);
  /// Queues body bytes for the stream; `end` ends it after them.
  void send_body(std::int32_t stream_id, std::string_view bytes, bool end);
  /// Queues `size` generated body bytes for `seed` (fill_generated from offset 0),
  /// made as they are sent: a 64 MiB body costs no memory. generated_sha256(size,
  /// seed) is what the client should see. `end` ends the stream after them.
  void send_body_generated(std::int32_t stream_id, std::uint64_t size, std::uint64_t seed,
                           bool end = true);
  /// Ends the stream with trailers after the queued body.
  void send_trailers(std::int32_t stream_id, Headers trailers);
  void reset(std::int32_t stream_id, std::uint32_t error_code);
  void goaway(std::int32_t last_stream_id, std::uint32_t error_code = NGHTTP2_NO_ERROR);
  /// GOAWAY carrying debug data (opaque bytes a server adds to explain itself).
  void goaway(std::int32_t last_stream_id, std::uint32_t error_code, std::string_view debug);

  /// What the server may still send on the stream (its view of our window);
  /// stream 0: on the connection.
  std::int32_t remote_window(std::int32_t stream_id) const;
  /// Body bytes queued for the stream and not yet sent.
  std::size_t unsent_body(std::int32_t stream_id) const;
  /// Body bytes sent on the stream so far (DATA payload, padding not counted).
  std::uint64_t body_sent(std::int32_t stream_id) const;
  int pings_received() const { return pings_; }
  /// The first failure of the server session; empty while all is well.
  const std::string& error() const { return error_; }

 private:
  // Why the body of a stream is deferred (NGHTTP2_ERR_DEFERRED), if it is.
  enum class Wait { none, body, window };
  struct Outgoing {
    BodyQueue pending;
    bool end = false;
    std::optional<Headers> trailers;
    Wait wait = Wait::none;
    // Send policy: bytes the server committed to when the windows allowed them (the
    // rest of a unit, or of a min_send_window burst); they go without a new check.
    std::uint64_t reserved = 0;
    std::uint64_t sent = 0;
  };
  // What the send policy commits to when a unit or burst may begin (or why not).
  struct Reservation {
    std::uint64_t bytes = 0;
    Wait wait = Wait::none;
  };
  struct Callbacks;
  friend struct Callbacks;

  void submit_head(std::int32_t stream_id, int status, const Headers& headers, bool end_stream);
  ssize_t read_body(std::int32_t stream_id, std::span<std::uint8_t> buf, std::uint32_t& flags);
  void end_body(std::int32_t stream_id, const Outgoing& out, std::uint32_t& flags);
  Reservation reserve(std::int32_t stream_id, const Outgoing& out) const;
  std::uint64_t send_window(std::int32_t stream_id) const;
  bool has_send_policy() const { return options_.data_unit > 0 || options_.min_send_window > 0; }
  void resume(std::int32_t stream_id);
  void resume_waiting_for_window();
  void note(const std::string& what);

  nghttp2_session* session_ = nullptr;
  H2PeerOptions options_;
  std::map<std::int32_t, Request> requests_;
  std::vector<std::int32_t> order_;
  std::map<std::int32_t, Outgoing> outgoing_;
  std::string raw_;
  std::string error_;
  int pings_ = 0;
};

/// Moves bytes between client and peer until neither has anything to send. Returns
/// the first error the client's feed or drain_output returned.
std::optional<Error> pump(H2Session& client, H2TestPeer& peer);

/// A client H2Session (connection id 1) wired to an H2TestPeer, recording the trace
/// lines the session emits. Test fixtures derive from it.
class H2ClientHarness {
 public:
  explicit H2ClientHarness(H2PeerOptions options = {}, H2SessionOptions session_options = {});

  static ExchangeRequest get(std::string target = "/");
  static ExchangeRequest post(RequestBodySource& body);
  /// Submits on `session`; a refusal fails the test and returns 0.
  std::int32_t submit(ExchangeRequest request, ExchangeSink& sink);
  /// pump(session, peer); client errors go to pump_errors, a peer error fails the test.
  void pump();
  /// One round trip of `delay`: what the client has to send reaches the server, the
  /// clock moves by `delay`, and the server's answer reaches the client (a PING the
  /// session sent comes back as an RTT sample of `delay`).
  void round_trip(std::chrono::nanoseconds delay);
  bool traced(std::string_view part) const;

  std::vector<std::string> lines;
  Trace trace;
  ManualClock clock;  ///< the session's time: moves only when the test advances it
  H2TestPeer peer;
  H2Session session;
  int output_ready = 0;  ///< calls of the session's on_output_ready
  std::vector<Error> pump_errors;
};

/// A DATA frame as bytes, built by hand (for a peer that breaks the rules).
std::string data_frame(std::int32_t stream_id, std::string_view payload, bool end_stream);
/// Any frame as bytes: the 9-byte header (length, type, flags, stream id) and payload.
std::string h2_frame(std::uint8_t type, std::uint8_t flags, std::int32_t stream_id,
                     std::string_view payload);
/// A 32-bit value in network byte order, for crafted frame payloads.
std::string h2_uint32(std::uint32_t value);
/// A SETTINGS frame (not an ACK) carrying `entries`.
std::string settings_frame(const std::vector<nghttp2_settings_entry>& entries);
/// WINDOW_UPDATE for a stream (0: the connection) by `increment` (31 bits sent).
std::string window_update_frame(std::int32_t stream_id, std::uint32_t increment);
/// GOAWAY with last stream id, error code and debug data.
std::string goaway_frame(std::int32_t last_stream_id, std::uint32_t error_code,
                         std::string_view debug = {});
/// RST_STREAM with an error code.
std::string rst_stream_frame(std::int32_t stream_id, std::uint32_t error_code);
/// What a hand-made client sends first: the connection preface, SETTINGS carrying
/// `settings`, and HEADERS for "GET http://example.test<path>" on stream 1 with
/// END_STREAM (HPACK literals, no Huffman, no dynamic table). For tests of a server
/// that must not depend on how the sluice client gives window back.
std::string h2_client_opening(const std::vector<nghttp2_settings_entry>& settings,
                              std::string_view path = "/");

/// One frame as a server sent it (see take_h2_frames).
struct H2Frame {
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::int32_t stream_id = 0;
  std::string payload;
};
/// Removes the whole frames at the front of `bytes` and returns them; a partial
/// frame at the end stays in `bytes` for the next read.
std::vector<H2Frame> take_h2_frames(std::string& bytes);

/// An ExchangeSink that records every event. Its consumer holds body bytes when told
/// to, like the staging buffer: Paused at or above `mark`, and take() reports the
/// moment a Paused consumer drains below half the mark, or has taken what the
/// transport asked to hear of (report_taken_after): when the real one posts to the
/// HTTP thread, which calls resume on the connection.
class RecordingSink final : public ExchangeSink {
 public:
  explicit RecordingSink(std::size_t mark = 256 * 1024) : mark_(mark) {}

  void on_response_head(ReceivedHead head) override;
  void on_body(std::span<const std::byte> bytes) override;
  void on_trailers(Headers trailers) override;
  void on_complete() override;
  void on_error(Error error) override;
  void on_unprocessed(Error failure) override {
    unprocessed = true;
    on_error(std::move(failure));
  }
  bool wants_body() const override { return !paused_; }
  std::size_t held_bytes() const override {
    taken_at_look_ = taken_;
    return hold_ ? body.size() - taken_ : 0;
  }
  void report_taken_after(std::size_t bytes) override;

  /// From now on body bytes stay held until take().
  void hold() { hold_ = true; }
  /// The consumer takes up to `n` held bytes; true if it should post a resume.
  bool take(std::size_t n);
  /// The transport asked to hear of bytes taken and has not yet been told.
  bool report_armed() const { return report_at_ != 0; }

  std::optional<ReceivedHead> head;
  std::string body;
  std::optional<Headers> trailers;
  bool completed = false;
  std::optional<Error> error;
  bool unprocessed = false;  ///< the error came through on_unprocessed
  int events_after_end = 0;
  /// Runs after each on_body (a test may cancel or resume from inside the event).
  std::function<void()> after_body;
  /// Runs after on_complete or on_error.
  std::function<void()> on_end;

 private:
  void check_open();
  std::size_t mark_;
  bool hold_ = false;
  bool paused_ = false;
  std::size_t taken_ = 0;
  mutable std::size_t taken_at_look_ = 0;  // taken_ when held_bytes() last looked
  std::size_t report_at_ = 0;              // report once taken_ reaches it (0: none)
  bool report_due_ = false;                // reached when armed: the next take() says so
};

/// A RequestBodySource fed by the test: bytes become available with provide().
class ScriptedBody final : public RequestBodySource {
 public:
  explicit ScriptedBody(std::optional<std::uint64_t> length = std::nullopt) : length_(length) {}

  std::optional<std::uint64_t> length() const override { return length_; }
  SourceChunk peek(std::size_t max) override;
  void consume(std::size_t n) override { offset_ += n; }
  void set_waker(std::function<void()> wake) override { waker_ = std::move(wake); }
  bool rewind() override {
    offset_ = 0;
    return true;
  }
  std::size_t held_bytes() const override { return data_.capacity(); }

  /// More bytes from the producer (`end`: the last); wakes the transport.
  void provide(std::string_view bytes, bool end);
  /// The producer fails; wakes the transport.
  void fail(Error error);
  std::size_t taken() const { return offset_; }
  int peeks() const { return peeks_; }

 private:
  std::optional<std::uint64_t> length_;
  std::string data_;
  std::size_t offset_ = 0;
  bool end_ = false;
  std::optional<Error> error_;
  std::function<void()> waker_;
  int peeks_ = 0;
};

}  // namespace sluice::test
