// TlsTransport: a client TLS session (OpenSSL) over a connected non-blocking socket.
// Ownership: HTTP thread only; owns its SSL and its fd.

#include "tls/tls_transport.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <new>
#include <optional>
#include <string>

#include "net/socket_address.hpp"
#include "net/socket_error.hpp"
#include "tls/tls_diagnostics.hpp"
#include "tls/tls_peer_info.hpp"
#include "tls/tls_shared.hpp"
#include "tls/tls_socket_bio.hpp"
#include "tls/tls_transport_bio.hpp"

namespace sluice {
namespace {

// "[::1]" as written in a URL; the brackets are not part of the address.
std::string bare_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

// ALPN's wire format: each name prefixed by its length.
Result<std::string> alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& name : protocols) {
    if (name.empty() || name.size() > 255)
      return Error(ErrorCategory::usage, "TLS: invalid ALPN protocol name '" + name + "'");
    wire += static_cast<char>(name.size());
    wire += name;
  }
  return wire;
}

class TlsTransport final : public Transport {
 public:
  /// Over a socket (`inner` null, the transport owns `fd`), or over another
  /// transport (TLS inside an https:// proxy's TLS; `fd` is the inner one's).
  TlsTransport(SSL* ssl, int fd, TlsTransportSettings settings,
               std::unique_ptr<Transport> inner = nullptr)
      : ssl_(ssl),
        fd_(fd),
        inner_(std::move(inner)),
        host_(bare_host(settings.host)),
        cache_key_(std::move(settings.cache_key)),
        insecure_(settings.insecure),
        shared_(std::move(settings.shared)) {}
  ~TlsTransport() override;
  TlsTransport(const TlsTransport&) = delete;
  TlsTransport& operator=(const TlsTransport&) = delete;

  Result<void> configure(const std::string& alpn_wire);

  int fd() const noexcept override { return fd_; }
  Result<IoStatus> handshake() override;
  Result<IoOutcome> read(std::span<std::byte> into) override;
  Result<IoOutcome> write(std::span<const std::byte> from) override;
  std::string alpn() const override;
  bool is_tls() const noexcept override { return established_; }
  bool has_buffered_input() const noexcept override {
    return !held_plaintext_.empty() || SSL_has_pending(ssl_) == 1 ||
           (inner_ && inner_->has_buffered_input());
  }
  std::size_t decrypted_input() const noexcept override {
    const int pending = SSL_pending(ssl_);
    return held_plaintext_.size() + (pending > 0 ? static_cast<std::size_t>(pending) : 0) +
           (inner_ ? inner_->decrypted_input() : 0);
  }
  bool ended_without_close_notify() const noexcept override { return unauthenticated_eof_; }
  bool resumed_session() const noexcept override { return resumed_; }
  bool offered_session() const noexcept override { return offered_; }
  long verify_result() const noexcept override { return SSL_get_verify_result(ssl_); }
  std::optional<TlsInfo> tls_info() const override;
  std::size_t release_buffers() noexcept override;

  static int verify_callback(int preverify_ok, X509_STORE_CTX* store) noexcept;
  /// The new-session callback's work: the origin's next connection offers it.
  void keep_session(SSL_SESSION* session) { shared_->sessions.store(cache_key_, session); }
  const TlsKeyLog& key_log() const noexcept { return shared_->key_log; }

 private:
  Error handshake_error(int ssl_error, int saved_errno);
  Result<IoOutcome> io_failure(int rv, bool reading);
  /// After a write met the peer's close: the alert the peer sent before it, if any.
  std::optional<Error> peer_alert();
  Result<void> check_pin() const;
  Result<IoStatus> established();
  /// Moves the decrypted rest of a record read in part out of OpenSSL into
  /// held_plaintext_; true when OpenSSL holds no input any more.
  bool take_pending_plaintext() noexcept;
  /// Over another transport: the error it failed the BIO with, if it did.
  std::optional<Error> inner_error() const;

  SSL* ssl_;
  int fd_;
  std::unique_ptr<Transport> inner_;  // the transport carrying this one, if any (owns fd_)
  std::string host_;                  // as given, without URL brackets: for SNI, checks, messages
  std::string cache_key_;
  bool insecure_;
  std::shared_ptr<TlsShared> shared_;
  bool resumed_ = false;
  bool offered_ = false;  // a cached session went into the ClientHello
  bool established_ = false;
  bool fatal_ = false;  // OpenSSL forbids SSL_shutdown after a fatal error
  std::optional<TlsVerifyFailure> verify_failure_;  // the first rejection only
  bool unauthenticated_eof_ = false;                // read() met a TCP close without close_notify
  bool buffers_released_ = false;  // release_buffers() freed them; no read or write since
  // Decrypted bytes taken out of OpenSSL so its buffers could be freed (at most a
  // record's); read() hands them out before anything else.
  std::string held_plaintext_;
};

TlsTransport::~TlsTransport() {
  // Best effort close_notify, so a server can tell our close from a truncation.
  // Never waits: the socket is non-blocking and its owner is leaving.
  if (established_ && !fatal_) {
    ERR_clear_error();
    SSL_shutdown(ssl_);
  }
  ERR_clear_error();
  SSL_free(ssl_);
  if (!inner_) close(fd_);  // else the inner transport closes it
}

std::optional<Error> TlsTransport::inner_error() const {
  if (!inner_) return std::nullopt;
  return transport_bio_error(SSL_get_rbio(ssl_));
}

Result<void> TlsTransport::configure(const std::string& alpn_wire) {
  BIO* bio = inner_ ? make_transport_bio(*inner_) : make_socket_bio(fd_);
  if (bio == nullptr) return Error(ErrorCategory::tls, "TLS: out of memory creating a session");
  SSL_set_bio(ssl_, bio, bio);  // one reference, consumed by the SSL
  SSL_set_app_data(ssl_, this);
  const bool ip = is_ip_literal(host_);
  if (!ip && SSL_set_tlsext_host_name(ssl_, host_.c_str()) != 1)
    return Error(ErrorCategory::usage, "TLS: invalid host name for SNI '" + host_ + "'");
  if (!insecure_) {
    SSL_set_verify(ssl_, SSL_VERIFY_PEER, verify_callback);
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host_.c_str())
                       : X509_VERIFY_PARAM_set1_host(param, host_.c_str(), host_.size());
    if (set != 1)
      return Error(ErrorCategory::usage, "TLS: cannot verify against host '" + host_ + "'");
  } else {
    SSL_set_verify(ssl_, SSL_VERIFY_NONE, nullptr);
  }
  // SSL_set_alpn_protos returns 0 on success, unlike nearly all of OpenSSL.
  if (!alpn_wire.empty() &&
      SSL_set_alpn_protos(ssl_, reinterpret_cast<const unsigned char*>(alpn_wire.data()),
                          static_cast<unsigned>(alpn_wire.size())) != 0)
    return Error(ErrorCategory::tls, "TLS: cannot offer ALPN protocols");
  // Offering a session the server no longer knows costs nothing: it answers with a
  // full handshake, and that one's session replaces it.
  // A copy, not the cached object: OpenSSL resumes with the very session it was
  // given, and marks it not resumable when that connection ends without
  // close_notify (a server that just closes, a cancelled transfer), which would
  // spoil the origin's ticket for every connection after it.
  if (SSL_SESSION* cached = shared_->sessions.find(cache_key_); cached != nullptr) {
    if (SSL_SESSION* copy = SSL_SESSION_dup(cached); copy != nullptr) {
      offered_ = SSL_set_session(ssl_, copy) == 1;
      SSL_SESSION_free(copy);  // the SSL holds its own reference
    }
    ERR_clear_error();
  }
  SSL_set_connect_state(ssl_);
  return {};
}

int TlsTransport::verify_callback(int preverify_ok, X509_STORE_CTX* store) noexcept {
  if (preverify_ok == 1) return 1;
  try {
    auto* ssl =
        static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
    auto* self = ssl != nullptr ? static_cast<TlsTransport*>(SSL_get_app_data(ssl)) : nullptr;
    if (self != nullptr && !self->verify_failure_)
      self->verify_failure_ = capture_verify_failure(store);
  } catch (...) {
    // Out of memory while describing: the rejection itself still stands.
  }
  return 0;
}

// CPU time of the calling thread: what each handshake step costs, for ClientStats
// (a clock_gettime per step; a handshake takes a few steps).
std::uint64_t thread_cpu_ns() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(now.tv_nsec);
}

Result<IoStatus> TlsTransport::handshake() {
  if (established_) return IoStatus::done;
  ERR_clear_error();
  const std::uint64_t cpu_before = thread_cpu_ns();
  const int rv = SSL_do_handshake(ssl_);
  const int saved_errno = errno;
  shared_->handshakes.cpu_ns += thread_cpu_ns() - cpu_before;
  if (rv == 1) return established();
  const int ssl_error = SSL_get_error(ssl_, rv);
  if (ssl_error == SSL_ERROR_WANT_READ) return IoStatus::want_read;
  if (ssl_error == SSL_ERROR_WANT_WRITE) return IoStatus::want_write;
  fatal_ = true;
  Error error = handshake_error(ssl_error, saved_errno);
  ERR_clear_error();
  return error;
}

Result<IoStatus> TlsTransport::established() {
  // A pin is checked on resumed sessions too: the session keeps the peer's certificate.
  if (auto pinned = check_pin(); !pinned) {
    fatal_ = true;
    shared_->sessions.forget(cache_key_);
    return std::move(pinned).error();
  }
  established_ = true;
  resumed_ = SSL_session_reused(ssl_) == 1;
  ++(resumed_ ? shared_->handshakes.resumed : shared_->handshakes.full);
  return IoStatus::done;
}

std::optional<TlsInfo> TlsTransport::tls_info() const {
  if (!established_) return std::nullopt;
  TlsInfo info;
  info.version = SSL_get_version(ssl_);
  if (const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_)) {
    info.cipher = SSL_CIPHER_get_name(cipher);
  }
  info.alpn = alpn();
  info.resumed = resumed_;
  // A resumed session keeps the certificate of the handshake that made it.
  info.certificate = describe_certificate(SSL_get0_peer_certificate(ssl_));
  if (info.certificate) info.matched_name = matched_certificate_name(*info.certificate, host_);
  return info;
}

Result<void> TlsTransport::check_pin() const {
  if (shared_->pins.empty()) return {};
  X509* cert = SSL_get0_peer_certificate(ssl_);
  unsigned char* der = nullptr;
  const int length = cert != nullptr ? i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der) : -1;
  if (length <= 0)
    return Error(ErrorCode::tls_certificate,
                 "TLS: " + host_ + " sent no public key to check against the pinned one");
  const std::string pin = public_key_pin(std::span(der, static_cast<std::size_t>(length)));
  OPENSSL_free(der);
  return check_public_key_pin(shared_->pins, pin, host_);
}

Error TlsTransport::handshake_error(int ssl_error, int saved_errno) {
  if (verify_failure_) return describe_verify_failure(*verify_failure_, host_);
  const long verify = SSL_get_verify_result(ssl_);
  if (!insecure_ && verify != X509_V_OK) {
    TlsVerifyFailure failure;
    failure.code = verify;
    return describe_verify_failure(failure, host_);
  }
  if (auto inner = inner_error()) {
    return Error(ErrorCategory::tls,
                 "TLS: handshake with " + host_ + " failed: " + inner->message());
  }
  return Error(
      ErrorCategory::tls,
      "TLS: handshake with " + host_ + " failed: " +
          handshake_failure_reason(ssl_error, saved_errno, SSL_get_certificate(ssl_) != nullptr));
}

Result<IoOutcome> TlsTransport::read(std::span<std::byte> into) {
  if (into.empty()) return IoOutcome{};
  // OpenSSL has failed the session at an unexpected EOF; reading again stays eof.
  if (!held_plaintext_.empty()) {
    const std::size_t n = std::min(into.size(), held_plaintext_.size());
    std::memcpy(into.data(), held_plaintext_.data(), n);
    held_plaintext_.erase(0, n);
    if (held_plaintext_.empty()) std::string().swap(held_plaintext_);
    return IoOutcome{n, IoStatus::done};
  }
  if (unauthenticated_eof_) return IoOutcome{0, IoStatus::eof};
  ERR_clear_error();
  buffers_released_ = false;  // OpenSSL makes its read buffer again as needed
  std::size_t got = 0;
  const int rv = SSL_read_ex(ssl_, into.data(), into.size(), &got);
  if (rv == 1) return IoOutcome{got, IoStatus::done};
  return io_failure(rv, true);
}

Result<IoOutcome> TlsTransport::write(std::span<const std::byte> from) {
  if (from.empty()) return IoOutcome{};
  ERR_clear_error();
  buffers_released_ = false;
  std::size_t sent = 0;
  const int rv = SSL_write_ex(ssl_, from.data(), from.size(), &sent);
  if (rv == 1) return IoOutcome{sent, IoStatus::done};
  return io_failure(rv, false);
}

// OpenSSL keeps a read and a write buffer per connection, each a whole record with
// its overhead (about 17 KiB), for as long as the connection lives. A paused or idle
// connection needs neither: SSL_free_buffers frees them unless a record is partly
// read or written, and OpenSSL allocates them again on the next read or write. That
// is what lets a held TLS body cost about as much as a plain one. (OpenSSL does not
// report the sizes; these are the ones its record layer allocates.)
constexpr std::size_t kRecordBufferBytes =
    SSL3_RT_MAX_PLAIN_LENGTH + SSL3_RT_MAX_ENCRYPTED_OVERHEAD + SSL3_RT_HEADER_LENGTH;

std::size_t TlsTransport::release_buffers() noexcept {
  const std::size_t inner = inner_ ? inner_->release_buffers() : 0;
  if (!established_ || fatal_ || buffers_released_ || !take_pending_plaintext() ||
      SSL_free_buffers(ssl_) != 1) {
    return inner;
  }
  buffers_released_ = true;
  return inner + 2 * kRecordBufferBytes - held_plaintext_.size();
}

// A reader paused above its mark stops reading mid-record as often as not: the
// record's decrypted rest (SSL_pending) keeps the read buffer in use. Taking that
// rest out, in a copy of its exact size, costs a few bytes to free the 34 KiB.
bool TlsTransport::take_pending_plaintext() noexcept {
  const int pending = SSL_pending(ssl_);
  if (pending > 0) {
    try {
      const std::size_t before = held_plaintext_.size();
      held_plaintext_.resize(before + static_cast<std::size_t>(pending));
      std::size_t got = 0;
      ERR_clear_error();
      if (SSL_read_ex(ssl_, held_plaintext_.data() + before, static_cast<std::size_t>(pending),
                      &got) != 1) {
        got = 0;
      }
      held_plaintext_.resize(before + got);
    } catch (const std::bad_alloc&) {
      return false;
    }
  }
  return SSL_has_pending(ssl_) == 0;
}

Result<IoOutcome> TlsTransport::io_failure(int rv, bool reading) {
  const int saved_errno = errno;
  const int ssl_error = SSL_get_error(ssl_, rv);
  if (ssl_error == SSL_ERROR_WANT_READ) return IoOutcome{0, IoStatus::want_read};
  if (ssl_error == SSL_ERROR_WANT_WRITE) return IoOutcome{0, IoStatus::want_write};
  if (auto inner = inner_error()) {
    fatal_ = true;
    ERR_clear_error();
    return std::move(*inner);
  }
  const unsigned long code = ERR_peek_last_error();
  // A close without close_notify reads as eof too: many servers do it, and HTTP
  // framing (Content-Length, chunked) tells a truncated body from a complete one.
  // Only a close-delimited body cannot, so the kind of close is kept for the caller.
  const bool unauthenticated = (ssl_error == SSL_ERROR_SYSCALL && code == 0 && saved_errno == 0) ||
                               (ssl_error == SSL_ERROR_SSL && ERR_GET_LIB(code) == ERR_LIB_SSL &&
                                ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING);
  const bool closed = ssl_error == SSL_ERROR_ZERO_RETURN || unauthenticated;
  if (closed && reading) {
    if (unauthenticated) {
      unauthenticated_eof_ = true;
      fatal_ = true;  // OpenSSL has marked the session failed
    }
    ERR_clear_error();
    return IoOutcome{0, IoStatus::eof};
  }
  if (!reading && (closed || (ssl_error == SSL_ERROR_SYSCALL && code == 0))) {
    // The peer may have said why before it closed: a TLS 1.3 server refuses a
    // client certificate with an alert after the handshake, and a client that
    // writes first (HTTP/2's preface) meets the close before reading the alert.
    if (auto alert = peer_alert()) {
      fatal_ = true;
      return *std::move(alert);
    }
  }
  if (ssl_error != SSL_ERROR_ZERO_RETURN) fatal_ = true;
  Error error =
      closed ? Error(reading ? ErrorCode::receive_failed : ErrorCode::send_failed,
                     "connection closed by peer")
      : ssl_error == SSL_ERROR_SYSCALL && code == 0
          ? socket_io_error(saved_errno, reading)
          : Error(ErrorCategory::tls,
                  "TLS: connection with " + host_ +
                      " failed: " + openssl_error_text("unknown OpenSSL error") +
                      client_certificate_hint(code, SSL_get_certificate(ssl_) != nullptr));
  ERR_clear_error();
  return error;
}

std::optional<Error> TlsTransport::peer_alert() {
  ERR_clear_error();
  char byte = 0;
  std::size_t got = 0;
  const int rv = SSL_peek_ex(ssl_, &byte, 1, &got);
  const unsigned long code = ERR_peek_last_error();
  std::optional<Error> alert;
  // OpenSSL's reasons for received alerts are the alert's number plus
  // SSL_AD_REASON_OFFSET.
  if (rv != 1 && SSL_get_error(ssl_, rv) == SSL_ERROR_SSL && ERR_GET_LIB(code) == ERR_LIB_SSL &&
      ERR_GET_REASON(code) >= SSL_AD_REASON_OFFSET) {
    alert = Error(ErrorCategory::tls,
                  "TLS: connection with " + host_ +
                      " failed: " + openssl_error_text("alert from the server") +
                      client_certificate_hint(code, SSL_get_certificate(ssl_) != nullptr));
  }
  ERR_clear_error();
  return alert;
}

std::string TlsTransport::alpn() const {
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_, &name, &length);
  if (name == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(name), length);
}

}  // namespace

Result<std::unique_ptr<Transport>> make_tls_transport(SSL_CTX* ctx, int fd,
                                                      TlsTransportSettings settings) {
  ERR_clear_error();
  auto wire = alpn_wire(settings.alpn);
  SSL* ssl = wire ? SSL_new(ctx) : nullptr;
  if (ssl == nullptr) {
    close(fd);
    if (!wire) return std::move(wire).error();
    Error error(ErrorCategory::tls,
                "TLS: cannot create a session: " + openssl_error_text("out of memory"));
    ERR_clear_error();
    return error;
  }
  // From here the transport owns both the SSL and the fd.
  auto transport = std::make_unique<TlsTransport>(ssl, fd, std::move(settings));
  if (auto configured = transport->configure(*wire); !configured) {
    ERR_clear_error();
    return std::move(configured).error();
  }
  return std::unique_ptr<Transport>(std::move(transport));
}

Result<std::unique_ptr<Transport>> make_tls_transport_over(SSL_CTX* ctx,
                                                           std::unique_ptr<Transport> inner,
                                                           TlsTransportSettings settings) {
  ERR_clear_error();
  auto wire = alpn_wire(settings.alpn);
  if (!wire) return std::move(wire).error();
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) {
    Error error(ErrorCategory::tls,
                "TLS: cannot create a session: " + openssl_error_text("out of memory"));
    ERR_clear_error();
    return error;
  }
  const int fd = inner->fd();
  auto transport = std::make_unique<TlsTransport>(ssl, fd, std::move(settings), std::move(inner));
  if (auto configured = transport->configure(*wire); !configured) {
    ERR_clear_error();
    return std::move(configured).error();
  }
  return std::unique_ptr<Transport>(std::move(transport));
}

bool tls_transport_keep_session(SSL* ssl, SSL_SESSION* session) {
  auto* transport = static_cast<TlsTransport*>(SSL_get_app_data(ssl));
  if (transport == nullptr) return false;
  transport->keep_session(session);
  return true;
}

void tls_transport_log_key(const SSL* ssl, const char* line) noexcept {
  const auto* transport = static_cast<const TlsTransport*>(SSL_get_app_data(ssl));
  if (transport != nullptr && line != nullptr) transport->key_log().append(line);
}

}  // namespace sluice
