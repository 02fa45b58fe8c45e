#pragma once
// Which proxy, if any, a request goes through (an HTTP proxy, or SOCKS5 with the
// target's name resolved here, socks5://, or by the proxy, socks5h://):
// ClientOptions::proxy.url for every
// request, or the environment as curl reads it (http_proxy for http://, https_proxy
// or HTTPS_PROXY for https://, all_proxy or ALL_PROXY for either), minus the hosts
// that no_proxy names. HTTP_PROXY in capitals is never read: a CGI program gets a
// request's "Proxy:" header as HTTP_PROXY, so a client trusting it lets any caller
// pick the proxy ("httpoxy"); curl ignores it for that reason.
// Ownership: ProxySettings is built once when the Client is made, then read-only
// (HTTP thread and senders).

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "connect/proxy_hop.hpp"
#include "sluice/client.hpp"
#include "sluice/error.hpp"
#include "sluice/url.hpp"

namespace sluice {

/// How a request reaches its proxy.
using ProxyRoute = ProxyHop;

class ProxySettings {
 public:
  using Environment = std::function<std::optional<std::string>(const char* name)>;

  /// From the options, reading `environment` (getenv by default) only when
  /// options.proxy.from_environment and the options name no proxy themselves.
  /// Errors (usage): a proxy URL that does not parse, or a scheme other than http.
  static Result<ProxySettings> from(const ClientOptions& options, const Environment& environment);
  static Result<ProxySettings> from(const ClientOptions& options);

  /// nullopt: go direct.
  std::optional<ProxyRoute> route_for(const Url& target) const;

 private:
  /// A proxy as configured: its kind (the URL's scheme) and the URL parsed as http://.
  struct Proxy {
    ProxyKind kind = ProxyKind::http;
    Url url;
  };
  std::optional<Proxy> http_proxy_, https_proxy_;
  std::vector<std::string> no_proxy_;  // lowercase entries
  bool tunnel_http_ = false;
  std::string authorization_;  // from ClientOptions::proxy.user: over the URL's
  std::string user_password_;  // the same, as given, for SOCKS5
};

/// Whether `host` is one that a no_proxy list (already split and lowercased) names:
/// "*" names every host; a name names itself and its subdomains (a leading dot is
/// ignored); an IP address names itself; "a.b.c.d/n" or "ip6/n" names a range.
bool no_proxy_matches(const std::vector<std::string>& entries, std::string_view host);
/// Splits a no_proxy list at commas and blanks, lowercased, empties dropped.
std::vector<std::string> split_no_proxy(std::string_view list);

}  // namespace sluice
