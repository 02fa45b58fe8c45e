#pragma once
// H3TestPeer: an in-memory HTTP/3 server for unit tests of H3Session, without QUIC.
// It is two things joined:
//  - a fake QUIC transport: it implements QuicStreams for the client session and
//    moves stream bytes both ways like a lossless network would, with stream-level
//    flow control in both directions (the client's per-stream credit is counted,
//    so tests can assert what the client gave back per stream), acknowledgements
//    (optionally held back), RESET_STREAM / STOP_SENDING and stream closure;
//  - an nghttp3 server connection that answers the requests as the test says.
// pump() moves everything until nothing moves. Deterministic: no sockets, threads or
// clocks. Transport events for the client (resets, closes) are queued and delivered
// from pump(), never from inside a client call, as a real transport would.

#include <nghttp3/nghttp3.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "connection/connection.hpp"
#include "core/trace.hpp"
#include "http3/h3_session.hpp"
#include "quic/quic_streams.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "support/manual_clock.hpp"
#include "support/test_body.hpp"

namespace sluice::test {

struct H3PeerOptions {
  /// The server's limit on request streams (MAX_STREAMS, bidirectional).
  std::uint64_t max_bidi_streams = 100;
  /// How much request body the server's transport accepts ahead of what it read
  /// (its per-stream receive window).
  std::uint64_t server_stream_window = 64 * 1024;
  /// The client's per-stream receive window until the session sets it.
  std::uint64_t initial_client_window = 64 * 1024;
  /// Stream bytes per on_stream_data call (a packet's worth, roughly).
  std::size_t packet = 16 * 1024;
  /// The server's SETTINGS_QPACK_MAX_TABLE_CAPACITY (lets the client's encoder use
  /// a dynamic table) and QPACK_BLOCKED_STREAMS.
  std::size_t qpack_max_dtable_capacity = 4096;
  std::size_t qpack_blocked_streams = 100;
  /// How much of the client's dynamic table the server's encoder uses.
  std::size_t qpack_encoder_max_dtable_capacity = 4096;
  // Send policies of the server's transport on request streams, imitating QUIC
  // stacks that wait for credit instead of sending what it allows. They count stream
  // bytes (HTTP/3 framing included, as QUIC flow control does) against the client's
  // credit for the stream (send_room). Both 0 (the default): bytes move as the
  // credit allows. With either set, the server's transport takes what nghttp3 writes
  // into a per-stream send buffer and moves it from there by the policy; raw bytes
  // (send_raw) on a request stream then obey it too. Combined, a unit also waits
  // for min_send_window.
  /// When non-zero, a stream's bytes move only in whole units of this many bytes,
  /// and a unit moves only when the credit covers all of it; the stream's last bytes
  /// (fewer than a unit, FIN known) form a shorter final unit that also waits for
  /// credit covering all of it.
  std::size_t data_unit = 0;
  /// When non-zero, nothing moves on a stream while its credit is below this many
  /// bytes, unless the FIN is known and fewer bytes are left (then the credit must
  /// cover them). Once reached, the credit seen then moves (a burst), then it waits
  /// again.
  std::size_t min_send_window = 0;
};

class H3TestPeer final : public QuicStreams {
 public:
  struct Request {
    std::int64_t stream_id = 0;
    Headers headers;  ///< pseudo-headers included, in order
    std::string body;
    bool head_received = false;  ///< the whole request field section arrived
    bool ended = false;          ///< the request ended (FIN after its last frame)
  };

  explicit H3TestPeer(QuicApplication& client, H3PeerOptions options = {});
  ~H3TestPeer() override;
  H3TestPeer(const H3TestPeer&) = delete;
  H3TestPeer& operator=(const H3TestPeer&) = delete;

  // --- QuicStreams (what the client session asks of its transport) ---
  Result<std::int64_t> open_bidi_stream() override;
  Result<std::int64_t> open_uni_stream() override;
  std::uint64_t bidi_streams_left() const override;
  void extend_stream(std::int64_t stream_id, std::uint64_t n) override;
  void set_stream_window(std::int64_t stream_id, std::uint64_t window) override;
  void grow_stream_window(std::int64_t stream_id, std::uint64_t by) override;
  void extend_connection_window(std::uint64_t n) override { connection_window_raised_ += n; }
  std::chrono::nanoseconds path_rtt() const override { return rtt_; }
  void shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) override;
  void request_write() override { ++write_requests_; }

  // --- Driving ---
  /// The handshake completed: calls the client's on_handshake_completed.
  std::optional<Error> start();
  /// Moves bytes and events both ways until nothing moves. Returns the error the
  /// client returned during this pump, if any (it closes the connection: the client
  /// then hears on_connection_closed, and nothing moves any more).
  std::optional<Error> pump();
  /// Closes the connection under the client (idle timeout, peer close).
  void close_connection(const Error& error);

  // --- The server's side ---
  /// Response head; the body follows with send_body unless `end_stream`.
  void respond(std::int64_t stream_id, int status, Headers headers = {}, bool end_stream = false);
  /// An interim (1xx) head.
  void send_interim(std::int64_t stream_id, int status);
  /// Queues body bytes for the stream; `end` ends it after them.
  void send_body(std::int64_t stream_id, std::string_view bytes, bool end);
  /// Queues `size` generated body bytes for `seed` (fill_generated from offset 0),
  /// made as nghttp3 asks for them and freed once acknowledged: a 64 MiB body costs
  /// little memory. generated_sha256(size, seed) is what the client should see.
  void send_body_generated(std::int64_t stream_id, std::uint64_t size, std::uint64_t seed,
                           bool end = true);
  /// Ends the stream with trailers after the queued body.
  void send_trailers(std::int64_t stream_id, Headers trailers);
  /// RESET_STREAM on the response side with `app_error`, and (by default)
  /// STOP_SENDING for the request side, as a server abandoning a request does.
  void reset(std::int64_t stream_id, std::uint64_t app_error, bool stop_sending = true);
  /// H3_REQUEST_REJECTED both ways: the request was not processed.
  void refuse(std::int64_t stream_id) { reset(stream_id, NGHTTP3_H3_REQUEST_REJECTED); }
  /// STOP_SENDING alone: the server no longer reads the request.
  void stop_sending(std::int64_t stream_id, std::uint64_t app_error);
  /// A GOAWAY frame with `stream_id` on the server's control stream.
  void goaway(std::int64_t stream_id);
  /// Bytes on a server stream as they are, after what was sent so far (crafted frames).
  void send_raw(std::int64_t stream_id, std::string bytes);
  /// The server's control stream id (for send_raw).
  static constexpr std::int64_t kControlStream = 3;
  /// MAX_STREAMS: `n` more request streams allowed; the client hears
  /// on_streams_available.
  void raise_stream_limit(std::uint64_t n);
  /// While held, the server's application reads no request bytes, so no credit goes
  /// back to the client beyond the server's stream window.
  void hold_reading(bool held) { reading_held_ = held; }
  /// While held, bytes the server received are not acknowledged to the client.
  void hold_acks(bool held) { acks_held_ = held; }
  /// The round-trip time the transport reports (QuicStreams::path_rtt); 0: unknown.
  void set_rtt(std::chrono::nanoseconds rtt) { rtt_ = rtt; }
  /// How far the client raised the connection window beyond its initial one.
  std::uint64_t connection_window_raised() const { return connection_window_raised_; }

  // --- What happened ---
  const Request* request(std::int64_t stream_id) const;
  /// Stream ids of the requests received, in arrival order.
  const std::vector<std::int64_t>& request_ids() const { return order_; }
  /// Stream credit the client returned on a stream (consumed bytes: framing at once,
  /// body as its consumer took it).
  std::uint64_t credited(std::int64_t stream_id) const;
  /// Stream bytes handed to the client on a stream.
  std::uint64_t delivered(std::int64_t stream_id) const;
  /// How much more the server may send on the stream now (0: blocked by the client).
  std::uint64_t send_room(std::int64_t stream_id) const;
  /// The client's receive window for the stream (its mark once set).
  std::uint64_t client_window(std::int64_t stream_id) const;
  /// Request stream bytes the client sent and the server has not acknowledged.
  std::uint64_t unacked(std::int64_t stream_id) const;
  /// The code of the client's RESET_STREAM / STOP_SENDING on the stream, if any.
  std::optional<std::uint64_t> client_reset(std::int64_t stream_id) const;
  /// The stream closed both ways (the client heard on_stream_closed).
  bool closed(std::int64_t stream_id) const;
  int write_requests() const { return write_requests_; }
  bool connection_closed() const { return connection_closed_; }
  /// The first failure of the server, or a rule the client broke (credit beyond
  /// what it received, bytes on a reset stream); empty while all is well.
  const std::string& error() const { return error_; }

 private:
  // One direction of one stream.
  struct Direction {
    std::string pending;  // sent, not yet handed to the receiver
    // Lengths of `pending`'s pieces and whether nghttp3 wrote them (raw bytes are not
    // acknowledged to nghttp3).
    std::deque<std::pair<std::uint64_t, bool>> pieces;
    bool fin = false;            // the sender's FIN follows `pending`
    bool fin_delivered = false;  // the receiver saw the FIN
    std::uint64_t sent = 0;
    std::uint64_t delivered = 0;
    std::uint64_t credited = 0;          // the receiver's returned credit
    std::uint64_t window = 0;            // the receiver's window beyond `credited`
    std::uint64_t unacked = 0;           // delivered, not yet acknowledged to the sender
    std::optional<std::uint64_t> reset;  // the sender reset this direction
    bool blocked = false;                // the sender waits for credit
    std::uint64_t room() const { return credited + window > sent ? credited + window - sent : 0; }
  };
  // The server transport's send buffer of a request stream under a send policy:
  // bytes nghttp3 wrote that have not moved onto the wire (`down.pending`) yet.
  // `down.pieces` already counts them, so acknowledgements stay in stream order.
  struct Staged {
    std::string bytes;
    bool fin = false;            // the FIN follows `bytes`
    std::uint64_t reserved = 0;  // bytes of a unit or burst that began: no new check
    bool full = false;           // nghttp3 is blocked until `bytes` drains
  };
  struct Pipe {
    Direction up;    // client -> server
    Direction down;  // server -> client
    Staged staged;
    bool closed = false;
    std::optional<std::uint64_t> client_reset;
  };
  struct Outgoing {
    BodyQueue queued;                // body not yet handed to nghttp3
    std::deque<std::string> pieces;  // body pieces; nghttp3 points into them until acked
    std::size_t next = 0;            // the next piece to hand to nghttp3
    std::uint64_t acked = 0;         // bytes of pieces.front() acknowledged
    bool end = false;
    bool blocked = false;  // read_data said WOULDBLOCK
  };
  // How many staged bytes may move now (0: wait).
  struct Reservation {
    std::uint64_t bytes = 0;
    bool wait = false;
  };
  struct Callbacks;
  friend struct Callbacks;

  Pipe& pipe(std::int64_t stream_id);
  const Pipe* find_pipe(std::int64_t stream_id) const;
  bool client_write();
  bool take_client_output(const QuicOutput& out, std::span<const QuicVec> vecs);
  bool server_read();
  bool server_write();
  bool take_server_output(std::int64_t stream_id, bool fin, std::span<const nghttp3_vec> vecs);
  bool stage_server_output(std::int64_t stream_id, bool fin, std::span<const nghttp3_vec> vecs);
  void move_staged(std::int64_t stream_id);
  Reservation reserve_staged(const Pipe& p) const;
  bool has_send_policy(std::int64_t stream_id) const;
  std::uint64_t staging_cap() const;
  void clear_down(Pipe& p);
  bool client_read();
  bool deliver(std::int64_t stream_id, Pipe& pipe);
  bool run_events();
  bool close_streams();
  void ack_client(std::int64_t stream_id);
  void unblock_server(std::int64_t stream_id);
  void ack_server(std::int64_t stream_id, std::uint64_t n);
  void resume_body(std::int64_t stream_id);
  void client_failed(const Error& error);
  void note(const std::string& what);

  QuicApplication& client_;
  H3PeerOptions options_;
  nghttp3_conn* server_ = nullptr;
  std::map<std::int64_t, Pipe> pipes_;
  std::map<std::int64_t, Request> requests_;
  std::vector<std::int64_t> order_;
  std::map<std::int64_t, Outgoing> outgoing_;
  std::deque<std::function<void()>> events_;  // transport events for the client
  std::int64_t next_bidi_ = 0;
  std::int64_t next_uni_ = 2;
  std::uint64_t bidi_opened_ = 0;
  std::uint64_t max_bidi_;
  bool reading_held_ = false;
  bool acks_held_ = false;
  std::chrono::nanoseconds rtt_{};
  std::uint64_t connection_window_raised_ = 0;
  bool connection_closed_ = false;
  int write_requests_ = 0;
  std::optional<Error> client_error_;  // the client's failure, until pump() reports it
  std::string error_;
};

/// A client H3Session (connection id 1) wired to an H3TestPeer, its handshake done,
/// recording the trace lines the session emits. Test fixtures derive from it.
class H3ClientHarness {
 public:
  explicit H3ClientHarness(H3PeerOptions options = {}, H3SessionOptions session_options = {});

  static ExchangeRequest get(std::string target = "/");
  static ExchangeRequest post(RequestBodySource& body);
  /// Submits on `session`; a refusal fails the test and returns -1.
  std::int64_t submit(ExchangeRequest request, ExchangeSink& sink);
  /// peer.pump(); client errors go to pump_errors, a peer error fails the test.
  void pump();
  bool traced(std::string_view part) const;

  std::vector<std::string> lines;
  Trace trace;
  ManualClock clock;  ///< the session's time: moves only when the test advances it
  H3Session session;
  H3TestPeer peer;
  int changes = 0;  ///< calls of the session's on_change
  std::vector<Error> pump_errors;
};

/// A QUIC variable-length integer (RFC 9000 section 16), for crafted frames.
std::string quic_varint(std::uint64_t value);
/// An HTTP/3 frame: type, length, payload.
std::string h3_frame(std::uint64_t type, std::string_view payload);

}  // namespace sluice::test
