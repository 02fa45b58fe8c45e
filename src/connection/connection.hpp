#pragma once
// The protocol seam, connection side: src/client starts exchanges on a Connection
// without knowing its HTTP version. A request is described once, version-neutral
// (ExchangeRequest); each protocol frames it its own way.
// Ownership: HTTP thread only. A Connection is owned by its pool in src/client.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "connection/exchange.hpp"
#include "net/connect_timing.hpp"
#include "sluice/headers.hpp"
#include "sluice/request.hpp"
#include "sluice/response.hpp"

namespace sluice {

/// What a request body source has for the transport right now.
struct SourceChunk {
  enum class State {
    data,     ///< `bytes` are available (valid until consume or the next peek)
    waiting,  ///< nothing now; the source calls its waker when it has more
    end,      ///< every byte was taken
    failed,   ///< the producer failed; `error` says why
  } state = State::waiting;
  std::span<const std::byte> bytes;
  std::optional<Error> error;
};

/// A request body, pulled by the transport only as fast as the socket or the peer's
/// flow-control window allows. HTTP thread only.
class RequestBodySource {
 public:
  virtual ~RequestBodySource() = default;
  /// Known length (Content-Length), or nullopt for a streamed body.
  virtual std::optional<std::uint64_t> length() const = 0;
  /// Up to `max` bytes, without copying.
  virtual SourceChunk peek(std::size_t max) = 0;
  /// The transport took `n` bytes of the last peek. After the last byte a large owned
  /// copy is freed here, on the HTTP thread (the release rule).
  virtual void consume(std::size_t n) = 0;
  /// `wake` runs on the HTTP thread when a waiting source has more.
  virtual void set_waker(std::function<void()> wake) = 0;
  /// Starts over from the first byte (for retries and 307/308); false if impossible.
  virtual bool rewind() = 0;
  /// Memory this source holds now (its copy of the body, or its read-ahead).
  virtual std::size_t held_bytes() const = 0;
  /// The whole body when it is in memory (Digest qop=auth-int hashes it before it is
  /// sent again); nullopt for a file, a stream, or a copy already released.
  virtual std::optional<std::string_view> whole_in_memory() const { return std::nullopt; }
};

/// One request as every HTTP version needs it.
struct ExchangeRequest {
  std::string method;
  std::string scheme;                 ///< "http" / "https" (h2/h3 :scheme)
  std::string authority;              ///< Host / :authority
  std::string target;                 ///< origin-form path and query
  Headers headers;                    ///< validated; no Host, no framing headers
  RequestBodySource* body = nullptr;  ///< owned by the caller; outlives the exchange
  std::size_t max_header_bytes = 256 * 1024;
  /// The response's allowance: where the stream's window (h2/h3) or the staged bytes
  /// (h1) start, and the most they may grow to.
  BodyAllowance allowance;
};

/// Whether a request may go as 0-RTT early data, which an attacker could replay:
/// a safe method (RFC 9110 section 9.2.1) and no body, as RFC 8470 advises.
inline bool safe_for_early_data(std::string_view method, bool has_body) noexcept {
  return !has_body && (method == "GET" || method == "HEAD" || method == "OPTIONS");
}
inline bool safe_for_early_data(const ExchangeRequest& request) noexcept {
  return safe_for_early_data(request.method, request.body != nullptr);
}

class Connection;

/// Names one exchange on its connection: an HTTP/2 stream id, an HTTP/3 stream id,
/// an HTTP/1.1 sequence number. kNoExchange when none started.
using ExchangeId = std::uint64_t;
inline constexpr ExchangeId kNoExchange = ~ExchangeId{0};

/// Told when a connection can take more work or is gone. HTTP thread only. The
/// owner may destroy the connection from on_connection_closed only after the call
/// returns (it is called from inside the connection's event handling): it must defer
/// the deletion with EventLoop::post.
class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  /// It can start more exchanges than when last told: an exchange ended, the peer
  /// raised its stream limit, or it just became usable. Also called once when the
  /// peer's GOAWAY starts it draining: it stops counting toward the origin's limit,
  /// so requests waiting for a slot may get a new connection now.
  virtual void on_connection_available(Connection& conn) = 0;
  virtual void on_connection_closed(Connection& conn) = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual HttpVersion version() const noexcept = 0;
  /// Exchanges this connection can start now (0 while busy or closing).
  virtual std::size_t available_streams() const noexcept = 0;
  /// No exchange in flight: the pool's idle timeout and scratch release apply.
  virtual bool idle() const noexcept = 0;
  /// Whether it carried an exchange already; asked before start() (a request that
  /// fails on a reused connection before any response byte is retried once).
  virtual bool was_reused() const noexcept = 0;
  virtual bool is_closed() const noexcept = 0;
  /// The peer sent GOAWAY: exchanges it kept finish, no new one starts here, and
  /// the pool does not count it toward max_connections_per_origin. HTTP/1.1 has no
  /// GOAWAY (a Connection: close response just closes).
  virtual bool draining() const noexcept { return false; }
  /// The peer's GOAWAY refused exchanges this connection had already started, after
  /// the server processed this many: the most it takes on one connection (a limit
  /// like nginx's keepalive_requests). nullopt when no GOAWAY refused any.
  virtual std::optional<std::size_t> served_before_refusal() const noexcept { return std::nullopt; }
  /// The handshake is still running and what starts now goes as 0-RTT early data:
  /// only requests safe_for_early_data() may start (the pool holds the others).
  virtual bool early() const noexcept { return false; }
  /// Starts an exchange; events go to `sink` until on_complete or on_error. Returns
  /// its id, or kNoExchange when it did not start (the sink heard why already,
  /// from inside this call).
  virtual ExchangeId start(ExchangeRequest request, ExchangeSink& sink) = 0;
  /// The exchange's consumer took bytes or has room again (it returned false from
  /// wants_body before, or reported as report_taken_after asked). An id that ended
  /// is ignored.
  virtual void resume(ExchangeId exchange) = 0;
  /// Ends the exchange without further events to its sink. h1 closes the connection
  /// unless the exchange already completed. An id that ended is ignored.
  virtual void cancel(ExchangeId exchange) = 0;
  /// The sweep: frees empty receive/send scratch unless an exchange on it is still
  /// receiving or paused only since `paused_before` (a held stream's prompt sibling
  /// keeps the connection's scratch); returns bytes freed.
  virtual std::size_t release_scratch(std::chrono::steady_clock::time_point paused_before) = 0;
  /// Empty scratch kept for reuse: what release_scratch() could free (stats).
  virtual std::size_t scratch_bytes() const noexcept = 0;
  /// Closes now; in-flight exchanges get on_error(error).
  virtual void close(Error error) = 0;
  /// Closes an attempt the owner gives up on (an HTTP/3 handshake past its fallback
  /// time): exchanges it carries that the server cannot have answered yet (0-RTT
  /// requests before the handshake) hear on_unprocessed and may go elsewhere; the
  /// rest hear on_error as with close().
  virtual void abandon(Error error) { close(std::move(error)); }
  /// Why a closed connection ended, when it knows better than its exchanges' errors
  /// say (an HTTP/3 handshake that failed: the pool falls back to TCP with it, or
  /// fails an --http3-only request with it).
  virtual std::optional<Error> close_reason() const { return std::nullopt; }
  /// Connection id for tracing ("c12").
  virtual std::uint64_t id() const noexcept = 0;
  /// For a connection whose handshake is its own (QUIC): the certificate check's
  /// result as ConnectTiming::tls_verify_result gives it; the maker copies it in.
  virtual long handshake_verify_result() const noexcept { return 0; }
  /// For such a connection: what its TLS handshake settled (ConnectTiming::tls).
  virtual std::optional<TlsInfo> handshake_tls_info() const { return std::nullopt; }

  /// How it was made and where it goes: set by its maker once, before (or as, for
  /// QUIC) it carries a request.
  const ConnectTiming& connect_timing() const noexcept { return connect_timing_; }
  void set_connect_timing(ConnectTiming timing) { connect_timing_ = std::move(timing); }

 private:
  ConnectTiming connect_timing_;
};

}  // namespace sluice
