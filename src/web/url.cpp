// sluice::Url: parsing of absolute http(s) URLs, resolution of references (Location
// values) per RFC 3986 section 5.2, and the strings a request is built from.
//
// Ownership: Url is a plain value owned by whoever holds it; these functions are
// pure and run on any thread (the client resolves redirects on the HTTP thread).

#include "sluice/url.hpp"

#include <string>

#include "web/url_idn.hpp"
#include "web/url_parse.hpp"

namespace sluice {
namespace {

using url_detail::Component;
using url_detail::encode_component;
using url_detail::remove_dot_segments;

// RFC 3986 5.2.3: the base path up to its last '/', then the reference path.
std::string merge_paths(std::string_view base_path, std::string_view relative) {
  const auto slash = base_path.rfind('/');
  std::string merged = slash == std::string_view::npos
                           ? std::string("/")
                           : std::string(base_path.substr(0, slash + 1));
  merged += relative;
  return merged;
}

// RFC 3986 5.2.2 for a reference without scheme and authority.
Url resolve_relative(const Url& base, const url_detail::RawTail& tail) {
  Url target = base;
  target.fragment =
      tail.has_fragment ? encode_component(tail.fragment, Component::fragment) : std::string();
  if (tail.path.empty()) {
    // An empty path keeps the base path, and the base query unless one is given.
    if (tail.has_query) {
      target.query = encode_component(tail.query, Component::query);
      target.has_query = true;
    }
    return target;
  }
  target.has_query = tail.has_query;
  target.query = tail.has_query ? encode_component(tail.query, Component::query) : std::string();
  const std::string path = encode_component(tail.path, Component::path);
  target.path = path.front() == '/' ? remove_dot_segments(path)
                                    : remove_dot_segments(merge_paths(base.path, path));
  return target;
}

}  // namespace

Result<Url> Url::parse(std::string_view text) {
  using namespace url_detail;
  const auto input = trim_spaces(text);
  if (input.empty()) {
    return Error(ErrorCategory::usage,
                 "URL: the URL is empty (expected http://... or https://...)");
  }
  if (auto ok = refuse_smuggling_bytes(input); !ok) return ok.error();
  const auto colon = find_scheme_colon(input);
  if (!colon || *colon == 0) {
    return url_error("missing scheme", input, "expected http:// or https://");
  }
  const auto raw_scheme = input.substr(0, *colon);
  if (!is_scheme_syntax(raw_scheme)) {
    return url_error("invalid scheme '" + std::string(raw_scheme) + "'", input,
                     "expected http:// or https://");
  }
  std::string scheme = to_lower(raw_scheme);
  if (default_port(scheme) == 0) {
    // "localhost:8080/x" reads as scheme "localhost"; say what the user meant.
    const auto after = input.substr(*colon + 1);
    if (!after.empty() && after.front() >= '0' && after.front() <= '9') {
      return url_error("missing scheme", input, "write http:// or https:// before the host");
    }
    return url_error("unsupported scheme '" + std::string(raw_scheme) + "'", input,
                     "only http and https");
  }
  return parse_hierarchical(std::move(scheme), input.substr(*colon + 1), input);
}

Result<Url> Url::resolve(std::string_view reference) const {
  using namespace url_detail;
  const auto ref = trim_spaces(reference);
  if (auto ok = refuse_smuggling_bytes(ref); !ok) return ok.error();
  const auto colon = find_scheme_colon(ref);
  if (colon && is_scheme_syntax(ref.substr(0, *colon))) {
    // An absolute reference stands alone (RFC 3986 5.2.2, strict: "http:g" is not
    // read as relative to an http base).
    std::string target_scheme = to_lower(ref.substr(0, *colon));
    if (default_port(target_scheme) == 0) {
      return url_error(
          "redirect target scheme '" + std::string(ref.substr(0, *colon)) + "' is unsupported", ref,
          "only http and https");
    }
    return parse_hierarchical(std::move(target_scheme), ref.substr(*colon + 1), ref);
  }
  if (ref.substr(0, 2) == "//") return parse_hierarchical(scheme, ref, ref);
  return resolve_relative(*this, split_tail(ref));
}

bool Url::is_ipv6_literal() const noexcept { return host.find(':') != std::string::npos; }

bool Url::has_default_port() const noexcept { return port == url_detail::default_port(scheme); }

// Room for ":65535" and the brackets of an IPv6 literal.
constexpr std::size_t kPortRoom = 8;

void Url::append_authority(std::string& out) const {
  if (is_ipv6_literal()) {
    out += '[';
    out += host;
    out += ']';
  } else {
    out += host;
  }
  if (!has_default_port()) {
    out += ':';
    out += std::to_string(port);
  }
}

std::string Url::authority() const {
  std::string out;
  out.reserve(host.size() + kPortRoom);
  append_authority(out);
  return out;
}

std::string Url::target() const { return has_query ? path + "?" + query : path; }

std::string Url::origin() const {
  std::string out;
  // Built at once, with room for a short suffix (the connection pool's key adds one).
  out.reserve(scheme.size() + 3 + host.size() + kPortRoom + 16);
  out += scheme;
  out += "://";
  append_authority(out);
  return out;
}

std::string Url::to_string() const {
  std::string out;
  out.reserve(scheme.size() + 3 + userinfo.size() + 1 + host.size() + kPortRoom + path.size() + 1 +
              query.size());
  out += scheme;
  out += "://";
  if (!userinfo.empty()) {
    out += userinfo;
    out += '@';
  }
  append_authority(out);
  out += path;
  if (has_query) {
    out += '?';
    out += query;
  }
  return out;
}

Url Url::without_credentials() const {
  Url shown = *this;
  shown.userinfo.clear();
  return shown;
}

std::string url_without_credentials(std::string_view url) {
  auto parsed = Url::parse(url);
  if (!parsed || parsed->userinfo.empty()) return std::string(url);
  return parsed->without_credentials().to_string();
}

std::string Url::to_display_string() const {
  Url shown = *this;
  shown.host = url_detail::to_unicode_host(host);
  return shown.to_string();
}

}  // namespace sluice
