#include "web/cookie_parse.hpp"

#include "web/cookie_date.hpp"
#include "web/cookie_match.hpp"

namespace sluice {
namespace {

bool is_wsp(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_wsp(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_wsp(text.back())) text.remove_suffix(1);
  return text;
}

bool has_forbidden_control(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t') || byte == 0x7F) return true;
  }
  return false;
}

// Max-Age = an optional '-' then digits; anything else leaves the attribute unused.
std::optional<std::int64_t> parse_max_age(std::string_view value) {
  bool negative = false;
  if (!value.empty() && value.front() == '-') {
    negative = true;
    value.remove_prefix(1);
  }
  if (value.empty()) return std::nullopt;
  std::int64_t seconds = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    // Saturate: the jar caps lifetimes at 400 days anyway.
    if (seconds < 1'000'000'000'000) seconds = seconds * 10 + (c - '0');
  }
  return negative ? -seconds : seconds;
}

SameSite parse_same_site(std::string_view value) {
  const std::string lower = lowercase_ascii(value);
  if (lower == "strict") return SameSite::strict;
  if (lower == "lax") return SameSite::lax;
  if (lower == "none") return SameSite::none;
  return SameSite::unspecified;
}

void apply_attribute(ParsedSetCookie& cookie, std::string_view attribute) {
  const std::size_t equals = attribute.find('=');
  const std::string name = lowercase_ascii(trim(attribute.substr(0, equals)));
  const std::string_view value =
      equals == std::string_view::npos ? std::string_view{} : trim(attribute.substr(equals + 1));
  if (value.size() > kMaxCookieAttributeBytes) return;
  if (name == "expires") {
    if (auto when = parse_cookie_date(value)) cookie.expires = *when;
  } else if (name == "max-age") {
    if (auto seconds = parse_max_age(value)) cookie.max_age = *seconds;
  } else if (name == "domain") {
    std::string_view domain = value;
    if (!domain.empty() && domain.front() == '.') domain.remove_prefix(1);
    if (!domain.empty()) cookie.domain = lowercase_ascii(domain);
  } else if (name == "path") {
    // Not starting with '/' (or holding a TAB): the default path, as if absent.
    if (!value.empty() && value.front() == '/' && value.find('\t') == std::string_view::npos) {
      cookie.path = std::string(value);
    } else {
      cookie.path.reset();
    }
  } else if (name == "secure") {
    cookie.secure = true;
  } else if (name == "httponly") {
    cookie.http_only = true;
  } else if (name == "samesite") {
    cookie.same_site = parse_same_site(value);
  }
}

}  // namespace

std::optional<ParsedSetCookie> parse_set_cookie(std::string_view field) {
  if (has_forbidden_control(field)) return std::nullopt;
  const std::size_t semicolon = field.find(';');
  const std::string_view pair = field.substr(0, semicolon);
  ParsedSetCookie cookie;
  const std::size_t equals = pair.find('=');
  if (equals == std::string_view::npos) {
    cookie.value = std::string(trim(pair));  // a nameless cookie (6265bis)
  } else {
    cookie.name = std::string(trim(pair.substr(0, equals)));
    cookie.value = std::string(trim(pair.substr(equals + 1)));
  }
  if (cookie.name.empty() && cookie.value.empty()) return std::nullopt;
  if (cookie.name.size() + cookie.value.size() > kMaxCookieNameValueBytes) return std::nullopt;
  if (cookie.name.find('\t') != std::string::npos || cookie.value.find('\t') != std::string::npos) {
    return std::nullopt;
  }
  std::string_view rest =
      semicolon == std::string_view::npos ? std::string_view{} : field.substr(semicolon + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(';');
    apply_attribute(cookie, rest.substr(0, next));
    if (next == std::string_view::npos) break;
    rest.remove_prefix(next + 1);
  }
  return cookie;
}

}  // namespace sluice
