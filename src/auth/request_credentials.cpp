#include "auth/request_credentials.hpp"

#include "auth/credentials.hpp"

namespace sluice {
namespace {

// The schemes that take the URL's or the netrc file's credentials for their own use
// (Basic would send them as the URL's Basic anyway).
bool answers_challenges(Authentication::Scheme scheme) {
  return scheme == Authentication::Scheme::digest || scheme == Authentication::Scheme::any ||
         scheme == Authentication::Scheme::aws_sigv4;
}

}  // namespace

Result<void> choose_credentials(Request& request, Url& url, const std::optional<Netrc>& netrc,
                                NetrcMode mode) {
  Authentication& auth = request.auth;
  const bool open =
      (auth.scheme == Authentication::Scheme::none || answers_challenges(auth.scheme)) &&
      auth.user.empty() && auth.password.empty() && !request.headers.contains("authorization");
  if (!open) return {};
  std::optional<std::pair<std::string, std::string>> from_url;
  if (!url.userinfo.empty()) {
    from_url = user_and_password(url.userinfo);
    if (!from_url) {
      return Error(ErrorCode::bad_url, "URL: the user name or password has a malformed %-escape");
    }
  }
  const bool url_has_password = url.userinfo.find(':') != std::string::npos;
  if (netrc && !(mode == NetrcMode::optional && from_url && url_has_password)) {
    std::optional<std::string_view> user;
    if (from_url && !from_url->first.empty()) user = from_url->first;
    if (auto found = netrc->find(url.host, user)) {
      auth.user = std::move(found->login);
      auth.password = std::move(found->password);
      if (auth.scheme == Authentication::Scheme::none) auth.scheme = Authentication::Scheme::basic;
      url = url.without_credentials();
      return {};
    }
    if (mode == NetrcMode::required) {
      url = url.without_credentials();
      return {};
    }
  }
  if (answers_challenges(auth.scheme) && from_url) {
    auth.user = std::move(from_url->first);
    auth.password = std::move(from_url->second);
    url = url.without_credentials();
  }
  return {};
}

}  // namespace sluice
