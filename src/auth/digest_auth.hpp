#pragma once
// HTTP Digest access authentication (RFC 7616): reading a Digest challenge and
// computing the Authorization value that answers it. Pure: the client nonce and the
// nonce count are inputs, so the RFC's examples are tests.
// Ownership: values; any thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/auth_challenge.hpp"
#include "sluice/error.hpp"
#include "tls/crypto_hash.hpp"

namespace sluice {

/// What a Digest challenge asks for.
struct DigestChallenge {
  std::string realm;
  std::string nonce;
  std::optional<std::string> opaque;
  HashAlgorithm algorithm = HashAlgorithm::md5;
  bool session = false;       ///< "-sess": A1 includes the nonces
  bool qop_auth = false;      ///< qop offers "auth" (RFC 2069 style when no qop at all)
  bool qop_auth_int = false;  ///< qop offers "auth-int": the body is hashed too
  bool qop_offered = false;
  bool stale = false;          ///< the previous nonce expired; the credentials were fine
  bool userhash = false;       ///< send H(user:realm) instead of the user name
  std::string algorithm_name;  ///< as sent back in the response ("SHA-256-sess")

  /// nullopt when `challenge` is not Digest, lacks realm or nonce, names an
  /// algorithm sluice does not compute, or offers neither qop=auth nor auth-int.
  static std::optional<DigestChallenge> from(const AuthChallenge& challenge);
  /// Whether answering needs the request body: qop=auth-int is the only one offered
  /// ("auth" is preferred whenever offered, as curl does).
  bool needs_body() const noexcept { return qop_offered && !qop_auth; }
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
  /// The request body's bytes ("" for none), when known: qop=auth-int hashes them
  /// (RFC 7616 section 3.4.3). nullopt: a file or stream sluice cannot hash in advance.
  std::optional<std::string_view> entity_body;
};

/// The Authorization header value ("Digest username=..., response=..."). Fails
/// (usage) when a user name or password would have to carry a byte the header
/// cannot (a control character, or a '"' without userhash), or when only auth-int is
/// offered and the body is not known.
Result<std::string> digest_authorization(const DigestChallenge& challenge,
                                         const DigestInput& input);

/// A fresh client nonce: 16 random bytes in hex; nullopt without entropy.
std::optional<std::string> new_cnonce();

}  // namespace sluice
