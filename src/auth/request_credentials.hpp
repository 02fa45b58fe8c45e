#pragma once
// Which credentials a request carries when it names none of its own: the netrc
// file's (ClientOptions::netrc) or the URL's, with curl's precedence (CURLOPT_NETRC):
// Request::auth with a user name (-u) wins and the netrc file is not read; in
// optional mode a URL with a user name and password keeps them; in required mode the
// URL's credentials are ignored, though its user name still picks the netrc entry
// whose login it is. Digest, any and AWS SigV4 take the URL's credentials for their own scheme
// (authentication_to_header turns those left in the URL into Basic).
// Ownership: free function; the sending thread.

#include <optional>

#include "auth/netrc.hpp"
#include "sluice/client.hpp"
#include "sluice/error.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

/// Fills request.auth from `netrc` or the URL when it has no credentials; clears the
/// URL's userinfo when they were taken (or ignored). Fails on a malformed %-escape.
Result<void> choose_credentials(Request& request, Url& url, const std::optional<Netrc>& netrc,
                                NetrcMode mode);

}  // namespace sluice
