#pragma once
// HTTP Digest access authentication (RFC 7616): reading a Digest challenge and
// computing the Authorization value that answers it. Pure: the client nonce and the
// nonce count are inputs, so the RFC's examples are tests.
// Ownership: values; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "client/auth_challenge.hpp"
#include "io/crypto_hash.hpp"
#include "sluice/error.hpp"

namespace sluice {

/// What a Digest challenge asks for.
struct DigestChallenge {
  std::string realm;
  std::string nonce;
  std::optional<std::string> opaque;
  HashAlgorithm algorithm = HashAlgorithm::md5;
  bool session = false;   ///< "-sess": A1 includes the nonces
  bool qop_auth = false;  ///< qop offers "auth" (RFC 2069 style when no qop at all)
  bool qop_offered = false;
  bool stale = false;     ///< the previous nonce expired; the credentials were fine
  bool userhash = false;  ///< send H(user:realm) instead of the user name
  std::string algorithm_name;  ///< as sent back in the response ("SHA-256-sess")

  /// nullopt when `challenge` is not Digest, lacks realm or nonce, names an
  /// algorithm sluice does not compute, or offers only qop=auth-int.
  static std::optional<DigestChallenge> from(const AuthChallenge& challenge);
  /// Higher is stronger: SHA-512-256 > SHA-256 > MD5 (curl's and the RFC's order).
  int strength() const;
};

struct DigestInput {
  std::string user;
  std::string password;
  std::string method;
  std::string uri;     ///< the request-target, as on the request line
  std::string cnonce;  ///< client nonce (random; see new_cnonce())
  std::uint32_t nonce_count = 1;
};

/// The Authorization header value ("Digest username=..., response=..."). Fails
/// (usage) when a user name or password would have to carry a byte the header
/// cannot (a control character, or a '"' without userhash).
Result<std::string> digest_authorization(const DigestChallenge& challenge, const DigestInput& input);

/// A fresh client nonce: 16 random bytes in hex; nullopt without entropy.
std::optional<std::string> new_cnonce();

}  // namespace sluice
