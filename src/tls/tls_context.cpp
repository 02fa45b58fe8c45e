// TlsContext: the OpenSSL client context shared by every TLS connection of a Client.
// Ownership: created on any thread, then used on the HTTP thread only (which also
// loads the system trust store, on the first connect that needs it).

#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tls/tls.hpp"
#include "tls/tls_client_cert.hpp"
#include "tls/tls_diagnostics.hpp"
#include "tls/tls_shared.hpp"
#include "tls/tls_transport.hpp"

namespace sluice {
namespace {

Error tls_error(std::string message) {
  Error error(ErrorCategory::tls, "TLS: " + std::move(message));
  ERR_clear_error();
  return error;
}

// curl's 77: a CA file that cannot be used has its own code, apart from a failed
// handshake.
Error ca_file_error(std::string message) {
  Error error(ErrorCode::tls_ca_file, "TLS: " + std::move(message));
  ERR_clear_error();
  return error;
}

Result<void> load_ca_file(SSL_CTX* ctx, const std::string& path) {
  // Checked by hand first: OpenSSL's own failure for a missing file is a generic
  // "system lib" that does not say the file is absent or unreadable.
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr)
    return ca_file_error("cannot read CA file " + path + ": " + std::strerror(errno));
  struct stat info {};
  const bool directory = fstat(fileno(file), &info) == 0 && S_ISDIR(info.st_mode);
  std::fclose(file);
  if (directory)
    return ca_file_error("cannot read CA file " + path + ": it is a directory (use --capath)");
  if (SSL_CTX_load_verify_locations(ctx, path.c_str(), nullptr) != 1) {
    return ca_file_error("cannot read CA file " + path + ": " +
                         openssl_error_text("no PEM certificates found") +
                         " (expected PEM certificates)");
  }
  return {};
}

// OpenSSL reads a CA directory lazily, by subject hash, at each verification: only
// its existence can be checked now.
Result<void> load_ca_path(SSL_CTX* ctx, const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    return tls_error("cannot read CA directory " + path + ": " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) return tls_error("CA directory " + path + " is not a directory");
  if (SSL_CTX_load_verify_dir(ctx, path.c_str()) != 1)
    return tls_error("cannot use CA directory " + path + ": " +
                     openssl_error_text("rejected by OpenSSL"));
  return {};
}

// Below TLS 1.2 nothing is offered: 1.0 and 1.1 are deprecated (RFC 8996), and
// TlsVersion has no name for them.
int openssl_version(TlsVersion version) {
  return version == TlsVersion::v1_2 ? TLS1_2_VERSION : TLS1_3_VERSION;
}

Result<void> set_versions_and_ciphers(SSL_CTX* ctx, const TlsOptions& options) {
  if (options.min_version > options.max_version)
    return Error(ErrorCategory::usage,
                 "TLS: the minimum version is above the maximum (--tlsv1.3 with --tls-max 1.2)");
  SSL_CTX_set_min_proto_version(ctx, openssl_version(options.min_version));
  SSL_CTX_set_max_proto_version(ctx, openssl_version(options.max_version));
  if (!options.tls12_ciphers.empty() &&
      SSL_CTX_set_cipher_list(ctx, options.tls12_ciphers.c_str()) != 1)
    return Error(ErrorCategory::usage,
                 "TLS: no usable cipher in --ciphers '" + options.tls12_ciphers + "'");
  if (!options.tls13_ciphers.empty() &&
      SSL_CTX_set_ciphersuites(ctx, options.tls13_ciphers.c_str()) != 1)
    return Error(ErrorCategory::usage, "TLS: no usable TLS 1.3 cipher suite in --tls13-ciphers '" +
                                           options.tls13_ciphers + "'");
  ERR_clear_error();
  return {};
}

Result<void> set_trust(SSL_CTX* ctx, const TlsOptions& options) {
  if (!options.ca_file.empty()) {
    if (auto loaded = load_ca_file(ctx, options.ca_file); !loaded) return loaded;
  }
  if (!options.ca_path.empty()) {
    if (auto loaded = load_ca_path(ctx, options.ca_path); !loaded) return loaded;
  }
  return {};
}

// Keeps the tickets and sessions of full handshakes for the origin's next connection.
// Called by OpenSSL on the HTTP thread, during a handshake or (TLS 1.3: tickets come
// after it) a read; returning 1 takes the reference.
int on_new_session(SSL* ssl, SSL_SESSION* session) noexcept {
  try {
    return tls_transport_keep_session(ssl, session) ? 1 : 0;
  } catch (...) {
    return 0;  // out of memory: the session is simply not kept
  }
}

void on_key_log_line(const SSL* ssl, const char* line) noexcept {
  tls_transport_log_key(ssl, line);
}

}  // namespace

TlsContext::TlsContext(SSL_CTX* ctx, bool insecure, std::shared_ptr<TlsShared> shared)
    : ctx_(ctx), insecure_(insecure), shared_(std::move(shared)) {}

Result<std::shared_ptr<TlsContext>> TlsContext::create(const TlsOptions& options) {
  ERR_clear_error();
  auto shared = std::make_shared<TlsShared>(options.session_cache);
  auto pins = parse_public_key_pins(options.pinned_public_key);
  if (!pins) return std::move(pins).error();
  shared->pins = std::move(*pins);
  if (!options.key_log_file.empty()) {
    auto log = TlsKeyLog::open(options.key_log_file);
    if (!log) return std::move(log).error();
    shared->key_log = std::move(*log);
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr)
    return tls_error("cannot create an OpenSSL context: " + openssl_error_text("out of memory"));
  std::shared_ptr<TlsContext> context(new TlsContext(ctx, options.insecure, shared));
  if (auto set = set_versions_and_ciphers(ctx, options); !set) return std::move(set).error();
  // Partial writes let a large body go out as the socket takes it; a moving
  // buffer lets the caller's ByteQueue grow or compact between retries.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // No SSL_OP_IGNORE_UNEXPECTED_EOF: it makes a TCP close look like close_notify,
  // and a close-delimited HTTP/1.1 body needs to tell the two apart (truncation
  // attack). TlsTransport reads either as eof and remembers which it was.
  // Each connection sets its own verify mode and callback (tls_transport.cpp).
  SSL_CTX_set_verify(ctx, options.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  // Client-side caching without OpenSSL's internal store: sessions are kept per
  // origin (host:port) by TlsSessionCache, which OpenSSL's store cannot key.
  SSL_CTX_set_session_cache_mode(ctx, options.session_cache
                                          ? SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE
                                          : SSL_SESS_CACHE_OFF);
  if (options.session_cache) SSL_CTX_sess_set_new_cb(ctx, on_new_session);
  if (!options.session_cache) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  if (shared->key_log.enabled()) SSL_CTX_set_keylog_callback(ctx, on_key_log_line);
  if (!options.client_cert.empty()) {
    auto used =
        use_client_certificate(ctx, options.client_cert, options.client_key, options.key_password);
    if (!used) return std::move(used).error();
  } else if (!options.client_key.empty()) {
    return Error(ErrorCategory::usage, "TLS: a private key (--key " + options.client_key +
                                           ") needs its certificate (--cert FILE)");
  }
  // A CA file or directory the caller named is read now, so a wrong path fails
  // Client::create. The system store is read at the first connection that verifies
  // against it: it is some 140 certificates parsed one by one (about 25 ms of CPU and
  // 200,000 allocations here), which a Client that only speaks plain HTTP, or -k,
  // never needs.
  if (auto trusted = set_trust(ctx, options); !trusted) return std::move(trusted).error();
  context->system_store_pending_ =
      options.ca_file.empty() && options.ca_path.empty() && !options.insecure;
  ERR_clear_error();
  return context;
}

Result<void> TlsContext::load_system_store() {
  if (!system_store_pending_) return {};
  if (SSL_CTX_set_default_verify_paths(ctx_) != 1) {
    return tls_error("cannot load the system trust store: " +
                     openssl_error_text("unknown OpenSSL error") + "; use --cacert FILE");
  }
  ERR_clear_error();
  system_store_pending_ = false;
  return {};
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsHandshakeCounts TlsContext::handshakes() const noexcept { return shared_->handshakes; }

namespace {

// The session cache's key: the name (SNI, and what the certificate was checked
// against) and the target's port: `port` when the caller knows it (a tunnel's socket
// talks to the proxy), else the socket's peer's.
std::string session_key(int fd, const std::string& host, unsigned port) {
  sockaddr_storage peer{};
  socklen_t size = sizeof peer;
  if (port == 0 && ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) == 0) {
    if (peer.ss_family == AF_INET) port = ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port);
    if (peer.ss_family == AF_INET6) port = ntohs(reinterpret_cast<sockaddr_in6*>(&peer)->sin6_port);
  }
  return host + ":" + std::to_string(port);
}

}  // namespace

Result<std::unique_ptr<Transport>> TlsContext::connect(int fd, const std::string& host,
                                                       const std::vector<std::string>& alpn,
                                                       std::uint16_t port) {
  if (auto loaded = load_system_store(); !loaded) {
    ::close(fd);  // the fd is ours to close whatever happens
    return std::move(loaded).error();
  }
  TlsTransportSettings settings{host, session_key(fd, host, port), alpn, insecure_, shared_};
  return make_tls_transport(ctx_, fd, std::move(settings));
}

Result<std::unique_ptr<Transport>> TlsContext::connect_over(std::unique_ptr<Transport> inner,
                                                            const std::string& host,
                                                            std::uint16_t port,
                                                            const std::vector<std::string>& alpn) {
  if (auto loaded = load_system_store(); !loaded) return std::move(loaded).error();
  TlsTransportSettings settings{host, host + ":" + std::to_string(port), alpn, insecure_, shared_};
  return make_tls_transport_over(ctx_, std::move(inner), std::move(settings));
}

}  // namespace sluice
