#pragma once
// Request::auth into its Authorization header (RFC 7617 Basic, RFC 6750 Bearer). The
// header then travels with the request's headers, so the redirect rule that drops
// Authorization across origins (redirect.cpp) covers it too.
// Ownership: free function; the caller's thread.

#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/request.hpp"

namespace sluice {

/// Adds the Authorization header `auth` asks for, unless `headers` has one. Errors
/// (usage): a Basic user with ':' ("Basic: the user name 'a:b' contains ':'"), or a
/// value with a control character (CR or LF would split the request head).
Result<void> authentication_to_header(const Authentication& auth, Headers& headers);

}  // namespace sluice
