#pragma once
// The client TLS transport behind TlsContext::connect (kept out of tls.hpp so the
// OpenSSL session type stays private to src/tls/tls_*.cpp).

#include <memory>
#include <string>
#include <vector>

#include "net/transport.hpp"
#include "sluice/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct ssl_session_st SSL_SESSION;

namespace sluice {

struct TlsShared;

/// What one connection needs besides the SSL_CTX.
struct TlsTransportSettings {
  std::string host;       ///< SNI and verification; URL brackets allowed
  std::string cache_key;  ///< the session cache's key for this origin
  std::vector<std::string> alpn;
  bool insecure = false;
  std::shared_ptr<TlsShared> shared;
};

/// Takes ownership of `fd` in every case: on error it is closed.
Result<std::unique_ptr<Transport>> make_tls_transport(SSL_CTX* ctx, int fd,
                                                      TlsTransportSettings settings);

/// The same inside `inner` (TLS through an https:// proxy's TLS session), which the
/// new transport owns; dropped with it on error.
Result<std::unique_ptr<Transport>> make_tls_transport_over(SSL_CTX* ctx,
                                                           std::unique_ptr<Transport> inner,
                                                           TlsTransportSettings settings);

/// For the SSL_CTX's new-session callback: keeps `session` for the origin of the
/// transport that owns `ssl`. True when it took the reference.
bool tls_transport_keep_session(SSL* ssl, SSL_SESSION* session);
/// For the SSL_CTX's key log callback: appends `line` to the context's key log.
void tls_transport_log_key(const SSL* ssl, const char* line) noexcept;

}  // namespace sluice
