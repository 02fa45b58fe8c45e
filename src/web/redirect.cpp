#include "web/redirect.hpp"

#include <algorithm>

namespace sluice {

bool is_redirect_status(int status) noexcept {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

namespace {

bool keeps_post(int status, const RedirectPolicy& policy) noexcept {
  switch (status) {
    case 301: return policy.keep_post_on_301;
    case 302: return policy.keep_post_on_302;
    case 303: return policy.keep_post_on_303;
    default: return false;
  }
}

// curl's CURLOPT_AUTOREFERER: the URL as it was, less what must not leak to the next
// server (credentials; the fragment is never sent anyway).
std::string referer_for(const Url& from) {
  Url shown = from.without_credentials();
  shown.fragment.clear();
  return shown.to_string();
}

}  // namespace

Result<RedirectStep> plan_redirect(const Url& current, const std::string& method, int status,
                                   const Headers& response_headers, int redirects_so_far,
                                   const RedirectPolicy& policy) {
  auto location = response_headers.get("location");
  if (!location) {
    return Error(ErrorCategory::protocol, "redirect: " + std::to_string(status) +
                                              " response from " + current.origin() +
                                              " has no Location header");
  }
  if (redirects_so_far >= policy.max_redirects) {
    return Error(ErrorCode::too_many_redirects,
                 "redirect: more than " + std::to_string(policy.max_redirects) +
                     " redirects (raise --max-redirs if this is expected)");
  }
  auto next = current.resolve(*location);
  if (!next) {
    return Error(ErrorCategory::protocol, "redirect: invalid Location '" + std::string(*location) +
                                              "': " + next.error().message());
  }
  if (current.is_https() && !next->is_https() && !policy.allow_https_to_http) {
    return Error(ErrorCode::insecure_redirect,
                 "redirect: refusing to follow https URL " + current.to_string() + " to insecure " +
                     next->to_string() + " (allow it with --proto-redir =http,https)");
  }
  if (!(next->is_https() ? policy.follow_to_https : policy.follow_to_http)) {
    return Error(ErrorCode::insecure_redirect,
                 "redirect: refusing to follow " + current.to_string() + " to " +
                     next->to_string() + ": the request does not allow " + next->scheme +
                     " redirects (--proto-redir)");
  }
  if (std::find(policy.refused_ports.begin(), policy.refused_ports.end(), next->port) !=
      policy.refused_ports.end()) {
    return Error(ErrorCode::redirect_refused,
                 "redirect: refusing to follow " + current.to_string() + " to " +
                     next->to_string() + ": port " + std::to_string(next->port) +
                     " is one the request refuses (fetch's bad ports)");
  }
  RedirectStep step{std::move(*next), method, false, std::nullopt};
  if (policy.auto_referer) step.referer = referer_for(current);
  if (method == "POST" && keeps_post(status, policy)) {
    step.keep_body = true;
  } else if (status == 303) {
    if (method != "HEAD") step.method = "GET";
  } else if ((status == 301 || status == 302) && method == "POST") {
    step.method = "GET";  // what every browser and curl does, though RFC 9110 allows keeping it
  } else if (status == 307 || status == 308) {
    step.keep_body = true;
  }
  return step;
}

bool credentials_follow(const Url& from, const Url& to, const RedirectPolicy& policy) {
  return policy.credentials_to_other_origins || from.origin() == to.origin();
}

void drop_credentials_across_origins(const Url& from, const Url& to, Headers& headers) {
  if (from.origin() == to.origin()) return;
  headers.remove("authorization");
  headers.remove("cookie");
  headers.remove("proxy-authorization");
}

}  // namespace sluice
