#include "download/download_sources.hpp"

#include "auth/credentials.hpp"
#include "sluice/url.hpp"
#include "web/redirect.hpp"

namespace sluice {

namespace {

// The user and password of the URL the caller gave: Client::fetch makes them the
// request's credentials and takes them out of the URL, so the effective URL a range
// asks for has lost them. An explicit user (Request::auth), a token or an
// Authorization field wins over them, as it wins in Client::fetch.
void keep_url_credentials(Request& request, const Url& asked) {
  Authentication& auth = request.auth;
  if (asked.userinfo.empty() || request.headers.contains("authorization") || !auth.user.empty() ||
      !auth.password.empty() || auth.scheme == Authentication::Scheme::bearer) {
    return;
  }
  auto credentials = user_and_password(asked.userinfo);
  if (!credentials) return;  // Client::fetch refused the URL before any range was planned
  if (auth.scheme == Authentication::Scheme::none) auth.scheme = Authentication::Scheme::basic;
  auth.user = std::move(credentials->first);
  auth.password = std::move(credentials->second);
}

// `base` sent to `url`: credentials (auth, Authorization, Cookie) only when `url` is
// on the origin of `asked`, the URL the caller gave, as across a redirect, or when
// `trusted` (the primary's redirect target, followed with
// RedirectPolicy::credentials_to_other_origins).
Request request_to(const Request& base, const Url& asked, const std::string& url, bool trusted) {
  Request request = base;
  request.url = url;
  // download() checked every URL before it began, and a redirect's target parsed.
  const Url to = Url::parse(url).value();
  if (asked.origin() != to.origin() && !trusted) {
    request.auth = Authentication{};
    drop_credentials_across_origins(asked, to, request.headers);
    return request;
  }
  keep_url_credentials(request, asked);
  return request;
}

}  // namespace

DownloadSources::DownloadSources(const Request& primary, const std::string& asked_url,
                                 const std::vector<std::string>& mirrors) {
  const Url asked = Url::parse(asked_url).value();
  // The primary too: its URL is the redirect's target, maybe on another origin.
  const bool trusted = primary.redirects.credentials_to_other_origins;
  sources_.push_back(Source{request_to(primary, asked, primary.url, trusted), 0, false, {}});
  // A mirror is no redirect the user trusted: it gets them only on the URL's origin.
  for (const std::string& mirror : mirrors) {
    sources_.push_back(Source{request_to(primary, asked, mirror, false), 0, false, {}});
  }
}

Request DownloadSources::request_for(std::size_t source) const { return sources_[source].request; }

std::size_t DownloadSources::live_from(std::size_t source) const {
  std::lock_guard lock(mu_);
  return live_from_locked(source);
}

std::size_t DownloadSources::live_from_locked(std::size_t source) const {
  return first_live_locked(source, nullptr).value_or(0);
}

std::optional<std::size_t> DownloadSources::first_live_locked(std::size_t start,
                                                              const std::vector<bool>* left) const {
  for (std::size_t step = 0; step < sources_.size(); ++step) {
    const std::size_t candidate = (start + step) % sources_.size();
    if (!sources_[candidate].dropped && (left == nullptr || !(*left)[candidate])) return candidate;
  }
  return std::nullopt;
}

std::size_t DownloadSources::drop(std::size_t source, std::string why) {
  std::lock_guard lock(mu_);
  Source& dropped = sources_[source];
  if (is_mirror(source) && !dropped.dropped) {
    dropped.dropped = true;
    dropped.why = std::move(why);
  }
  return live_from_locked(source);
}

std::optional<std::size_t> DownloadSources::next_for_range(std::size_t from,
                                                           const std::vector<bool>& left) const {
  std::lock_guard lock(mu_);
  return first_live_locked(from + 1, &left);
}

void DownloadSources::note_move(std::string text) {
  std::lock_guard lock(mu_);
  moves_.push_back(std::move(text));
}

std::vector<std::string> DownloadSources::moves() const {
  std::lock_guard lock(mu_);
  return moves_;
}

void DownloadSources::count_written(std::size_t source, std::uint64_t bytes) {
  std::lock_guard lock(mu_);
  sources_[source].written += bytes;
}

std::vector<DownloadSourceReport> DownloadSources::reports() const {
  std::lock_guard lock(mu_);
  std::vector<DownloadSourceReport> out;
  for (const Source& source : sources_) {
    out.push_back(DownloadSourceReport{source.request.url, source.written, source.why});
  }
  return out;
}

}  // namespace sluice
