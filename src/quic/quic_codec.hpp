#pragma once
// QuicCodec: the QUIC transport of one HTTP/3 connection over ngtcp2 0.12, sans I/O.
// It moves stream bytes for a QuicApplication (H3Session) through the QuicStreams
// seam (quic_streams.hpp), and datagrams through a DatagramPort: received ones and
// deadlines come in with `now`, packets go out into the carrier's DatagramBatch
// (net/datagram_driver.hpp). One deadline serves ngtcp2's expiry and the
// application's. Every way a connection ends becomes one Error. QuicConnection
// (quic_connection.hpp) carries it over a UDP socket; unit tests over a simulated link.
//
// Flow control is the backpressure (docs/architecture.md): connection credit
// (MAX_DATA) is returned as stream bytes arrive, so a held stream never stalls its
// siblings; stream credit (MAX_STREAM_DATA) only for what the application says is
// gone (on_stream_data's result, extend_stream, set_stream_window). ngtcp2 0.12
// extends nothing by itself while settings.max_stream_window is 0, as here.
//
// ngtcp2 0.12 has no callback for a STOP_SENDING the peer sent: it resets the
// stream's sending side, and the transport learns it when a write of that stream
// fails (NGTCP2_ERR_STREAM_SHUT_WR). It then calls on_stop_sending(stream_id,
// H3_NO_ERROR), the real code being unknown; the reset's own outcome, if any,
// arrives on the receiving side (on_stream_reset).
//
// Ownership: HTTP thread only. Owned beside its carrier (QuicConnection) by the glue
// that owns its application (H3Connection); neither may destroy the other from inside
// a call of the seam. Every application callback runs inside one event of the carrier.

#include <ngtcp2/ngtcp2.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/trace.hpp"
#include "net/datagram_driver.hpp"
#include "net/local_binding.hpp"
#include "net/socket_address.hpp"
#include "quic/quic_errors.hpp"
#include "quic/quic_streams.hpp"
#include "quic/quic_tls.hpp"

namespace sluice {

struct QuicOptions {
  SocketAddress remote;   ///< the server's resolved address (the caller resolves)
  LocalBinding local;     ///< where the UDP socket leaves from (--interface, --local-port)
  std::string host;       ///< SNI and certificate name; messages name it
  std::string ca_file;    ///< PEM CA to trust instead of the system store
  bool insecure = false;  ///< no certificate or host name verification at all
  /// Trust shared between connections; when null it is built from ca_file/insecure.
  std::shared_ptr<const QuicTlsContext> tls_context;
  /// The handshake fails with a timeout error when not complete by then.
  std::chrono::milliseconds handshake_timeout{10'000};
  /// QUIC max_idle_timeout (the peer's may be shorter; the lower one applies).
  std::chrono::milliseconds idle_timeout{30'000};
  /// PINGs after this much quiet keep an idle connection alive; 0: none.
  std::chrono::milliseconds keep_alive{0};
  /// Initial receive window of each request stream; set_stream_window raises it
  /// to the request's initial allowance. 0 by default: ngtcp2 0.12 sends MAX_STREAM_DATA only
  /// once the unsent credit exceeds half of this window, so with a larger one a
  /// last small credit could wait forever while the server waits for it.
  std::uint64_t stream_window = 0;
  /// Receive window of the server's unidirectional streams (control, QPACK).
  std::uint64_t uni_stream_window = 64 * 1024;
  /// Connection receive window: what may be in flight over all streams at once.
  std::uint64_t connection_window = 16 * 1024 * 1024;
  /// Unidirectional streams the server may open (HTTP/3 needs 3).
  std::uint64_t max_uni_streams = 16;
  /// Names the application's error codes in messages (H3Connection sets h3_error_name).
  AppErrorNamer app_error_name = nullptr;
};

class QuicCodec final : public QuicStreams, public DatagramCodec {
 public:
  /// The path's two ends (ngtcp2 names the path of every packet by them).
  struct Path {
    SocketAddress local;
    SocketAddress remote;
  };
  /// Creates the TLS session and the ngtcp2 connection and asks `port` to write the
  /// first packets. An Error here is local (an unreadable CA file, no random bytes)
  /// and the application hears nothing; every later failure, the handshake's
  /// included, reaches it as on_connection_closed. `port`, `app` and `trace` outlive
  /// the codec.
  static Result<std::unique_ptr<QuicCodec>> create(QuicOptions options, Path path,
                                                   DatagramPort& port, QuicApplication& app,
                                                   const Trace& trace, std::uint64_t conn_id);
  /// Silent: no CONNECTION_CLOSE, no callback. Call close() first for a polite end.
  ~QuicCodec() override;
  QuicCodec(const QuicCodec&) = delete;
  QuicCodec& operator=(const QuicCodec&) = delete;

  // QuicStreams. Stream calls on a closed connection fail or do nothing.
  Result<std::int64_t> open_bidi_stream() override;
  Result<std::int64_t> open_uni_stream() override;
  std::uint64_t bidi_streams_left() const override;
  void extend_stream(std::int64_t stream_id, std::uint64_t n) override;
  void set_stream_window(std::int64_t stream_id, std::uint64_t window) override;
  /// Both are ngtcp2 stream offset extensions; only the application tells them apart.
  void grow_stream_window(std::int64_t stream_id, std::uint64_t by) override {
    extend_stream(stream_id, by);
  }
  void extend_connection_window(std::uint64_t n) override;
  /// ngtcp2's smallest RTT sample (zero before the first).
  std::chrono::nanoseconds path_rtt() const override;
  void shutdown_stream(std::int64_t stream_id, std::uint64_t app_error) override;
  void request_write() override;

  // DatagramCodec
  void on_datagram(std::span<const std::uint8_t> datagram, TimePoint now) override;
  void on_port_error(Error error) override;
  void write_datagrams(DatagramBatch& batch, TimePoint now) override;
  std::optional<TimePoint> next_deadline() const override;
  void on_deadline(TimePoint now) override;

  /// Ends the connection: one CONNECTION_CLOSE (application error `app_error`,
  /// H3_NO_ERROR by default) is sent, then the application hears
  /// on_connection_closed(error). Nothing after the first close or failure. Safe
  /// from inside application callbacks (then it takes effect when ngtcp2 returns).
  void close(Error error, std::uint64_t app_error = kH3NoError);

  bool is_closed() const noexcept { return state_ == State::closed; }
  bool handshake_completed() const noexcept { return handshake_done_; }
  /// Before the handshake completed, streams opened now go as 0-RTT early data.
  bool sending_early_data() const noexcept { return early_ && !handshake_done_; }
  /// A request went as early data (counted in the client's stats).
  void count_early_request() noexcept { ++tls_->tickets().early_requests; }
  /// The certificate check's result in OpenSSL's numbers (QuicTls::verify_result).
  long tls_verify_result() const noexcept { return tls_->verify_result(); }
  /// What the TLS handshake inside QUIC settled (QuicTls::tls_info).
  TlsInfo tls_info() const { return tls_->tls_info(); }
  std::uint64_t id() const noexcept { return id_; }
  /// "localhost:4433": the host and port the messages name.
  const std::string& peer() const noexcept { return peer_; }
  /// The protocol TLS negotiated ("h3" once the handshake completed).
  std::string alpn() const;

  static constexpr std::uint64_t kH3NoError = 0x100;
  static constexpr std::uint64_t kH3GeneralProtocolError = 0x101;
  static constexpr std::uint64_t kH3InternalError = 0x102;

 private:
  friend struct QuicCallbacks;
  /// ngtcp2's callback table (quic_callbacks.cpp); user_data is the QuicCodec.
  static const ngtcp2_callbacks& callbacks();
  enum class State { handshaking, open, closed };
  /// How a connection ends: the error the application hears and the
  /// CONNECTION_CLOSE to send, if any.
  struct Failure {
    Error error;
    std::optional<ngtcp2_connection_close_error> close;
  };
  /// A stream call made while ngtcp2 is building a packet (between WRITE_MORE
  /// results), where ngtcp2 allows no other call; applied once the packet is done.
  struct DeferredCall {
    enum class Kind { extend, shutdown } kind;
    std::int64_t stream_id;
    std::uint64_t value;
  };

  QuicCodec(QuicOptions options, Path path, DatagramPort& port, QuicApplication& app,
            const Trace& trace, std::uint64_t conn_id, std::unique_ptr<QuicTls> tls);
  Result<void> start();
  void offer_early_data();
  ngtcp2_path ngtcp2_path_of() noexcept;

  // Deadlines and closing (quic_codec.cpp).
  void terminate(Failure failure);
  bool act_on_failure();
  bool send_connection_close(const ngtcp2_connection_close_error& close);
  void trace(const std::string& what) const;

  // Reading and writing (quic_codec_io.cpp).
  Failure read_failure(int liberr);
  Failure expiry_failure(int liberr);
  std::optional<std::size_t> write_one(std::span<std::uint8_t> dest, ngtcp2_tstamp ts);
  std::optional<std::size_t> after_write_error(ngtcp2_ssize rv, std::int64_t stream_id,
                                               ngtcp2_ssize datalen);
  bool output_written(std::int64_t stream_id, ngtcp2_ssize datalen);
  void apply_deferred();
  void extend_credit(std::int64_t stream_id, std::uint64_t n);
  void requeue_credit();

  // From ngtcp2's callbacks (quic_callbacks.cpp); non-zero: NGTCP2_ERR_CALLBACK_FAILURE.
  int handle_handshake_completed();
  void handle_early_data_rejected();
  void keep_transport_params();
  void start_early_application();
  /// Streams may open: the handshake completed, or early data may be sent.
  bool streams_usable() const noexcept {
    return state_ == State::open || (state_ == State::handshaking && early_);
  }
  int handle_stream_data(std::uint32_t flags, std::int64_t stream_id,
                         std::span<const std::uint8_t> data);
  void start_application();
  void fail_from_application(Error error, std::uint64_t app_error);

  std::chrono::milliseconds effective_idle_timeout() const;

  QuicOptions options_;
  Path path_;
  DatagramPort& port_;
  QuicApplication& app_;
  const Trace& trace_;
  std::uint64_t id_;
  std::string peer_;  // "host:port"
  std::unique_ptr<QuicTls> tls_;
  ngtcp2_conn* conn_ = nullptr;

  State state_ = State::handshaking;
  bool handshake_done_ = false;
  bool app_started_ = false;        // the application may send: early, or after the handshake
  bool handshake_told_ = false;     // on_handshake_completed was delivered
  bool early_ = false;              // 0-RTT offered: the server's old parameters are set
  bool stateless_reset_ = false;    // seen in this read: the draining is not a close
  std::optional<Failure> failure_;  // raised where it cannot be acted on yet
  int ngtcp2_depth_ = 0;            // > 0 inside an ngtcp2 call (its callbacks run)
  bool coalescing_ = false;         // ngtcp2 holds a packet open (WRITE_MORE)
  std::vector<DeferredCall> deferred_;
  // Streams given credit before the handshake was confirmed. While ngtcp2 0.12
  // still counts itself in the handshake (until the write that sends our Finished,
  // which a paced write can put off), each write of stream data drops from its
  // queue every stream that only has a MAX_STREAM_DATA to send
  // (conn_retry_early_payloadlen). So they are queued again after every packet
  // until the handshake is confirmed, when it is over for certain.
  std::vector<std::int64_t> requeue_;
  bool handshake_confirmed_ = false;
};

}  // namespace sluice
