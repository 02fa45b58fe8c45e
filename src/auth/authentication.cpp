#include "auth/authentication.hpp"

#include <string_view>

#include "auth/credentials.hpp"
#include "auth/header_text.hpp"

namespace sluice {
namespace {

// RFC 6750 section 2.1: b64token, the characters a bearer token may hold.
bool is_b64token(std::string_view token) {
  if (token.empty()) return false;
  std::size_t i = 0;
  for (; i < token.size(); ++i) {
    const char c = token[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    if (!ok) break;
  }
  while (i < token.size() && token[i] == '=') ++i;
  return i == token.size();
}

}  // namespace

Result<void> authentication_to_header(const Authentication& auth, Headers& headers) {
  if (auth.scheme == Authentication::Scheme::none || headers.contains("authorization")) return {};
  // Digest and any answer the server's 401 (auth_retry.cpp): nothing goes first.
  if (auth.scheme == Authentication::Scheme::digest || auth.scheme == Authentication::Scheme::any) {
    return {};
  }
  // AWS SigV4 signs each hop for its own host, path and time (FetchHops).
  if (auth.scheme == Authentication::Scheme::aws_sigv4) return {};
  if (auth.scheme == Authentication::Scheme::bearer) {
    if (!is_b64token(auth.token)) {
      return Error(ErrorCategory::usage,
                   "Bearer: the token holds characters a token cannot (RFC 6750 allows "
                   "letters, digits and -._~+/ with trailing =)");
    }
    headers.add("Authorization", "Bearer " + auth.token);
    return {};
  }
  if (auth.user.find(':') != std::string::npos) {
    return Error(ErrorCategory::usage,
                 "Basic: the user name '" + auth.user + "' contains ':', which Basic cannot carry");
  }
  if (has_control_character(auth.user) || has_control_character(auth.password)) {
    return Error(ErrorCategory::usage,
                 "Basic: the user name or password holds a control character");
  }
  headers.add("Authorization", "Basic " + base64(auth.user + ":" + auth.password));
  return {};
}

}  // namespace sluice
