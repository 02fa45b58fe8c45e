#pragma once
// Answering a 401 (RFC 9110 section 11.6.1) for Authentication::digest and ::any:
// the request goes first without credentials, the server's challenges say how to
// authenticate, and the request goes once more with an Authorization computed for
// them. A second 401 is the response (as curl returns it), except once when the
// server says the nonce was stale (RFC 7616 section 3.3): the credentials were
// right, so the request goes again with the new nonce.
// Ownership: a member of its Transfer; HTTP thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "auth/digest_auth.hpp"
#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/request.hpp"

namespace sluice {

class AuthRetry {
 public:
  explicit AuthRetry(Authentication auth) : auth_(std::move(auth)) {}

  /// Whether a 401 may be answered at all (digest or any, with credentials).
  bool active() const;

  /// On a 401 with `headers`: the Authorization value to send the request again
  /// with, nullopt when the 401 is the response (nothing offered that the request
  /// allows, or the credentials were tried already), or an error (a credential the
  /// header cannot carry, no entropy for the client nonce, a body auth-int cannot
  /// hash). `entity_body`: the request body when in memory ("" for none).
  std::optional<Result<std::string>> answer(const Headers& headers, std::string_view method,
                                            std::string_view target,
                                            std::optional<std::string_view> entity_body);

  /// A redirect: the next URL may challenge anew. `other_origin` drops the
  /// credentials for good (they belong to the request's origin only).
  void on_redirect(bool other_origin);

  /// Which scheme the last answer used ("Digest", "Basic"), for the trace.
  const std::string& last_scheme() const noexcept { return last_scheme_; }

 private:
  std::optional<Result<std::string>> answer_digest(const DigestChallenge& challenge,
                                                   std::string_view method, std::string_view target,
                                                   std::optional<std::string_view> entity_body);

  Authentication auth_;
  int answers_ = 0;  // authenticated sends for the current URL
  bool stale_answered_ = false;
  std::string nonce_;  // the nonce last answered, and how often (nc)
  std::uint32_t nonce_count_ = 0;
  std::string last_scheme_;
};

}  // namespace sluice
