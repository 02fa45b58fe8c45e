#pragma once
/// @file
/// sluice::Request: one version-neutral description of an HTTP request.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "sluice/body.hpp"
#include "sluice/export.h"
#include "sluice/headers.hpp"

namespace sluice {

/// Which HTTP version to speak.
enum class VersionPolicy {
  automatic,  ///< over TLS ALPN offers h2 and http/1.1 and the server picks; plain TCP speaks HTTP/1.1
  http1_only,             ///< HTTP/1.1 only (--http1.1)
  http2,                  ///< HTTP/2 where the server agrees by ALPN, else HTTP/1.1; never HTTP/3,
                          ///< not even one Alt-Svc announced, as automatic would (--http2)
  http2_prior_knowledge,  ///< HTTP/2 straight away, also over plain TCP (--http2-prior-knowledge)
  /// https only: HTTP/3 first; when QUIC fails or does not finish its handshake within
  /// ClientOptions::pool.http3_fallback_after, TCP as automatic (--http3). Automatic mode
  /// does the same for an origin that announced h3 in Alt-Svc.
  http3,
  /// https only: HTTP/3 or a clear error, never TCP (--http3-only).
  http3_only,
  /// HTTP/1.0 (--http1.0): the request line says HTTP/1.0, ALPN offers "http/1.0" (as
  /// curl does), never HTTP/2 or HTTP/3. A StreamBody without a
  /// length cannot be chunked in 1.0 and fails the request (ErrorCode usage).
  /// The connection is kept for another request only when the server answers with
  /// "Connection: keep-alive", as curl does.
  http1_0,
};

/// Timeouts; zero means none. Each failure is an Error of category timeout that names
/// which one expired.
struct Timeouts {
  std::chrono::milliseconds connect{30'000};  ///< DNS + TCP connect
  std::chrono::milliseconds tls{30'000};      ///< TLS handshake
  std::chrono::milliseconds first_byte{0};    ///< request sent -> response headers
  /// Nothing moving for this long once the request is on a connection: no response
  /// byte arrived and no request body byte was taken. Time a reader holds the body
  /// paused does not count.
  std::chrono::milliseconds idle{0};
  /// Whole exchange, body included: a hard deadline. At it the body's next read
  /// fails with ErrorCode::total_timeout, even while received bytes are still
  /// staged (a slow, e.g. rate-limited, reader does not get them after it).
  std::chrono::milliseconds total{0};
};

/// Redirect following. Off by default, as in curl; on with -L.
struct RedirectPolicy {
  bool follow = false;
  /// With follow off: a redirect (a 3xx with a Location) fails the request with
  /// ErrorCode::redirect_refused instead of being returned (fetch's redirect:
  /// "error"). follow off and this off is fetch's "manual": the 3xx is the response.
  bool fail_on_redirect = false;
  int max_redirects = 20;
  /// Following an https URL to an http one downgrades security; refused
  /// (ErrorCode::insecure_redirect) unless set.
  bool allow_https_to_http = false;
  /// The schemes a redirect may lead to (curl's --proto-redir), checked besides
  /// allow_https_to_http: a hop to a scheme turned off here fails with
  /// ErrorCode::insecure_redirect before anything connects.
  bool follow_to_http = true;
  bool follow_to_https = true;
  /// Keep a POST a POST, body included, on a 301, 302 or 303 (curl's --post301,
  /// --post302, --post303). Off, as browsers and curl do, the POST becomes a GET
  /// without its body.
  bool keep_post_on_301 = false;
  bool keep_post_on_302 = false;
  bool keep_post_on_303 = false;
  /// Send credentials (Authorization, Cookie and Proxy-Authorization headers, and
  /// Request::auth) on to other origins too (curl's --location-trusted). Off: a hop
  /// that leaves the origin drops them.
  bool credentials_to_other_origins = false;
  /// Each followed hop carries a Referer naming the URL it was redirected from
  /// (curl's --referer ";auto", CURLOPT_AUTOREFERER), replacing the request's own
  /// Referer from the second hop on: that URL without its fragment and credentials,
  /// as curl sends it.
  bool auto_referer = false;
  /// Ports a redirect may not lead to: such a hop fails with
  /// ErrorCode::redirect_refused before anything connects (fetch's "bad ports", which
  /// the Node binding passes). Empty: any port.
  std::vector<std::uint16_t> refused_ports;
  /// A 307 or 308 takes a streamed body (StreamBody) on to its next hop when none of
  /// it was sent yet. Off, such a redirect fails as the fetch standard says of a body
  /// that cannot be read again, however much of it was sent.
  bool resend_unsent_stream = true;
  /// The request body stays until the exchange ends, past the release threshold
  /// (ClientOptions::memory.release_threshold), so that a 307 or 308, or an
  /// authentication retry, can send it again: fetch's behaviour. It costs what the
  /// body holds (a lent body: the caller's memory, no copy) until the response.
  bool keep_body_for_resend = false;
};

/// Content decoding (gzip, deflate, br, zstd) and its limits.
struct DecodePolicy {
  /// Sends Accept-Encoding and decodes the response (--compressed).
  bool enabled = false;
  /// Decoded bytes allowed in all (0 = no limit).
  std::uint64_t max_decoded_size = 0;
  /// Decoded bytes per encoded byte allowed once past 1 MiB decoded (0 = no limit):
  /// stops decompression bombs while letting well-compressed text through.
  std::uint32_t max_ratio = 1000;
};

/// How many bytes of a response may wait for a reader that has not taken them yet:
/// the transport stops receiving for the response at its allowance (HTTP/1.1 stops
/// reading the socket; HTTP/2 and HTTP/3 give no more flow-control credit, the
/// stream's window being the allowance). A response starts at `initial_bytes`, so an
/// unread body holds about that much. While its reader takes what arrives promptly
/// (half the allowance within 1.5 round trips of the path, or within 3 ms where the
/// path is shorter than 2 ms), the allowance grows, up to `max_bytes` and within
/// ClientOptions::memory.staged_bytes_budget. A reader that stops holds at most the
/// allowance it had then; one that stays away for a second or more comes back to
/// `initial_bytes`. Setting both to the same value fixes the allowance.
struct BodyAllowance {
  std::size_t initial_bytes = 64 * 1024;
  /// curl's HTTP/2 stream window (Debian 12's curl 7.88: 32 MiB): 640 MiB/s at 50 ms.
  /// On a short path the reader's own rate decides how far it grows (bench/README.md).
  std::size_t max_bytes = 32 * 1024 * 1024;
};

/// A request body the library owns: moved in, freed by the HTTP thread as soon as
/// the transport has taken its last byte when it is large (the release rule).
struct BytesBody {
  std::string bytes;
};

/// A request body read from a file on the file pool, never on the HTTP thread.
struct FileBody {
  std::string path;
};

/// A request body produced while the request runs: write through the BodyWriter.
/// With a length the request carries Content-Length, without it HTTP/1.1 chunked.
struct StreamBody {
  std::shared_ptr<BodyWriter> writer;  ///< make with BodyWriter::create()
  std::optional<std::uint64_t> length;
};

struct LentLease;

/// A request body the caller lends instead of giving: the library reads the bytes
/// where they are and never copies them whole (BytesBody is a copy the library owns).
/// They must stay valid and unchanged until `release` has run. It runs once, when
/// nothing needs them any more: neither this LentBody and its copies (a Request copied,
/// a C request handle) nor an exchange sending them. An exchange lets go after its last
/// byte went out when the body is over ClientOptions::memory.release_threshold (the
/// release rule: a redirect or an authentication retry cannot send it again then),
/// else when the exchange ends.
/// With ClientOptions::host_dispatch `release` runs in dispatch() like every other
/// callback (once the Client is gone: where the last hold ends); without it, on the
/// thread that ends the last hold, possibly the HTTP thread: it must not block.
/// A binding lends a script's buffer this way and lets go of it in `release`.
class SLUICE_API LentBody {
 public:
  LentBody(std::span<const std::byte> bytes, std::function<void()> release);
  std::span<const std::byte> bytes() const noexcept { return bytes_; }

 private:
  friend struct LentBodyAccess;
  std::span<const std::byte> bytes_;
  std::shared_ptr<LentLease> lease_;  // its destructor runs `release`
};

/// A request body sent as pieces one after another: bytes, and files read on the
/// file pool like FileBody (never loaded whole). Its length is the sum of theirs,
/// sent as Content-Length. multipart/form-data is built this way (sluice/multipart.hpp).
struct PartsBody {
  std::vector<std::variant<BytesBody, FileBody>> parts;
};

using RequestBody =
    std::variant<std::monostate, BytesBody, FileBody, StreamBody, PartsBody, LentBody>;

/// Who the request is from (curl's -u, --oauth2-bearer, --digest, --anyauth), sent as
/// an Authorization header unless Request::headers sets one. Like credentials in the
/// URL, it goes to the request's origin only: a redirect to another origin drops it,
/// as curl does without --location-trusted.
///
/// digest and any send the request without credentials first; on a 401 they answer
/// the server's challenge and send it once more (a second 401 is the response). A
/// body is sent twice then: bytes and file bodies can be, a StreamBody cannot (the
/// request fails saying so), nor a body larger than ClientOptions::memory.release_threshold
/// (freed once sent). With digest or any and no user name and password, the URL's
/// credentials or the netrc file's are used (ClientOptions::netrc).
struct Authentication {
  enum class Scheme {
    none,
    basic,   ///< RFC 7617: user and password, base64-encoded (readable on the wire without TLS)
    bearer,  ///< RFC 6750: an OAuth 2.0 access token
    /// RFC 7616 Digest (MD5, MD5-sess, SHA-256, SHA-256-sess, SHA-512-256; qop=auth;
    /// userhash; a name that is not ASCII goes as username*): the password never
    /// crosses the wire.
    digest,
    /// curl's --anyauth: the strongest scheme the 401 offers, Digest (SHA-512-256 >
    /// SHA-256 > MD5) over Basic.
    any,
    /// AWS Signature Version 4 (curl's --aws-sigv4): user is the access key id,
    /// password the secret access key, aws_scope the scope. Every hop is signed anew
    /// for its own host, path, query and time: the method, host, the request's own
    /// headers and the X-<Provider>-Date header are signed, and with service "s3"
    /// an x-<provider>-content-sha256 header too. A body in memory is hashed; a file
    /// or streamed body is signed as UNSIGNED-PAYLOAD (S3 accepts it, most other
    /// services do not). A session token goes as a header the request sets
    /// (X-Amz-Security-Token), which is then signed with the others.
    aws_sigv4,
  } scheme = Scheme::none;
  std::string user;      ///< basic, digest, any, aws_sigv4 (basic: no ':', RFC 7617)
  std::string password;  ///< basic, digest, any, aws_sigv4
  std::string token;     ///< bearer
  /// aws_sigv4: "provider1[:provider2[:region[:service]]]" as curl takes it
  /// ("aws:amz:us-east-1:s3"). provider2 defaults to provider1; service and region
  /// missing are taken from the host name's first two labels, as curl does
  /// (s3.us-west-2.amazonaws.com: service s3, region us-west-2).
  std::string aws_scope;

  static Authentication basic(std::string user, std::string password) {
    return {Scheme::basic, std::move(user), std::move(password), {}, {}};
  }
  static Authentication bearer(std::string token) {
    return {Scheme::bearer, {}, {}, std::move(token), {}};
  }
  static Authentication digest(std::string user, std::string password) {
    return {Scheme::digest, std::move(user), std::move(password), {}, {}};
  }
  static Authentication any(std::string user, std::string password) {
    return {Scheme::any, std::move(user), std::move(password), {}, {}};
  }
  static Authentication aws_sigv4(std::string access_key, std::string secret_key,
                                  std::string scope) {
    return {Scheme::aws_sigv4, std::move(access_key), std::move(secret_key), {}, std::move(scope)};
  }
};

/// Everything that defines one request. Plain data: build it on any thread, then
/// hand it to Client::send.
struct Request {
  std::string method = "GET";
  std::string url;
  Headers headers;
  RequestBody body;
  /// Sent as Authorization (see Authentication); none by default.
  Authentication auth;

  VersionPolicy version = VersionPolicy::automatic;
  /// Bytes of this response that may wait for its reader (see BodyAllowance).
  BodyAllowance allowance;
  /// A response body larger than this is an error (too_large); 0 = no limit.
  std::uint64_t max_body_size = 0;
  /// Response header block size limit.
  std::size_t max_header_bytes = 256 * 1024;
  Timeouts timeouts;
  RedirectPolicy redirects;
  DecodePolicy decode;

  /// Convenience: a GET request for a URL.
  static Request get(std::string url) {
    Request request;
    request.url = std::move(url);
    return request;
  }
};

/// Whether `method` is idempotent (RFC 9110 section 9.2.2: GET, HEAD, OPTIONS, TRACE,
/// PUT and DELETE): sending it twice has the effect of sending it once, so a request
/// may go again when the connection failed before its response came. Methods are
/// case-sensitive: "get" is not GET.
SLUICE_API bool is_idempotent_method(std::string_view method) noexcept;

}  // namespace sluice
