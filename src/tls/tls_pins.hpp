#pragma once
// Public key pinning (curl's --pinnedpubkey): the server's certificate must carry one
// of the listed public keys, named by the SHA-256 of its DER SubjectPublicKeyInfo in
// base64 ("sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="). Shared by TCP TLS
// (OpenSSL) and QUIC (GnuTLS), which both hand over the DER bytes.
// Ownership: plain values and free functions; any thread.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sluice/error.hpp"

namespace sluice {

struct PublicKeyPins {
  std::vector<std::string> sha256;  ///< base64 digests; empty: no pinning
  bool empty() const noexcept { return sha256.empty(); }
};

/// "sha256//A;sha256//B", or the path of a PEM or DER public key file (its pin is
/// computed here). Errors name the bad entry or the file.
Result<PublicKeyPins> parse_public_key_pins(const std::string& spec);

/// The pin of a DER SubjectPublicKeyInfo: base64 of its SHA-256.
std::string public_key_pin(std::span<const unsigned char> spki_der);

/// OK when `actual` (a base64 pin) is among `pins`; otherwise an error (category
/// tls, code tls_certificate) naming the host, the server's pin and the expected ones.
Result<void> check_public_key_pin(const PublicKeyPins& pins, const std::string& actual,
                                  const std::string& host);

}  // namespace sluice
