#pragma once
// Credentials carried in URLs: http://user:password@host/ becomes an Authorization
// header (curl does the same; dropping them silently would send an anonymous request
// the user did not ask for), and a proxy URL's user:password a Proxy-Authorization.
// Ownership: free functions.

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace sluice {

/// "Basic <base64(user:password)>" (RFC 7617) for a URL's userinfo, still
/// percent-encoded as the URL carries it; nullopt when it is empty or its escapes are
/// malformed. A userinfo without ':' is a user with an empty password.
std::optional<std::string> basic_credentials(std::string_view userinfo);

/// A userinfo's user and password, percent-decoded; nullopt when its escapes are
/// malformed. Without ':' the password is empty.
std::optional<std::pair<std::string, std::string>> user_and_password(std::string_view userinfo);

/// Standard base64 with padding (RFC 4648 section 4).
std::string base64(std::string_view bytes);

}  // namespace sluice
