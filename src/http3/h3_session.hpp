#pragma once
// H3Session: the HTTP/3 client session over nghttp3, the sibling of H2Session. It is
// the QuicApplication of one QUIC connection: the transport (QuicCodec, over
// ngtcp2) hands it stream bytes and asks it for stream bytes to send; exchanges are
// submitted with an ExchangeSink that receives their events. It never sees a socket
// or a packet; it reads the time from the TimeSource it is given.
//
// Flow control is the backpressure: framing is credited at once (on_stream_data's
// result), body bytes by the one window policy HTTP/2 uses too
// (mux/stream_credit.hpp): a stream's window starts at its staging mark
// (QuicStreams::set_stream_window), credit follows what its consumer took
// (QuicStreams::extend_stream), and the window grows while the reader keeps up and
// the window limits the rate, with the transport's RTT (QuicStreams::path_rtt). The
// transport credits the connection for every byte at once, so a held stream never
// stalls its siblings; the session raises the connection window as stream windows
// grow (QuicStreams::extend_connection_window).
//
// Request bodies are pulled through nghttp3's data reader and copied, one piece per
// read, into blocks kept until the server acknowledges them (nghttp3 sends from the
// application's buffers; a RequestBodySource's bytes are valid only until consume()).
// They are bounded by the server's stream window. A source with nothing to give
// blocks the stream (NGHTTP3_ERR_WOULDBLOCK) until its waker fires.
//
// Ownership: owned by H3Connection (or a test); HTTP thread only. Sink events fire
// from inside QuicApplication calls, cancel/resume paths and fail_all(); a sink may
// call submit, resume_stream or cancel_stream from inside an event (calls into
// nghttp3 made while nghttp3 is running are deferred until it returns), but must not
// destroy the session. The QuicStreams passed to on_handshake_completed must outlive
// the session or on_connection_closed, whichever comes first.

#include <nghttp3/nghttp3.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "core/byte_queue.hpp"
#include "core/time_source.hpp"
#include "core/trace.hpp"
#include "http3/h3_stream.hpp"
#include "mux/stream_credit.hpp"
#include "mux/stream_table.hpp"
#include "quic/quic_streams.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct H3SessionOptions {
  /// How stream windows grow and when credit goes back (mux/stream_credit.hpp).
  WindowPolicy window;
  /// The connection receive window the transport started with (QuicOptions's):
  /// the session raises it when the streams' windows grow past half of it.
  std::uint64_t connection_window = 16 * 1024 * 1024;
  /// SETTINGS_MAX_FIELD_SECTION_SIZE announced to the server (each stream also
  /// enforces its own ExchangeRequest::max_header_bytes).
  std::uint64_t max_field_section_size = 256 * 1024;
  /// SETTINGS_QPACK_MAX_TABLE_CAPACITY: the dynamic table the server's encoder may use.
  std::size_t qpack_max_dtable_capacity = 4096;
  /// SETTINGS_QPACK_BLOCKED_STREAMS: streams that may wait for encoder instructions.
  std::size_t qpack_blocked_streams = 100;
  /// The most of the server's dynamic table our encoder uses.
  std::size_t qpack_encoder_max_dtable_capacity = 4096;
};

class H3Session final : public QuicApplication, private StreamHooks<H3Stream> {
 public:
  /// `conn_id` names the connection in trace lines ("c3 s4 h3: ..."). `on_change`
  /// runs on the HTTP thread at the end of a session call (never nested inside
  /// nghttp3) when exchanges ended, the server raised its stream limit, a GOAWAY
  /// arrived, the handshake completed or the connection failed: the owner may start
  /// exchanges from it (available_streams()), or close a finished() connection, but
  /// must not destroy the session inside it (defer that, as ConnectionOwner says).
  /// `time` outlives the session.
  H3Session(const Trace& trace, std::uint64_t conn_id, const TimeSource& time,
            H3SessionOptions options = {}, std::function<void()> on_change = {});
  ~H3Session() override;
  H3Session(const H3Session&) = delete;
  H3Session& operator=(const H3Session&) = delete;

  // --- QuicApplication (called by the transport) ---
  /// Sets nghttp3 up, unless on_early_data_ready did (then the early data was accepted).
  Result<void> on_handshake_completed(QuicStreams& streams) override;
  /// 0-RTT: the session sets up at once and takes requests, which go as early data.
  /// Should the server refuse it (on_early_data_rejected), the session is of no
  /// further use: its owner fails its exchanges as unprocessed and makes a new one
  /// (H3Connection does).
  bool wants_early_data() const override { return true; }
  Result<void> on_early_data_ready(QuicStreams& streams) override {
    return on_handshake_completed(streams);
  }
  Result<std::size_t> on_stream_data(std::int64_t stream_id, std::span<const std::uint8_t> data,
                                     bool fin) override;
  void on_stream_acked(std::int64_t stream_id, std::uint64_t n) override;
  void on_stream_closed(std::int64_t stream_id, std::optional<std::uint64_t> app_error) override;
  void on_stream_reset(std::int64_t stream_id, std::uint64_t app_error) override;
  void on_stop_sending(std::int64_t stream_id, std::uint64_t app_error) override;
  void on_stream_writable(std::int64_t stream_id) override;
  void on_streams_available() override;
  /// Also returns an error that a void call above could not (a critical stream
  /// closed, an acknowledgement nghttp3 refused): the transport closes then.
  Result<QuicOutput> next_output(std::span<QuicVec> vecs) override;
  Result<void> on_output_written(std::int64_t stream_id, std::size_t n) override;
  void on_stream_blocked(std::int64_t stream_id) override;
  void on_connection_closed(const Error& error) override;
  /// A stream gone quiet with credit owed (see StreamCredit).
  std::optional<TimePoint> next_deadline() const override;
  void on_timer() override;

  // --- Exchanges (called by the connection glue) ---
  /// The handshake completed and nghttp3 is set up: requests can be submitted.
  bool ready() const noexcept { return conn_ != nullptr && !broken_; }
  /// Opens a request stream; events go to `sink` until on_complete or on_error. The
  /// request's body source (if any) must outlive the exchange. Errors leave `sink`
  /// untouched (the caller reports them; nothing was sent).
  Result<std::int64_t> submit(ExchangeRequest& request, ExchangeSink& sink);
  /// The stream's consumer took bytes: credit the stream for what it took.
  void resume_stream(std::int64_t stream_id);
  /// Resets the stream both ways (H3_REQUEST_CANCELLED); no further events reach its
  /// sink.
  void cancel_stream(std::int64_t stream_id);

  /// Streams that can be submitted now: QuicStreams::bidi_streams_left(); 0 before
  /// the handshake, after a GOAWAY, a fatal error or fail_all().
  std::size_t available_streams() const;
  /// Exchanges in flight.
  std::size_t open_streams() const noexcept { return active_; }
  /// Exchanges that ended so far (completed, failed or cancelled): a freed slot.
  std::uint64_t streams_ended() const noexcept { return streams_ended_; }
  bool goaway_received() const noexcept { return goaway_received_; }
  /// The server's GOAWAY refused streams we had opened: how many it processed (our
  /// request streams are 0, 4, 8, ... so those below the GOAWAY's id). nullopt otherwise.
  std::optional<std::size_t> served_before_refusal() const noexcept {
    if (!goaway_refused_streams_) return std::nullopt;
    return static_cast<std::size_t>(goaway_stream_id_ / 4);
  }
  /// Nothing more will run on this connection: a GOAWAY arrived, fail_all() ran or a
  /// fatal error happened, and no exchange is left. The owner can close it.
  bool finished() const noexcept {
    return active_ == 0 && (goaway_received_ || closing_ || broken_ || closed_);
  }
  /// Every open exchange gets on_error(error); the session takes no more streams.
  /// For a connection about to close: nothing is sent for the streams.
  void fail_all(const Error& error);
  /// fail_all, but the server never processed these exchanges (refused early data,
  /// a handshake that failed): their sinks hear on_unprocessed and may send again.
  void fail_all_unprocessed(const Error& error);
  /// fail_all_unprocessed for early data the server refused: sinks hear
  /// on_early_data_refused.
  void fail_all_refused_early(const Error& error);
  /// The HTTP/3 error code for the CONNECTION_CLOSE after a fatal error (H3_NO_ERROR
  /// while all is well).
  std::uint64_t close_error_code() const noexcept { return close_code_; }

  /// Request body bytes copied and not yet acknowledged by the server, all streams.
  std::size_t unacked_body_bytes() const noexcept;
  /// Frees spare body blocks kept for reuse (the sweep); returns bytes freed.
  std::size_t release_scratch();
  /// Spare body blocks kept for reuse (what release_scratch() would free).
  std::size_t scratch_bytes() const noexcept;
  /// Some exchange is not paused (waiting for its head, or taking body bytes), or
  /// paused only after `paused_before`.
  bool receiving_since(TimePoint paused_before) const;

 private:
  struct Trampolines;
  friend struct Trampolines;
  /// A call into nghttp3 that had to wait because nghttp3 was running. shut stops
  /// both directions (a reset stream), shut_write only ours (STOP_SENDING).
  struct PendingOp {
    enum class Kind { submit, shut, shut_write, resume_body } kind;
    std::int64_t stream_id;
  };
  /// Counts session calls so `on_change` runs once, at the end of the outermost.
  class Entry;
  /// nghttp3's data reader for request bodies (points at a trampoline).
  static const nghttp3_data_reader& body_reader() noexcept;

  // Setup and library plumbing (h3_session.cpp).
  Result<void> setup(QuicStreams& streams);
  Result<void> bind_streams();
  template <class Call>
  auto in_library(Call&& call);
  void queue_op(PendingOp::Kind kind, std::int64_t stream_id);
  void run_pending_ops();
  void run_op(const PendingOp& op);
  void note_fatal(Error error) noexcept;
  Error fatal_error(long rv, const char* operation) const;
  Error fail_connection(Error error, long rv);
  Result<QuicOutput> write_next(std::span<QuicVec> vecs);

  // Receiving (h3_session_recv.cpp).
  // `credited_during`: stream credit this read already gave back (body bytes a
  // prompt consumer took before nghttp3 found the message malformed).
  Result<std::size_t> read_failed(std::int64_t stream_id, long rv, std::size_t size,
                                  std::uint64_t credited_during);
  void on_begin_headers(std::int64_t stream_id);
  void on_header(std::int64_t stream_id, std::string_view name, std::string_view value);
  void on_end_headers(std::int64_t stream_id);
  void on_end_trailers(std::int64_t stream_id);
  void on_data(std::int64_t stream_id, std::span<const std::byte> bytes);
  void on_end_stream(std::int64_t stream_id);
  void on_library_reset(std::int64_t stream_id, std::uint64_t app_error);
  void on_library_stream_close(std::int64_t stream_id, std::uint64_t app_error);
  void on_goaway(std::int64_t stream_id);
  void deliver_head(H3Stream& stream, int status);
  void credit_now(std::int64_t stream_id, std::size_t n);
  Error goaway_error(std::int64_t stream_id) const;
  /// The QUIC stream is gone: fails a still open exchange, drops the record.
  void close_record(std::int64_t stream_id, std::optional<std::uint64_t> app_error);

  // Sending (h3_session_send.cpp).
  Result<void> submit_to_library(H3Stream& stream);
  void submit_deferred(std::int64_t stream_id);
  nghttp3_ssize read_body(std::int64_t stream_id, nghttp3_vec* vec, std::uint32_t& flags);
  nghttp3_ssize block_body(H3Stream& stream);
  nghttp3_ssize copy_body_piece(H3Stream& stream, std::span<const std::byte> bytes,
                                nghttp3_vec* vec, std::uint32_t& flags);
  void fail_body(H3Stream& stream, Error error);
  void end_body(H3Stream& stream);
  void wake_body(std::int64_t stream_id);
  void resume_body(std::int64_t stream_id);
  void on_body_acked(std::int64_t stream_id, std::uint64_t n);
  ByteQueue take_block();

  // Streams (h3_session_streams.cpp).
  H3Stream* find(std::int64_t stream_id) { return stream_table_.find(stream_id); }
  // The hooks of stream_table_.
  bool can_credit(const H3Stream& stream) const override;
  std::chrono::nanoseconds path_rtt() const override { return streams_->path_rtt(); }
  void announce_credit(H3Stream& stream, const CreditGrant& grant, std::uint64_t held) override;
  void follow_connection_window();
  /// Ends the exchange (the record stays until the QUIC stream closes) and returns
  /// its sink; the body source is detached first, since the caller may free it in
  /// the sink event.
  ExchangeSink* detach(H3Stream& stream);
  /// Ends the exchange with an error; unless it is already, or `abandon` is false,
  /// the stream is reset both ways so the server stops too.
  void fail_stream(std::int64_t stream_id, Error error, bool abandon = true);
  /// Resets the stream both ways with `app_error` and stops nghttp3 reading or
  /// writing it; the exchange (if any) is not told.
  void abandon_stream(H3Stream& stream, std::uint64_t app_error);
  void fail_exchanges(const Error& error);

  void trace_conn(const std::string& what) const;
  void trace_stream(std::int64_t stream_id, const std::string& what) const;

  const Trace& trace_;
  std::uint64_t conn_id_;
  const TimeSource& time_;
  H3SessionOptions options_;
  std::function<void()> on_change_;
  QuicStreams* streams_ = nullptr;  // set by on_handshake_completed
  nghttp3_conn* conn_ = nullptr;

  StreamTable<H3Stream> stream_table_;
  std::vector<PendingOp> pending_ops_;
  std::vector<ByteQueue> spare_blocks_;  // emptied body blocks, reused for the next piece
  std::optional<Error> callback_error_;  // the real error behind CALLBACK_FAILURE
  std::optional<Error> terminal_error_;  // the session failed with this
  std::uint64_t close_code_ = NGHTTP3_H3_NO_ERROR;
  std::uint64_t connection_window_raised_ = 0;  // beyond options_.connection_window
  std::size_t active_ = 0;
  std::uint64_t streams_ended_ = 0;
  std::int64_t reading_stream_ = -1;  // the stream on_stream_data is feeding to nghttp3
  std::size_t reading_credit_ = 0;    // body bytes of it credited at once
  bool goaway_received_ = false;
  bool goaway_refused_streams_ = false;
  std::int64_t goaway_stream_id_ = 0;
  bool closing_ = false;  // fail_all(): no new streams
  bool broken_ = false;   // a fatal error: nghttp3 must not be called again
  bool closed_ = false;   // on_connection_closed: the transport is gone
  bool in_library_ = false;
  bool changed_ = false;  // something on_change reports happened
  int depth_ = 0;         // nested session calls (see Entry)
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

class H3Session::Entry {
 public:
  explicit Entry(H3Session& session) : session_(session) { ++session_.depth_; }
  ~Entry() {
    if (--session_.depth_ != 0 || !session_.changed_) return;
    session_.changed_ = false;
    try {
      if (session_.on_change_) session_.on_change_();
    } catch (...) {
      // The owner's callback must not throw; nothing here could report it.
    }
  }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;

 private:
  H3Session& session_;
};

// Runs one call into nghttp3. Calls nghttp3 would make of us while it runs (a sink
// submitting or cancelling from inside an event) wait in pending_ops_ and run as the
// outermost call returns: nghttp3 is not re-entrant.
template <class Call>
auto H3Session::in_library(Call&& call) {
  const bool outer = !in_library_;
  in_library_ = true;
  auto rv = call();
  if (outer) {
    in_library_ = false;
    run_pending_ops();
  }
  return rv;
}

}  // namespace sluice
