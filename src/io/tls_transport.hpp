#pragma once
// The client TLS transport behind TlsContext::connect (kept out of tls.hpp so the
// OpenSSL session type stays private to src/io/tls_*.cpp).

#include <memory>
#include <string>
#include <vector>

#include "io/transport.hpp"
#include "sluice/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace sluice {

/// Takes ownership of `fd` in every case: on error it is closed.
Result<std::unique_ptr<Transport>> make_tls_transport(SSL_CTX* ctx, int fd,
                                                      const std::string& host,
                                                      const std::vector<std::string>& alpn,
                                                      bool insecure);

}  // namespace sluice
