#pragma once
/// @file
/// sluice::Response and sluice::PendingResponse.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/body.hpp"
#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/headers.hpp"

namespace sluice {

/// http1_0 is last so the others keep their numbers; it is what a server that answered
/// "HTTP/1.0" spoke, over a connection that asked in HTTP/1.1.
enum class HttpVersion { http1_1, http2, http3, http1_0 };
/// "1.0", "1.1", "2", "3": the form curl's %{http_version} prints.
SLUICE_API const char* to_string(HttpVersion version) noexcept;

/// When each step of a response happened: the steps of the W3C Resource Timing
/// (startTime ... responseStart) and of curl's -w times, on the steady clock of the
/// Client's HTTP thread. The body's end (responseEnd, curl's time_total) comes later:
/// BodyReader::ended_at().
struct ResponseTiming {
  using TimePoint = std::chrono::steady_clock::time_point;
  TimePoint start{};        ///< the HTTP thread took the request (startTime)
  TimePoint fetch_start{};  ///< the final hop began, after any redirects (fetchStart)
  /// How the response's connection was made: set when the request waited for a new
  /// connection (never earlier than fetch_start), nullopt on one already open
  /// (connection_reused). dns_*: domainLookupStart/End (curl: namelookup).
  std::optional<TimePoint> dns_start, dns_end;
  /// The TCP connect (curl: connect); over HTTP/3 the QUIC handshake.
  std::optional<TimePoint> connect_start, connect_end;
  /// The TLS handshake: tls_start is secureConnectionStart, tls_end curl's appconnect
  /// (and Resource Timing's connectEnd for https). Over HTTP/3 the QUIC handshake.
  std::optional<TimePoint> tls_start, tls_end;
  bool connection_reused = false;
  TimePoint request_start{};   ///< the request began to be sent (requestStart; curl: pretransfer)
  TimePoint response_start{};  ///< the response head arrived (responseStart; curl: starttransfer)
};

/// The server's certificate as the TLS handshake showed it (curl -v's "Server
/// certificate" lines).
struct PeerCertificate {
  /// Distinguished names in OpenSSL's one-line form, as curl prints them over OpenSSL:
  /// "CN=localhost", "C=DE; O=Example; CN=example.org".
  std::string subject;
  std::string issuer;
  std::chrono::system_clock::time_point not_before{};  ///< valid from (curl's "start date")
  std::chrono::system_clock::time_point not_after{};   ///< valid until (curl's "expire date")
  /// The subjectAltName entries a host name is checked against, in the certificate's
  /// order: "DNS:localhost", "IP Address:127.0.0.1" (OpenSSL's words).
  std::vector<std::string> subject_alt_names;
};

/// What the TLS handshake of the response's connection settled (over TCP, or inside
/// QUIC for HTTP/3).
struct TlsInfo {
  std::string version;  ///< "TLSv1.3", "TLSv1.2" (OpenSSL's names, also over QUIC)
  std::string cipher;   ///< the cipher suite: "TLS_AES_256_GCM_SHA384"
  std::string alpn;     ///< the protocol ALPN agreed: "h2", "http/1.1", "h3"; "" for none
  /// The session was resumed from an earlier connection's ticket: the server sent no
  /// certificate then, so `certificate` is the one the handshake that made the session
  /// saw (OpenSSL and GnuTLS keep it).
  bool resumed = false;
  std::optional<PeerCertificate> certificate;
  /// The certificate name the request's host matched ("localhost", "*.example.org"),
  /// "" when none did or no certificate was seen (curl's "subjectAltName: host ...
  /// matched cert's ..." line).
  std::string matched_name;
};

/// A response's head and how it came (its connection, timing and certificate
/// check): the part of a Response that stays meaningful after its body is gone.
/// Response is one; DownloadResult::first_response and the command's -w variables
/// keep a copy (Response::head()).
struct ResponseHead {
  int status = 0;
  Headers headers;
  HttpVersion version = HttpVersion::http1_1;
  std::string effective_url;  ///< after redirects
  int redirects = 0;          ///< how many were followed
  /// Connections opened for this request, across its redirects and retries (curl's
  /// num_connects): 0 when every hop went over a connection already open.
  int connects = 0;
  std::string remote_ip;  ///< the address the connection reached: "127.0.0.1", "::1"
  std::uint16_t remote_port = 0;
  std::string local_ip;  ///< where the connection left from ("" over a Unix socket)
  std::uint16_t local_port = 0;
  /// The check of the server's TLS certificate on the connection that answered
  /// (curl's ssl_verify_result): 0 when it passed or there was no TLS, otherwise
  /// OpenSSL's X509_V_ERR_* code (19: self-signed in the chain, 20: unknown issuer),
  /// which ClientOptions' insecure setting reports without failing on it. Over
  /// HTTP/3 GnuTLS checks, and its verdict is given in the same numbers; a resumed
  /// QUIC session (no certificate is sent) reports 0.
  long tls_verify_result = 0;
  /// What TLS did on the response's connection; nullopt without TLS (http://).
  std::optional<TlsInfo> tls;
  ResponseTiming timing;
};

/// A response whose headers arrived (its head), the request as it went, and its
/// body, which streams through `body`.
struct Response : ResponseHead {
  /// The request's header fields as the Client sent them for this response (its
  /// last hop, after redirects and a 401's answer): the Request's own and those the
  /// Client adds (User-Agent, Accept, Authorization, Accept-Encoding, the cookie
  /// jar's Cookie), in the order written. Not the ones the protocol writes itself:
  /// Host (:authority), Content-Length, Transfer-Encoding. curl's -v shows them.
  Headers request_headers;
  /// The method the last hop went with: GET after a 303, or after a 301/302 that
  /// answered a POST, whatever the Request said.
  std::string request_method;
  /// The length of the body the last hop sent (its Content-Length); nullopt without
  /// a body (dropped by such a redirect, or none) or for a stream of unknown length.
  std::optional<std::uint64_t> request_body_length;
  BodyReader body;

  /// The head, copied, to keep after the Response is gone; the body is not touched.
  ResponseHead head() const { return *this; }
};

struct PendingState;  // internal
class Client;

/// What then() leaves its caller: the way to cancel the request. Copyable; any
/// thread. Dropping it changes nothing (the callback still runs, once).
class SLUICE_API RequestHandle {
 public:
  RequestHandle() = default;
  /// Any thread; idempotent. A callback that has not run yet gets category
  /// cancelled; a body under way fails with it (see PendingResponse::cancel).
  /// `reason`, if any, ends the error's message ("request cancelled: <reason>").
  void cancel(const std::string& reason = {});

 private:
  friend class PendingResponse;
  explicit RequestHandle(std::shared_ptr<PendingState> state);
  std::shared_ptr<PendingState> state_;
};

/// A request in flight until its response headers arrive. Wait on it (wait(),
/// wait_for()), or hand it to a callback with then(), which consumes it: the choice
/// is made once, by the type. Cancel from any thread; cancelling after the headers
/// arrived also cancels the body (its reader returns what was staged, then fails with
/// category cancelled). Move-only, like a future: dropping it before wait() or then()
/// took the response cancels the request (a response nobody can read would hold its
/// connection).
class SLUICE_API PendingResponse {
 public:
  PendingResponse() = default;
  PendingResponse(PendingResponse&&) noexcept = default;
  PendingResponse& operator=(PendingResponse&& other) noexcept;
  PendingResponse(const PendingResponse&) = delete;
  PendingResponse& operator=(const PendingResponse&) = delete;
  ~PendingResponse();

  /// Blocks until the response headers arrive or the request fails.
  Result<Response> wait();
  /// std::nullopt if nothing was decided within `timeout`.
  std::optional<Result<Response>> wait_for(std::chrono::milliseconds timeout);
  /// `done` fires once, always on the HTTP thread, also when the response was
  /// already decided (it is then posted there). Only if the Client is already gone
  /// does it run at once, on this thread. Consumes the PendingResponse
  /// (`std::move(pending).then(...)`, or `client.send(request).then(...)`).
  RequestHandle then(std::function<void(Result<Response>)> done) &&;
  /// Any thread; idempotent. `reason`, if any, ends the error's message
  /// ("request cancelled: <reason>"), as fetch's AbortController.abort(reason) does.
  void cancel(const std::string& reason = {});

 private:
  friend class Client;
  explicit PendingResponse(std::shared_ptr<PendingState> state);
  void abandon() noexcept;
  std::shared_ptr<PendingState> state_;
};

}  // namespace sluice
