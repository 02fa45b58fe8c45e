#pragma once
// Message digests and random bytes for the layers above that may not include a
// crypto library themselves (HTTP Digest and AWS SigV4 authentication in src/auth). src/tls owns
// OpenSSL, so the wrapper lives here.
// Ownership: free functions; any thread (OpenSSL's EVP and RAND are thread-safe).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sluice {

enum class HashAlgorithm { md5, sha256, sha512_256 };

/// The digest of `bytes` as lowercase hex (32 digits for MD5, 64 for the others).
/// Empty only when the crypto library cannot compute it (a FIPS build without MD5).
std::string hex_digest(HashAlgorithm algorithm, std::string_view bytes);

/// HMAC-SHA256 of `data` under `key` (RFC 2104), as 32 raw bytes; empty only when the
/// crypto library cannot compute it. AWS Signature Version 4 chains these.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// `count` bytes from the system's CSPRNG; nullopt when it has no entropy to give.
std::optional<std::string> random_bytes(std::size_t count);

}  // namespace sluice
