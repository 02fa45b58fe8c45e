#pragma once
// The matching rules of RFC 6265bis section 5.1: domain-match, path-match, the
// default path of a request, and libpsl's public suffix test.
// Ownership: free functions; any thread (libpsl's built-in list is read-only).

#include <string>
#include <string_view>

#include "net/socket_address.hpp"  // is_ip_literal: such hosts only match themselves

namespace sluice {

/// Lower-case ASCII copy (cookie domains and hosts compare case-insensitively).
std::string lowercase_ascii(std::string_view text);

/// `host` domain-matches `domain`: the same, or `host` ends with "." + `domain` and
/// is a name, not an IP address. Both lower-case.
bool domain_matches(std::string_view host, std::string_view domain);

/// `request_path` path-matches `cookie_path`: the same, or a prefix that ends with
/// '/' or is followed by '/' in the request path.
bool path_matches(std::string_view request_path, std::string_view cookie_path);

/// The default-path of a request path: up to, not including, its last '/', or "/".
std::string default_cookie_path(std::string_view request_path);

/// `domain` (lower-case) is a public suffix ("com", "co.uk", "github.io"), by
/// libpsl's built-in list. Without one, any single-label name counts as one.
bool is_public_suffix(const std::string& domain);

}  // namespace sluice
