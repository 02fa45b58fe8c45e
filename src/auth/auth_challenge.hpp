#pragma once
// The challenges of WWW-Authenticate (RFC 9110 section 11.6.1): each header value
// is a comma list in which the commas separate challenges and the parameters of
// one challenge alike, so
//   Digest realm="a, b", qop="auth,auth-int", Basic realm=x, Newauth abc==
// holds three challenges. Parsing is lenient where a client can be: extra commas
// and whitespace are skipped, scheme and parameter names are matched without case,
// a quoted-string's backslash escapes are undone. A syntax error ends the value:
// the challenges before it are kept, the broken one is dropped.
// Ownership: values; any thread.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/headers.hpp"

namespace sluice {

struct AuthChallenge {
  std::string scheme;   ///< as sent; compare with iequals
  std::string token68;  ///< the token68 form ("Newauth abc=="), else empty
  /// name (lowercased) and value (unquoted), in order; a repeated name keeps both.
  std::vector<std::pair<std::string, std::string>> params;

  /// The first parameter called `name` (lowercase), or nullopt.
  std::optional<std::string_view> param(std::string_view name) const;
};

/// The challenges of one WWW-Authenticate value.
std::vector<AuthChallenge> parse_auth_challenges(std::string_view value);

/// The challenges of every WWW-Authenticate header in `headers`, in order.
std::vector<AuthChallenge> auth_challenges_of(const Headers& headers);

}  // namespace sluice
