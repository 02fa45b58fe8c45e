#pragma once
// H2Session: the sans-IO HTTP/2 client session over nghttp2. Bytes from the server go
// in through feed(), bytes for the server come out of drain_output(), exchanges are
// submitted with an ExchangeSink that receives their events. It never sees a socket;
// it reads the time from the TimeSource it is given (the loop, or a test's manual
// clock) and tells its owner when it wants on_timer() (next_deadline()).
//
// Flow control is the backpressure: each stream's credit follows what its consumer
// takes and its window adapts to the path, by the one policy both HTTP/2 and HTTP/3
// use (mux/stream_credit.hpp). The session measures the round-trip time that policy
// needs: a PING goes out with the first SETTINGS and again now and then while body
// bytes arrive. The connection window is given back at once for every byte, so a
// held stream never stalls its siblings, and it grows to twice the streams' windows
// together so that it never limits them.
//
// Ownership: owned by H2Connection (or a test); HTTP thread only. Sink events fire
// from inside feed(), drain_output(), cancel paths and fail_all(); a sink may call
// resume_stream, cancel_stream or submit from inside an event, but must not destroy
// the session.

#include <nghttp2/nghttp2.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"
#include "core/byte_queue.hpp"
#include "core/time_source.hpp"
#include "core/trace.hpp"
#include "http2/h2_stream.hpp"
#include "mux/rtt_estimate.hpp"
#include "mux/stream_credit.hpp"
#include "mux/stream_table.hpp"
#include "sluice/error.hpp"

namespace sluice {

struct H2SessionOptions {
  /// SETTINGS_INITIAL_WINDOW_SIZE. Each stream's window is then set to its initial
  /// allowance (ExchangeRequest::allowance) as its HEADERS leave. The protocol's own
  /// default keeps a small allowance honest: a server may send this much on a new
  /// stream before our WINDOW_UPDATE or SETTINGS reach it, so it is the most a
  /// stream can overshoot an allowance below it.
  std::uint32_t stream_window = NGHTTP2_INITIAL_WINDOW_SIZE;
  /// The connection's receive window.
  std::uint32_t connection_window = 16 * 1024 * 1024;
  /// SETTINGS_MAX_HEADER_LIST_SIZE (each stream also enforces its own
  /// ExchangeRequest::max_header_bytes).
  std::uint32_t max_header_list = 256 * 1024;
  /// Streams assumed allowed before the server's SETTINGS arrive.
  std::uint32_t assumed_max_streams = 100;
  /// How stream windows grow and when credit goes back (mux/stream_credit.hpp).
  WindowPolicy window;
  /// PINGs measure the round-trip time: the first goes out with SETTINGS; while
  /// body bytes arrive, more follow at once until there are this many samples (the
  /// first can be far above the path's delay while the server sets up), then one
  /// every rtt_probe_interval.
  std::size_t early_rtt_samples = 3;
  std::chrono::milliseconds rtt_probe_interval{10'000};
};

class H2Session final : private StreamHooks<H2Stream> {
 public:
  /// `on_output_ready` runs on the HTTP thread when a deferred request body has more
  /// bytes (its source's waker fired): the owner should call drain_output soon. It may
  /// run from inside drain_output (a source that wakes synchronously).
  /// `conn_id` names the connection in trace lines ("c3 s5 h2: ...").
  /// `time` outlives the session.
  H2Session(std::function<void()> on_output_ready, const Trace& trace, std::uint64_t conn_id,
            const TimeSource& time, H2SessionOptions options = {});
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  /// Whether nghttp2 could be set up (it may fail to allocate). A failed session
  /// takes no streams and wants neither read nor write.
  Result<void> status() const;

  /// Server bytes in. On an Error every open stream has already received on_error
  /// (with it), the session is dead and the connection should close.
  Result<std::size_t> feed(std::span<const std::byte> bytes);
  /// Frames for the server out, appended to `out` until nghttp2 has nothing more or
  /// `out` holds 64 KiB (call again while wants_write()). Errors as for feed().
  Result<void> drain_output(ByteQueue& out);
  bool wants_read() const;
  bool wants_write() const;
  /// Neither: the session is over (GOAWAY exchanged and no streams left, or a fatal
  /// error); the connection can close.
  bool finished() const { return !wants_read() && !wants_write(); }

  /// Queues a request; events go to `sink` until on_complete or on_error. The
  /// request's body source (if any) must outlive the exchange. Errors leave `sink`
  /// untouched (the caller reports them).
  Result<std::int32_t> submit(ExchangeRequest& request, ExchangeSink& sink);
  /// The stream's consumer took bytes (it reported, or left Paused): give the
  /// window back for what it took.
  void resume_stream(std::int32_t stream_id);
  /// RST_STREAM(CANCEL); no further events reach the stream's sink.
  void cancel_stream(std::int32_t stream_id);

  /// Streams that can be submitted now: the server's SETTINGS_MAX_CONCURRENT_STREAMS
  /// (assumed_max_streams before it arrives) minus the open ones; 0 after a GOAWAY
  /// either way, after terminate() or fail_all().
  std::size_t available_streams() const;
  /// Some stream is not paused (waiting for its head, or taking body bytes), or
  /// paused only after `paused_before`.
  bool receiving_since(TimePoint paused_before) const;
  std::size_t open_streams() const noexcept { return streams_.size(); }
  /// Streams that ended so far (completed, failed or cancelled): a freed slot.
  std::uint64_t streams_ended() const noexcept { return streams_ended_; }
  bool goaway_received() const noexcept { return goaway_received_; }
  /// The server's GOAWAY refused streams we had opened: how many it processed (our
  /// streams are 1, 3, 5, ... so those up to its last stream id). nullopt otherwise.
  std::optional<std::size_t> served_before_refusal() const noexcept {
    if (!goaway_refused_streams_) return std::nullopt;
    return static_cast<std::size_t>(goaway_last_stream_ + 1) / 2;
  }

  /// Sends GOAWAY with `error_code` (NGHTTP2_NO_ERROR to close politely). Open streams
  /// finish; no new ones start.
  void terminate(std::uint32_t error_code);
  /// Every open stream gets on_error(error); the session takes no more streams.
  void fail_all(const Error& error);
  /// The error for streams cut off by the server closing the transport: names the
  /// GOAWAY the server sent first, if any.
  Error peer_closed_error(const std::string& peer) const;

  /// Queues a liveness PING; ping_outstanding() until its ACK arrives.
  Result<void> send_ping();
  bool ping_outstanding() const noexcept { return liveness_ping_ != 0; }
  /// When on_timer() wants to run: a stream gone quiet with credit owed.
  std::optional<TimePoint> next_deadline() const;
  /// Gives back what quiet streams' consumers took (see StreamCredit).
  void on_timer();
  /// Round-trip times measured so far (PING and SETTINGS acknowledgements).
  const RttEstimate& rtt() const noexcept { return rtt_; }

 private:
  /// What a callback asks of nghttp2: carry on, or reset just this stream
  /// (NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE). A fatal error is an Error.
  enum class Verdict { proceed, reset_stream };
  struct Trampolines;
  friend struct Trampolines;

  Result<void> setup();
  void install_callbacks(nghttp2_session_callbacks* callbacks);
  int verdict_code(Result<Verdict> result) noexcept;
  void note_fatal(Error error) noexcept;
  Error fatal_error(long rv, const char* operation);

  // Receiving (h2_session_recv.cpp).
  Result<Verdict> on_begin_headers(const nghttp2_frame& frame);
  Result<Verdict> on_header(const nghttp2_frame& frame, std::string_view name,
                            std::string_view value);
  Result<Verdict> on_invalid_header(const nghttp2_frame& frame, std::string_view name);
  Result<Verdict> on_frame_recv(const nghttp2_frame& frame);
  Result<Verdict> on_headers_frame(const nghttp2_frame& frame);
  Result<Verdict> on_data_chunk(std::int32_t stream_id, std::span<const std::byte> bytes);
  Result<Verdict> on_stream_close(std::int32_t stream_id, std::uint32_t error_code);
  Result<Verdict> on_invalid_frame(const nghttp2_frame& frame, int lib_error_code);
  void on_goaway(const nghttp2_frame& frame);
  void on_settings_ack();
  void deliver_head(H2Stream& stream, int status);
  void finish_stream(std::int32_t stream_id);

  // Sending (h2_session_send.cpp).
  Result<Verdict> on_frame_send(const nghttp2_frame& frame);
  Result<Verdict> on_frame_not_send(const nghttp2_frame& frame, int lib_error_code);
  Result<ssize_t> read_body(std::int32_t stream_id, std::span<std::uint8_t> into,
                            std::uint32_t& data_flags);
  void wake_body(std::int32_t stream_id);
  void resume_woken_bodies();
  void end_body(H2Stream& stream);
  void apply_initial_window(const H2Stream& stream);
  /// nghttp2's local window of the stream set to `window`; nghttp2's return value.
  int set_stream_window(const H2Stream& stream, std::uint64_t window);
  Error own_reset_error(const H2Stream& stream, std::uint32_t error_code) const;
  Error goaway_error(std::int32_t stream_id) const;

  // Credit and round trips (h2_session_credit.cpp); the hooks of streams_.
  bool can_credit(const H2Stream& stream) const override;
  std::chrono::nanoseconds path_rtt() const override { return rtt_.min(); }
  void announce_credit(H2Stream& stream, const CreditGrant& grant, std::uint64_t held) override;
  void trace_credit(const H2Stream& stream, const CreditGrant& grant, std::uint64_t increment,
                    int rv) const;
  void follow_connection_window();
  Result<void> submit_ping(bool liveness);
  void on_ping_ack(const nghttp2_frame& frame);
  void maybe_probe_rtt(TimePoint now);

  // Streams.
  H2Stream* find(std::int32_t stream_id) { return streams_.find(stream_id); }
  /// Removes the stream and returns its sink (nullptr if unknown); the body source
  /// is detached first, since the caller may free it in the sink event.
  ExchangeSink* detach(std::int32_t stream_id);
  void fail_stream(std::int32_t stream_id, Error error);
  void check_finished();

  void trace_conn(const std::string& what) const;
  void trace_stream(std::int32_t stream_id, const std::string& what) const;

  std::function<void()> on_output_ready_;
  const Trace& trace_;
  std::uint64_t conn_id_;
  const TimeSource& time_;
  H2SessionOptions options_;
  nghttp2_session* session_ = nullptr;
  std::optional<Error> setup_error_;

  StreamTable<H2Stream> streams_;
  std::optional<Error> callback_error_;  // the real error behind CALLBACK_FAILURE
  std::optional<Error> terminal_error_;  // why nghttp2 ended the connection itself
  // A waker fired since the last resume_woken_bodies: wants_write() without a scan.
  bool bodies_woken_ = false;
  std::uint64_t streams_ended_ = 0;
  bool settings_acked_ = false;
  bool goaway_received_ = false;
  std::int32_t goaway_last_stream_ = 0;
  bool goaway_refused_streams_ = false;
  std::uint32_t goaway_code_ = 0;
  std::string goaway_debug_;
  bool closing_ = false;     // terminate() or fail_all(): no new streams
  bool broken_ = false;      // feed or drain_output failed: nghttp2 must not be called again
  bool in_library_ = false;  // inside mem_recv or mem_send (nghttp2 is not re-entrant)
  // PINGs carry a sequence number; an acknowledgement's is matched to its send time.
  std::uint64_t pings_sent_ = 0;
  std::uint64_t liveness_ping_ = 0;  // the liveness PING awaiting its ACK (0: none)
  std::uint64_t probe_ping_ = 0;     // the RTT probe awaiting its ACK (0: none)
  TimePoint probe_sent_at_{};
  TimePoint liveness_sent_at_{};
  RttEstimate rtt_;
  std::int32_t connection_window_ = 0;  // the connection's receive window as set
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice
