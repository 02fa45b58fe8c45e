#pragma once
// Redirect rules, pure: which statuses redirect, how the method and body change,
// which headers must not follow the request to another origin.
// Any thread.

#include <optional>
#include <string>

#include "sluice/error.hpp"
#include "sluice/headers.hpp"
#include "sluice/request.hpp"
#include "sluice/url.hpp"

namespace sluice {

bool is_redirect_status(int status) noexcept;

struct RedirectStep {
  Url next;
  std::string method;      ///< GET after 303 (and after 301/302 for POST), else unchanged
  bool keep_body = false;  ///< 307/308 resend the body
  /// The Referer the next hop carries (RedirectPolicy::auto_referer): the URL it was
  /// redirected from, without credentials and fragment. nullopt: the request's own.
  std::optional<std::string> referer;
};

/// Decides the next hop of a redirect, or fails with a clear error: the Location is
/// missing or invalid, the limit is reached, or the hop would go from https to http.
Result<RedirectStep> plan_redirect(const Url& current, const std::string& method, int status,
                                   const Headers& response_headers, int redirects_so_far,
                                   const RedirectPolicy& policy);

/// Whether credentials go on from `from` to `to`: the same origin, or a policy that
/// trusts every hop (RedirectPolicy::credentials_to_other_origins).
bool credentials_follow(const Url& from, const Url& to, const RedirectPolicy& policy);

/// Removes credentials (Authorization, Cookie, Proxy-Authorization) when the next hop
/// leaves the origin, as curl and browsers do.
void drop_credentials_across_origins(const Url& from, const Url& to, Headers& headers);

}  // namespace sluice
