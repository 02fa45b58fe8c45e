#pragma once
// A client certificate for mutual TLS (curl's --cert, --key, --pass), loaded into an
// OpenSSL context when the Client is made, so a wrong path or passphrase fails
// Client::create with a message naming the file rather than the first handshake.
// Ownership: free function; called on the thread that creates the Client.

#include <string>

#include "sluice/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace sluice {

/// Loads the PEM certificate chain in `cert_file` and the PEM private key in
/// `key_file` (empty: the key is in `cert_file` too), decrypting it with `password`
/// when it is encrypted. Never prompts on a terminal.
Result<void> use_client_certificate(SSL_CTX* ctx, const std::string& cert_file,
                                    const std::string& key_file, const std::string& password);

}  // namespace sluice
