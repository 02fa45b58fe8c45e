// URL components for http and https (RFC 3986): authority, host, port, percent-
// encoding and dot segments. Url::parse and Url::resolve (url.cpp) are built on these.
//
// Ownership: stateless free functions over caller-owned views; any thread.

#include "web/url_parse.hpp"

#include "core/ascii_case.hpp"
#include "core/message_text.hpp"
#include "web/url_idn.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace sluice::url_detail {
namespace {

constexpr std::size_t kMaxQuoted = 200;    // longer inputs are cut in messages
constexpr std::size_t kMaxHostName = 253;  // RFC 1035, without the trailing dot
constexpr std::size_t kMaxLabel = 63;

bool is_alpha(unsigned char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }
bool is_hex(unsigned char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_unreserved(unsigned char c) noexcept {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
bool is_sub_delim(unsigned char c) noexcept {
  switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=': return true;
    default: return false;
  }
}

// RFC 3986 3.3-3.5: pchar and '/' everywhere; '?' in query and fragment only.
bool allowed_in(unsigned char c, Component component) noexcept {
  if (is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@' || c == '/') {
    return true;
  }
  return c == '?' && component != Component::path;
}

bool starts_pct_triplet(std::string_view text, std::size_t i) noexcept {
  return i + 2 < text.size() && is_hex(static_cast<unsigned char>(text[i + 1])) &&
         is_hex(static_cast<unsigned char>(text[i + 2]));
}

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(c));
  return buf;
}

std::string describe_char(unsigned char c) {
  if (c == ' ') return "space";
  if (c < 0x20 || c == 0x7F) return "control byte " + hex_byte(c);
  if (c >= 0x80) return "non-ASCII byte " + hex_byte(c);
  return std::string("character '") + static_cast<char>(c) + "'";
}

std::string percent_form(unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return {'%', kHex[c >> 4], kHex[c & 0x0F]};
}

struct AuthorityParts {
  std::string userinfo;
  std::string host;
  std::uint16_t port = 0;
};

// Userinfo is kept as written, so it must already be valid: guessing how to encode
// a stray '@' or '\' here is how two parsers come to disagree about the host.
Result<void> check_userinfo(std::string_view userinfo, std::string_view input) {
  for (std::size_t i = 0; i < userinfo.size(); ++i) {
    const auto c = static_cast<unsigned char>(userinfo[i]);
    if (c == '%') {
      if (starts_pct_triplet(userinfo, i)) continue;
      return url_error("'%' not followed by two hex digits in user info", input,
                       "write a literal '%' as %25");
    }
    if (is_unreserved(c) || is_sub_delim(c) || c == ':') continue;
    return url_error(describe_char(c) + " is not allowed in user info", input,
                     "percent-encode it as " + percent_form(c));
  }
  return {};
}

Result<std::uint16_t> parse_port(std::string_view digits, std::uint16_t fallback,
                                 std::string_view input) {
  if (digits.empty()) return fallback;  // "http://host:/" means the default port
  std::uint32_t value = 0;
  for (char ch : digits) {
    if (!is_digit(static_cast<unsigned char>(ch))) {
      value = 0;
      break;
    }
    value = value * 10 + static_cast<std::uint32_t>(ch - '0');
    if (value > 65535) break;
  }
  if (value == 0 || value > 65535) {
    return url_error("invalid port '" + printable(digits) + "'", input,
                     "a port is a number from 1 to 65535");
  }
  return static_cast<std::uint16_t>(value);
}

Result<std::string> parse_ipv6(std::string_view literal, std::string_view input) {
  const std::string shown = "'[" + printable(literal) + "]'";
  if (literal.empty()) return url_error("empty IPv6 address '[]'", input);
  if (literal.front() == 'v' || literal.front() == 'V') {
    return url_error("IPvFuture address " + shown + " is not supported", input);
  }
  if (const auto zone = literal.find('%'); zone != std::string_view::npos) {
    return url_error(
        "IPv6 zone identifier '" + printable(literal.substr(zone)) + "' is not supported", input,
        "use an address without a '%' zone");
  }
  in6_addr addr{};
  const std::string text(literal);
  if (inet_pton(AF_INET6, text.c_str(), &addr) != 1) {
    return url_error("invalid IPv6 address " + shown, input);
  }
  // The canonical form makes "[0:0::1]" and "[::1]" one origin.
  char canonical[INET6_ADDRSTRLEN];
  if (inet_ntop(AF_INET6, &addr, canonical, sizeof canonical) == nullptr) {
    return to_lower(literal);
  }
  return std::string(canonical);
}

// A host whose last label is a number is an IPv4 address or nothing: resolvers read
// "127.1", "2130706433" and "0x7f.0.0.1" as addresses, so such hosts must be
// refused here unless they are plain dotted quads.
bool ends_in_number(std::string_view host) noexcept {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  const auto dot = host.rfind('.');
  auto last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  auto all_of = [](std::string_view s, bool (*pred)(unsigned char) noexcept) {
    return std::all_of(s.begin(), s.end(),
                       [pred](char ch) { return pred(static_cast<unsigned char>(ch)); });
  };
  if (all_of(last, is_digit)) return true;
  return last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') &&
         all_of(last.substr(2), is_hex);
}

bool is_dotted_quad(std::string_view host) noexcept {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    const auto dot = host.find('.', start);
    const auto part = host.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty() || part.size() > 3) return false;
    if (part.size() > 1 && part[0] == '0') return false;  // octal to some resolvers
    int value = 0;
    for (char ch : part) {
      if (!is_digit(static_cast<unsigned char>(ch))) return false;
      value = value * 10 + (ch - '0');
    }
    if (value > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts == 4;
}

Result<void> check_labels(std::string_view host, std::string_view input) {
  std::string_view name = host;
  if (name.back() == '.') name.remove_suffix(1);  // a fully qualified name
  if (name.size() > kMaxHostName) {
    return url_error("host name longer than 253 characters", input);
  }
  std::size_t start = 0;
  while (true) {
    const auto dot = name.find('.', start);
    const auto label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty()) {
      return url_error("empty label in host name '" + printable(host) + "'", input);
    }
    if (label.size() > kMaxLabel) {
      return url_error("label longer than 63 characters in host name", input);
    }
    if (dot == std::string_view::npos) return {};
    start = dot + 1;
  }
}

// Names go to DNS, so only what DNS names hold is accepted: letters, digits, '-',
// '.', and '_' (seen in real service names).
Result<std::string> parse_name_host(std::string_view host, std::string_view input) {
  std::string ascii;
  if (needs_idna(host)) {
    auto converted = to_ascii_host(host, input);
    if (!converted) return std::move(converted).error();
    ascii = std::move(*converted);
    host = ascii;  // what follows checks the A-label form, as DNS will see it
  }
  for (char ch : host) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_') continue;
    const std::string shown = "'" + printable(host) + "'";
    if (c == '%') {
      return url_error("percent-encoded host name " + shown + " is not supported", input);
    }
    return url_error(describe_char(c) + " is not allowed in host " + shown, input);
  }
  if (ends_in_number(host)) {
    if (!is_dotted_quad(host)) {
      return url_error("invalid IPv4 address '" + printable(host) + "'", input,
                       "expected four numbers 0-255 without leading zeros, as in 192.0.2.1");
    }
    return std::string(host);
  }
  if (auto ok = check_labels(host, input); !ok) return ok.error();
  return to_lower(host);
}

// host [":" port] where host is "[v6]", a dotted quad, or a name.
Result<AuthorityParts> parse_host_port(std::string_view hostport, std::uint16_t fallback,
                                       std::string_view input) {
  AuthorityParts parts;
  std::string_view port_text;
  Result<std::string> host = std::string();
  if (!hostport.empty() && hostport.front() == '[') {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) {
      return url_error("missing ']' after IPv6 address", input);
    }
    host = parse_ipv6(hostport.substr(1, close - 1), input);
    const auto after = hostport.substr(close + 1);
    if (!after.empty() && after.front() != ':') {
      return url_error("unexpected " + describe_char(static_cast<unsigned char>(after[0])) +
                           " after IPv6 address ']'",
                       input, "expected ':' and a port");
    }
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const auto colon = hostport.find(':');
    const auto name = hostport.substr(0, colon);
    if (name.empty()) return url_error("missing host", input);
    if (colon != std::string_view::npos) port_text = hostport.substr(colon + 1);
    if (port_text.find(':') != std::string_view::npos) {
      return url_error("more than one ':' in host '" + printable(hostport) + "'", input,
                       "an IPv6 address goes in brackets, as in http://[::1]:8080/");
    }
    host = parse_name_host(name, input);
  }
  if (!host) return std::move(host).error();
  auto port = parse_port(port_text, fallback, input);
  if (!port) return std::move(port).error();
  parts.host = std::move(*host);
  parts.port = *port;
  return parts;
}

Result<AuthorityParts> parse_authority(std::string_view authority, std::uint16_t fallback,
                                       std::string_view input) {
  // The last '@' ends the userinfo: the host cannot hold one.
  const auto at = authority.rfind('@');
  const auto hostport = at == std::string_view::npos ? authority : authority.substr(at + 1);
  if (hostport.empty()) return url_error("missing host", input);
  auto parts = parse_host_port(hostport, fallback, input);
  if (!parts) return parts;
  if (at != std::string_view::npos) {
    const auto userinfo = authority.substr(0, at);
    if (auto ok = check_userinfo(userinfo, input); !ok) return ok.error();
    parts->userinfo = std::string(userinfo);
  }
  return parts;
}

}  // namespace

Error url_error(std::string_view problem, std::string_view input, std::string_view hint) {
  std::string message = "URL: ";
  message += problem;
  message += " in '";
  message += printable(input.substr(0, kMaxQuoted));
  if (input.size() > kMaxQuoted) message += "...";
  message += "'";
  if (!hint.empty()) {
    message += " (";
    message += hint;
    message += ")";
  }
  return Error(ErrorCode::bad_url, std::move(message));
}

std::string_view trim_spaces(std::string_view text) noexcept {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(' ');
  return text.substr(first, last - first + 1);
}

Result<void> refuse_smuggling_bytes(std::string_view input) {
  for (char ch : input) {
    const char* what = nullptr;
    switch (ch) {
      case '\r': what = "contains a carriage return (CR)"; break;
      case '\n': what = "contains a line feed (LF)"; break;
      case '\0': what = "contains a NUL byte"; break;
      case '\t': what = "contains a tab (HTAB)"; break;
      default: break;
    }
    if (what != nullptr) {
      return url_error(what, input, "CR, LF, NUL and TAB are refused in URLs");
    }
  }
  return {};
}

std::optional<std::size_t> find_scheme_colon(std::string_view text) noexcept {
  const auto stop = text.find_first_of(":/?#");
  if (stop == std::string_view::npos || text[stop] != ':') return std::nullopt;
  return stop;
}

bool is_scheme_syntax(std::string_view scheme) noexcept {
  if (scheme.empty() || !is_alpha(static_cast<unsigned char>(scheme.front()))) {
    return false;
  }
  return std::all_of(scheme.begin(), scheme.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
  });
}

std::string to_lower(std::string_view text) { return ascii_lowercase(text); }

std::uint16_t default_port(std::string_view scheme) noexcept {
  if (scheme == "http") return 80;
  if (scheme == "https") return 443;
  return 0;
}

Result<Url> parse_hierarchical(std::string scheme, std::string_view rest, std::string_view input) {
  if (rest.substr(0, 2) != "//") {
    return url_error("expected '//' after '" + scheme + ":'", input,
                     "an http(s) URL needs a host, as in " + scheme + "://example.org/");
  }
  rest.remove_prefix(2);
  const auto end = rest.find_first_of("/?#");
  auto parts = parse_authority(rest.substr(0, end), default_port(scheme), input);
  if (!parts) return std::move(parts).error();

  Url url;
  url.scheme = std::move(scheme);
  url.userinfo = std::move(parts->userinfo);
  url.host = std::move(parts->host);
  url.port = parts->port;
  const RawTail tail =
      split_tail(end == std::string_view::npos ? std::string_view{} : rest.substr(end));
  url.path = tail.path.empty() ? std::string("/")
                               : remove_dot_segments(encode_component(tail.path, Component::path));
  url.has_query = tail.has_query;
  if (tail.has_query) url.query = encode_component(tail.query, Component::query);
  if (tail.has_fragment) url.fragment = encode_component(tail.fragment, Component::fragment);
  return url;
}

RawTail split_tail(std::string_view text) noexcept {
  RawTail tail;
  if (const auto hash = text.find('#'); hash != std::string_view::npos) {
    tail.fragment = text.substr(hash + 1);
    tail.has_fragment = true;
    text = text.substr(0, hash);
  }
  if (const auto question = text.find('?'); question != std::string_view::npos) {
    tail.query = text.substr(question + 1);
    tail.has_query = true;
    text = text.substr(0, question);
  }
  tail.path = text;
  return tail;
}

std::string encode_component(std::string_view raw, Component component) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    const bool keep = c == '%' ? starts_pct_triplet(raw, i) : allowed_in(c, component);
    if (keep) {
      out += raw[i];
    } else {
      out += percent_form(c);
    }
  }
  return out;
}

std::string remove_dot_segments(std::string_view path) {
  // Every segment of an absolute path follows a slash, and a "." or ".." segment
  // starts with a dot: most paths have no "/.", and are already what the loop below
  // would build.
  if (!path.empty() && path.front() == '/' && path.find("/.") == std::string_view::npos) {
    return std::string(path);
  }
  // The segments after the leading '/'. A "." or ".." in last place leaves an empty
  // segment behind, which is the trailing slash RFC 3986 keeps ("/a/b/.." is "/a/").
  std::vector<std::string_view> kept;
  std::size_t start = (!path.empty() && path.front() == '/') ? 1 : 0;
  while (true) {
    const auto slash = path.find('/', start);
    const bool last = slash == std::string_view::npos;
    const auto segment = path.substr(start, last ? slash : slash - start);
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
      if (last) kept.emplace_back();
    } else if (segment == ".") {
      if (last) kept.emplace_back();
    } else {
      kept.push_back(segment);
    }
    if (last) break;
    start = slash + 1;
  }
  std::string out;
  out.reserve(path.size());
  for (const auto segment : kept) {
    out += '/';
    out += segment;
  }
  return out.empty() ? std::string("/") : out;
}

}  // namespace sluice::url_detail
