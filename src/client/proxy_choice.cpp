#include "client/proxy_choice.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "client/credentials.hpp"

namespace sluice {
namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

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
    const int bits = std::atoi(std::string(entry.substr(slash + 1)).c_str());
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

Result<std::optional<Url>> parse_proxy(const std::string& text, const char* where) {
  if (text.empty()) return std::optional<Url>();
  // Like curl, a proxy without a scheme is an HTTP proxy.
  const std::string with_scheme = text.find("://") == std::string::npos ? "http://" + text : text;
  const std::string scheme = lowercase(with_scheme.substr(0, with_scheme.find("://")));
  if (scheme != "http") {
    return Error(ErrorCode::usage, std::string(where) + ": proxy '" + text + "': the scheme " +
                                       scheme + ":// is not supported (only http:// proxies)");
  }
  auto url = Url::parse(with_scheme);
  if (!url) {
    return Error(ErrorCode::usage,
                 std::string(where) + ": proxy '" + text + "': " + url.error().message());
  }
  if (!names_port(with_scheme)) url->port = 1080;  // curl's default proxy port
  if (!url->userinfo.empty() && !basic_credentials(url->userinfo)) {
    return Error(ErrorCode::usage, std::string(where) + ": proxy '" + text +
                                       "': the user name or password has a malformed %-escape");
  }
  return std::optional<Url>(std::move(*url));
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
      if (!current.empty()) entries.push_back(lowercase(std::exchange(current, {})));
    } else {
      current += c;
    }
  }
  if (!current.empty()) entries.push_back(lowercase(current));
  return entries;
}

bool no_proxy_matches(const std::vector<std::string>& entries, std::string_view host) {
  const std::string lower = lowercase(host);
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
  settings.tunnel_http_ = options.proxy_tunnel;
  if (!options.proxy_user.empty()) settings.authorization_ = "Basic " + base64(options.proxy_user);
  if (!options.proxy.empty() || !options.proxy_from_environment) {
    auto proxy = parse_proxy(options.proxy, "ClientOptions::proxy");
    if (!proxy) return std::move(proxy).error();
    settings.http_proxy_ = settings.https_proxy_ = std::move(*proxy);
    settings.no_proxy_ = split_no_proxy(options.no_proxy);
    return settings;
  }
  auto first_of = [&](std::initializer_list<const char*> names) -> std::optional<std::pair<std::string, const char*>> {
    for (const char* name : names) {
      if (auto value = environment(name)) return std::make_pair(*value, name);
    }
    return std::nullopt;
  };
  const auto all = first_of({"all_proxy", "ALL_PROXY"});
  const auto http = first_of({"http_proxy"});  // never HTTP_PROXY: see the header
  const auto https = first_of({"https_proxy", "HTTPS_PROXY"});
  const auto chosen_http = http ? http : all;
  const auto chosen_https = https ? https : all;
  if (chosen_http) {
    auto proxy = parse_proxy(chosen_http->first, chosen_http->second);
    if (!proxy) return std::move(proxy).error();
    settings.http_proxy_ = std::move(*proxy);
  }
  if (chosen_https) {
    auto proxy = parse_proxy(chosen_https->first, chosen_https->second);
    if (!proxy) return std::move(proxy).error();
    settings.https_proxy_ = std::move(*proxy);
  }
  const std::string no_proxy = !options.no_proxy.empty() ? options.no_proxy
                               : environment("no_proxy")  ? *environment("no_proxy")
                                                          : environment("NO_PROXY").value_or("");
  settings.no_proxy_ = split_no_proxy(no_proxy);
  return settings;
}

std::optional<ProxyRoute> ProxySettings::route_for(const Url& target) const {
  const std::optional<Url>& proxy = target.is_https() ? https_proxy_ : http_proxy_;
  if (!proxy || no_proxy_matches(no_proxy_, target.host)) return std::nullopt;
  ProxyRoute route;
  route.host = proxy->host;
  route.port = proxy->port;
  route.tunnel = target.is_https() || tunnel_http_;
  route.authorization = !authorization_.empty() ? authorization_
                                                : basic_credentials(proxy->userinfo).value_or("");
  route.display = proxy->authority();
  return route;
}

}  // namespace sluice
