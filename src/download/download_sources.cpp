#include "download/download_sources.hpp"

#include "sluice/url.hpp"
#include "web/redirect.hpp"

namespace sluice {

namespace {

// `base` sent to `url`: credentials (auth, Authorization, Cookie) only when `url` is
// on the origin of `asked`, the URL the caller gave, as across a redirect, or when
// `trusted` (the primary's redirect target, followed with
// RedirectPolicy::credentials_to_other_origins). Then `url` takes the user:password of
// `asked` too, unless it has its own: the effective URL has lost them, and
// Client::send weighs them against the request's own credentials and the netrc
// file's for each range exactly as it did for the first request.
Request request_to(const Request& base, const Url& asked, const std::string& url, bool trusted) {
  Request request = base;
  request.url = url;
  // download() checked every URL before it began, and a redirect's target parsed.
  Url to = Url::parse(url).value();
  if (asked.origin() != to.origin() && !trusted) {
    request.auth = Authentication{};
    drop_credentials_across_origins(asked, to, request.headers);
    return request;
  }
  if (to.userinfo.empty() && !asked.userinfo.empty()) {
    to.userinfo = asked.userinfo;
    request.url = to.to_string();
  }
  return request;
}

}  // namespace

DownloadSources::DownloadSources(const Request& primary, const std::string& asked_url,
                                 const std::vector<std::string>& mirrors) {
  const Url asked = Url::parse(asked_url).value();
  // The primary too: its URL is the redirect's target, maybe on another origin.
  const bool trusted = primary.redirects.credentials_to_other_origins;
  const auto add = [&](const std::string& url, bool trusted_url) {
    sources_.push_back(Source{
        request_to(primary, asked, url, trusted_url), url_without_credentials(url), 0, false, {}});
  };
  add(primary.url, trusted);
  // A mirror is no redirect the user trusted: it gets them only on the URL's origin.
  for (const std::string& mirror : mirrors) add(mirror, false);
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
    out.push_back(DownloadSourceReport{source.shown_url, source.written, source.why});
  }
  return out;
}

}  // namespace sluice
