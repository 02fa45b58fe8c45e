#include "auth/proxy_choice.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "auth/credentials.hpp"
#include "auth/header_text.hpp"
#include "core/ascii_case.hpp"

namespace sluice {
namespace {

// An address as 16 bytes (IPv4 as its first 4) and its length in bits.
struct Address {
  std::array<unsigned char, 16> bytes{};
  int bits = 0;
};

std::optional<Address> parse_address(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = text.substr(1, text.size() - 2);
  }
  const std::string copy(text);
  Address address;
  if (inet_pton(AF_INET, copy.c_str(), address.bytes.data()) == 1) {
    address.bits = 32;
    return address;
  }
  if (inet_pton(AF_INET6, copy.c_str(), address.bytes.data()) == 1) {
    address.bits = 128;
    return address;
  }
  return std::nullopt;
}

bool same_prefix(const Address& a, const Address& b, int bits) {
  const int whole = bits / 8;
  if (std::memcmp(a.bytes.data(), b.bytes.data(), static_cast<std::size_t>(whole)) != 0) {
    return false;
  }
  const int rest = bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (a.bytes[static_cast<std::size_t>(whole)] & mask) ==
         (b.bytes[static_cast<std::size_t>(whole)] & mask);
}

bool entry_matches(std::string_view entry, std::string_view host,
                   const std::optional<Address>& host_address) {
  if (entry == "*") return true;
  if (const auto slash = entry.find('/'); slash != std::string_view::npos) {
    const auto network = parse_address(entry.substr(0, slash));
    const std::string_view suffix = entry.substr(slash + 1);
    int bits = -1;
    const auto [end, error] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), bits);
    // "10.0.0.0/" or "/x" is no range at all: it must not read as /0 (every host).
    if (error != std::errc() || end != suffix.data() + suffix.size()) return false;
    return network && host_address && network->bits == host_address->bits && bits >= 0 &&
           bits <= network->bits && same_prefix(*network, *host_address, bits);
  }
  if (const auto address = parse_address(entry)) {
    return host_address && address->bits == host_address->bits &&
           same_prefix(*address, *host_address, address->bits);
  }
  if (entry.front() == '.') entry.remove_prefix(1);
  if (host == entry) return true;
  return host.size() > entry.size() && host.ends_with(entry) &&
         host[host.size() - entry.size() - 1] == '.';
}

// Whether a URL's authority gives a port ("host:3128", "[::1]:3128").
bool names_port(std::string_view url) {
  std::string_view authority = url.substr(url.find("://") + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  const auto colon = authority.rfind(':');
  return colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos;
}

// The proxy as messages may show it: a password never goes to a log or a terminal.
std::string redacted(const std::string& text) {
  const std::size_t start = text.find("://") == std::string::npos ? 0 : text.find("://") + 3;
  const std::size_t at = text.find('@', start);
  const std::size_t slash = text.find('/', start);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return text;
  return text.substr(0, start) + "***@" + text.substr(at + 1);
}

std::optional<ProxyKind> kind_of(const std::string& scheme) {
  if (scheme == "http") return ProxyKind::http;
  if (scheme == "https") return ProxyKind::https;
  if (scheme == "socks5") return ProxyKind::socks5;
  if (scheme == "socks5h") return ProxyKind::socks5h;
  return std::nullopt;
}

template <class Proxy>
Result<std::optional<Proxy>> parse_proxy(const std::string& given, const char* where) {
  if (given.empty()) return std::optional<Proxy>();
  const std::string shown = redacted(given);
  // Like curl, a proxy without a scheme is an HTTP proxy.
  const std::size_t separator = given.find("://");
  const std::string scheme =
      separator == std::string::npos ? "http" : ascii_lowercase(given.substr(0, separator));
  const auto kind = kind_of(scheme);
  if (!kind) {
    return Error(ErrorCode::usage, std::string(where) + ": proxy '" + shown + "': the scheme " +
                                       scheme +
                                       ":// is not supported (http://, https://, "
                                       "socks5:// and socks5h:// are)");
  }
  // The URL parser knows http: the rest of a SOCKS URL has the same shape.
  const std::string with_scheme =
      "http://" + (separator == std::string::npos ? given : given.substr(separator + 3));
  auto url = Url::parse(with_scheme);
  if (!url) {
    // The parser's message quotes the URL: name the proxy only as it may be shown.
    return Error(ErrorCode::usage,
                 std::string(where) + ": proxy '" + shown + "' is not a URL the parser accepts");
  }
  // curl's default proxy ports: 443 for a proxy spoken to over TLS, else 1080.
  if (!names_port(with_scheme)) url->port = *kind == ProxyKind::https ? 443 : 1080;
  if (!url->userinfo.empty()) {
    const auto both = user_and_password(url->userinfo);
    if (!both) {
      return Error(ErrorCode::usage, std::string(where) + ": proxy '" + shown +
                                         "': the user name or password has a malformed %-escape");
    }
    // A %0D%0A decodes to a line break, which SOCKS5 would send as it is.
    if (has_control_character(both->first) || has_control_character(both->second)) {
      return Error(ErrorCode::usage, std::string(where) + ": proxy '" + shown +
                                         "': the user name or password holds a control character");
    }
  }
  return std::optional<Proxy>(Proxy{*kind, std::move(*url)});
}

std::optional<std::string> from_process(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

std::vector<std::string> split_no_proxy(std::string_view list) {
  std::vector<std::string> entries;
  std::string current;
  for (char c : list) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!current.empty()) entries.push_back(ascii_lowercase(std::exchange(current, {})));
    } else {
      current += c;
    }
  }
  if (!current.empty()) entries.push_back(ascii_lowercase(current));
  return entries;
}

bool no_proxy_matches(const std::vector<std::string>& entries, std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);  // "example.org." is example.org
  const std::string lower = ascii_lowercase(host);
  const auto address = parse_address(lower);
  return std::any_of(entries.begin(), entries.end(), [&](const std::string& entry) {
    return entry_matches(entry, lower, address);
  });
}

Result<ProxySettings> ProxySettings::from(const ClientOptions& options) {
  return from(options, from_process);
}

Result<ProxySettings> ProxySettings::from(const ClientOptions& options,
                                          const Environment& environment) {
  ProxySettings settings;
  settings.tunnel_http_ = options.proxy.tunnel;
  if (!options.proxy.user.empty()) {
    // Basic carries it base64'd, but SOCKS5 sends it as it is, and a CR or LF in a
    // password is a mistake in any case (as -u's are refused).
    if (has_control_character(options.proxy.user)) {
      return Error(ErrorCategory::usage,
                   "ClientOptions::proxy.user (--proxy-user): the user name or password holds a "
                   "control character");
    }
    settings.authorization_ = "Basic " + base64(options.proxy.user);
    settings.user_password_ = options.proxy.user;
  }
  const bool from_environment = options.proxy.from_environment;
  // The first of `names` the environment sets, with the name (for messages).
  auto first_of = [&](std::initializer_list<const char*> names)
      -> std::optional<std::pair<std::string, const char*>> {
    if (!from_environment) return std::nullopt;
    for (const char* name : names) {
      if (auto value = environment(name)) return std::make_pair(*value, name);
    }
    return std::nullopt;
  };
  if (!options.proxy.url.empty()) {
    auto proxy = parse_proxy<Proxy>(options.proxy.url, "ClientOptions::proxy.url");
    if (!proxy) return std::move(proxy).error();
    settings.http_proxy_ = settings.https_proxy_ = std::move(*proxy);
  } else {
    const auto all = first_of({"all_proxy", "ALL_PROXY"});
    const auto http = first_of({"http_proxy"});  // never HTTP_PROXY: see the header
    const auto https = first_of({"https_proxy", "HTTPS_PROXY"});
    for (auto [chosen, slot] : {std::pair{http ? http : all, &settings.http_proxy_},
                                std::pair{https ? https : all, &settings.https_proxy_}}) {
      if (!chosen) continue;
      auto proxy = parse_proxy<Proxy>(chosen->first, chosen->second);
      if (!proxy) return std::move(proxy).error();
      *slot = std::move(*proxy);
    }
  }
  if (options.proxy.no_proxy) {
    settings.no_proxy_ = split_no_proxy(*options.proxy.no_proxy);
  } else if (const auto listed = first_of({"no_proxy", "NO_PROXY"})) {
    settings.no_proxy_ = split_no_proxy(listed->first);
  }
  return settings;
}

std::optional<ProxyRoute> ProxySettings::route_for(const Url& target) const {
  const std::optional<Proxy>& proxy = target.is_https() ? https_proxy_ : http_proxy_;
  if (!proxy || no_proxy_matches(no_proxy_, target.host)) return std::nullopt;
  const Url& url = proxy->url;
  ProxyRoute route;
  route.kind = proxy->kind;
  route.host = url.host;
  route.port = url.port;
  route.display = url.authority();
  if (!speaks_http(proxy->kind)) {
    // SOCKS has no forwarding mode: every connection is a tunnel.
    route.tunnel = true;
    if (!user_password_.empty()) {
      const std::size_t colon = user_password_.find(':');
      route.user = user_password_.substr(0, colon);
      route.password = colon == std::string::npos ? "" : user_password_.substr(colon + 1);
    } else if (auto both = user_and_password(url.userinfo); both && !url.userinfo.empty()) {
      route.user = std::move(both->first);
      route.password = std::move(both->second);
    }
    return route;
  }
  route.tunnel = target.is_https() || tunnel_http_;
  route.authorization =
      !authorization_.empty() ? authorization_ : basic_credentials(url.userinfo).value_or("");
  return route;
}

}  // namespace sluice
