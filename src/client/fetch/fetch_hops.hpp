#pragma once
// FetchHops: the policy of one fetch across its hops, as Go's Client.do plans the
// round trips its Transport runs: which URL and method the next hop sends, through
// which proxy, with which cookies and credentials; what a response head means (the
// answer, a redirect to follow, a 401 to answer); and how often a send may go again.
// Pure: no connection, no timer, no loop. Transfer runs each hop as one exchange and
// owns the request body, which only it can rewind.
// Ownership: a member of its Transfer; HTTP thread only.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "auth/auth_retry.hpp"
#include "auth/aws_sigv4.hpp"
#include "auth/proxy_choice.hpp"
#include "connection/connection.hpp"
#include "core/trace.hpp"
#include "pool/network_settings.hpp"
#include "sluice/client.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"
#include "web/hsts.hpp"
#include "web/redirect.hpp"

namespace sluice {

class FetchHops {
 public:
  /// The Client's, read-only; they outlive the fetch.
  struct Context {
    const ClientOptions& options;  ///< user_agent, cookie_jar
    const ProxySettings& proxies;
    const NetworkSettings& network;
    const Trace& trace;
    /// Known HSTS hosts; null when HSTS is off.
    const HstsStore* hsts = nullptr;
  };

  /// What a response head means for the fetch.
  enum class Verdict {
    answer,     ///< it is the response
    redirect,   ///< drain its body, then follow_redirect()
    challenge,  ///< a 401 answered: drain its body, then send the hop again
  };

  /// Takes the request's fields (its headers are the fetch's from now on) and reads
  /// its version, redirect policy and authentication.
  FetchHops(Context context, Request& request, Url url);

  const Url& url() const noexcept { return url_; }
  const std::string& method() const noexcept { return method_; }
  /// The proxy of the current hop (ClientOptions::proxy.url, no_proxy): set by choose_proxy.
  const std::optional<ProxyHop>& proxy() const noexcept { return proxy_; }
  int redirects() const noexcept { return redirects_; }

  /// Chooses the current hop's proxy, and its AWS SigV4 scope when the request signs
  /// (the defaults come from the hop's host); fails (usage) when the request cannot go
  /// that way: HTTP/3 only through a proxy or over a Unix socket, a scope or
  /// credentials that cannot sign.
  Result<void> choose_proxy();

  /// The fields of the current hop's request: the request's own, then what is
  /// missing of User-Agent, Accept, Proxy-Authorization (a forwarding proxy),
  /// Authorization (a 401's answer, or the AWS SigV4 signature of this hop made now,
  /// over `payload`: the body in memory, "" for none, nullopt for one sluice cannot
  /// hash), Accept-Encoding (`accept_encoding`, when the request decodes) and the jar's
  /// cookies for this URL as they are now.
  Headers request_headers(std::string_view accept_encoding,
                          std::optional<std::string_view> payload = std::string_view()) const;
  /// Where AWS SigV4 signing reads the time: the system's wall clock unless a test
  /// sets another.
  void set_wall_clock(std::function<std::chrono::system_clock::time_point()> clock) {
    wall_clock_ = std::move(clock);
  }
  /// The request line's target: the whole URL through a forwarding proxy.
  std::string request_target() const;

  /// Stores the head's cookies, and says what it means. `entity_body` is the request
  /// body when it is in memory ("" for none; Digest auth-int hashes it). Errors: a
  /// redirect that cannot be followed, a 401 that cannot be answered, a redirect the
  /// request refuses.
  Result<Verdict> on_head(int status, const Headers& headers,
                          std::optional<std::string_view> entity_body);
  /// The redirect on_head planned (only after Verdict::redirect): where it goes, and
  /// whether its hop sends the body again (307, 308).
  const RedirectStep& planned_redirect() const { return *next_hop_; }
  /// The drained redirect's next hop: URL, method, the credentials that stay (none
  /// across origins), the proxy. `body_left_behind`: the request had a body this hop
  /// does not send (its Content-Type goes with it). Errors as choose_proxy's.
  Result<void> follow_redirect(bool body_left_behind);
  /// The drained 401's hop goes again; the trace says with which scheme.
  void resend_authenticated();
  /// The 401's scheme, for the error when the body cannot be sent again.
  const std::string& challenge_scheme() const noexcept { return auth_.last_scheme(); }

  // The three resends, each bounded: a pooled connection that turned out dead (once,
  // idempotent methods only), a request the server says it did not process (twice),
  // early data the server refused (twice, without using the others).
  bool may_resend_after_dead_connection() const;
  void resent_after_dead_connection() { resent_after_dead_ = true; }
  bool may_resend_unprocessed() const;
  void resent_unprocessed() { ++unprocessed_resends_; }
  int unprocessed_resends() const noexcept { return unprocessed_resends_; }
  bool may_resend_early() const;
  void resent_early() { ++early_resends_; }

 private:
  /// http:// to a known HSTS host becomes https:// (port 80 becomes 443).
  void upgrade_by_hsts();
  void store_cookies(const Headers& headers);
  Result<void> choose_signing_scope();
  void add_signature(Headers& headers, std::optional<std::string_view> payload) const;
  void add_jar_cookies(Headers& headers) const;

  Context context_;
  const VersionPolicy version_;
  const RedirectPolicy redirect_policy_;
  Headers headers_;  // the request's own fields, less what a hop across origins drops
  Url url_;
  std::string method_;
  std::optional<ProxyHop> proxy_;
  int redirects_ = 0;
  std::optional<RedirectStep> next_hop_;  // planned by on_head, taken by follow_redirect
  // Digest and any: answers a 401 once (twice for a stale nonce). The answer is the
  // Authorization of the next send to this URL only.
  AuthRetry auth_;
  std::string auth_header_;
  // AWS SigV4: the key pair and scope text, dropped across origins like other
  // credentials; the scope as the current hop's host completes it.
  Authentication signing_;
  std::optional<AwsSigV4Scope> signing_scope_;
  std::function<std::chrono::system_clock::time_point()> wall_clock_;
  bool resent_after_dead_ = false;
  int unprocessed_resends_ = 0;
  int early_resends_ = 0;
};

}  // namespace sluice
