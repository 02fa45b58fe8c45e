// CookieJar's store and header rules (RFC 6265bis sections 5.7 and 5.8.3). The file
// format is in cookie_file.cpp, the parsing in cookie_parse.cpp.
#include <algorithm>
#include <tuple>

#include "sluice/cookies.hpp"
#include "web/cookie_match.hpp"
#include "web/cookie_parse.hpp"

namespace sluice {
namespace {

using SystemTime = std::chrono::system_clock::time_point;

// 6265bis caps every lifetime at 400 days; it also keeps time_points far from the
// limits of system_clock's 64-bit nanoseconds (year 2262).
constexpr std::chrono::seconds kMaxLifetime{400LL * 24 * 3600};

SetCookieOutcome refused(std::string reason) {
  return {SetCookieOutcome::Kind::refused, std::move(reason)};
}

bool expired(const Cookie& cookie, SystemTime now) {
  return cookie.expires && *cookie.expires <= now;
}

// Where Secure cookies may be set and sent: https, and the loopback names curl
// trusts the same way (localhost, 127.0.0.1, ::1), as browsers treat them as
// potentially trustworthy origins (6265bis "secure protocol").
bool secure_context(const Url& url) {
  if (url.is_https()) return true;
  const std::string host = lowercase_ascii(url.host);
  return host == "localhost" || host == "127.0.0.1" || host == "::1";
}

bool has_control(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
}

// What every stored cookie satisfies, whichever way it came in, so that the cookie
// file written from the jar always reads back the same (no TAB or line break in a
// field, a domain that keeps its meaning with curl's leading dot).
bool storable(const Cookie& cookie) {
  if (cookie.name.empty() && cookie.value.empty()) return false;
  if (cookie.name.size() + cookie.value.size() > kMaxCookieNameValueBytes) return false;
  if (cookie.domain.empty() || cookie.domain.front() == '.') return false;
  if (cookie.path.empty() || cookie.path.front() != '/') return false;
  // A Set-Cookie name or value is trimmed; one from a file must be too, or it
  // would end the Cookie header with whitespace.
  auto padded = [](std::string_view text) {
    return !text.empty() && (text.front() == ' ' || text.back() == ' ');
  };
  if (padded(cookie.name) || padded(cookie.value)) return false;
  return !has_control(cookie.name) && !has_control(cookie.value) && !has_control(cookie.domain) &&
         !has_control(cookie.path);
}

bool same_identity(const Cookie& a, const Cookie& b) {
  return a.name == b.name && a.domain == b.domain && a.host_only == b.host_only && a.path == b.path;
}

bool starts_with_ascii_nocase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && lowercase_ascii(text.substr(0, prefix.size())) == prefix;
}

// Expiry from Max-Age (which wins) or Expires, capped; nullopt: a session cookie.
std::optional<SystemTime> expiry_of(const ParsedSetCookie& parsed, SystemTime now) {
  if (parsed.max_age) {
    // <= 0: already expired, the way a server deletes a cookie.
    if (*parsed.max_age <= 0) return SystemTime{};
    return now +
           std::min<std::chrono::seconds>(std::chrono::seconds(*parsed.max_age), kMaxLifetime);
  }
  if (parsed.expires) {
    const std::int64_t cap =
        std::chrono::duration_cast<std::chrono::seconds>((now + kMaxLifetime).time_since_epoch())
            .count();
    const std::int64_t floor = 0;
    return SystemTime{std::chrono::seconds(std::clamp(*parsed.expires, floor, cap))};
  }
  return std::nullopt;
}

// The cookie name prefixes of 6265bis section 4.1.3, checked case-insensitively.
std::optional<std::string> prefix_violation(const Cookie& cookie) {
  const std::string_view name = cookie.name.empty() ? cookie.value : cookie.name;
  if (cookie.name.empty() &&
      (starts_with_ascii_nocase(name, "__secure-") || starts_with_ascii_nocase(name, "__host-"))) {
    return "a nameless cookie may not look like a prefixed name";
  }
  if (starts_with_ascii_nocase(name, "__secure-") && !cookie.secure) {
    return "a __Secure- cookie must be Secure";
  }
  if (starts_with_ascii_nocase(name, "__host-") &&
      (!cookie.secure || !cookie.host_only || cookie.path != "/")) {
    return "a __Host- cookie must be Secure, without Domain, with Path=/";
  }
  return std::nullopt;
}

}  // namespace

CookieJar::CookieJar(CookieJarOptions options) : options_(std::move(options)) {}

SystemTime CookieJar::now() const {
  return options_.clock ? options_.clock() : std::chrono::system_clock::now();
}

SetCookieOutcome CookieJar::set_cookie(const Url& request_url, std::string_view set_cookie) {
  auto parsed = parse_set_cookie(set_cookie);
  if (!parsed) return refused("malformed, too large, or with a control character");
  const SystemTime at = now();
  const std::string host = lowercase_ascii(request_url.host);
  const bool secure_origin = secure_context(request_url);
  Cookie cookie;
  cookie.name = std::move(parsed->name);
  cookie.value = std::move(parsed->value);
  cookie.domain = host;
  if (parsed->domain && *parsed->domain != host) {
    if (options_.refuse_public_suffixes && is_public_suffix(*parsed->domain)) {
      return refused("Domain=" + *parsed->domain + " is a public suffix");
    }
    if (!domain_matches(host, *parsed->domain)) {
      return refused("Domain=" + *parsed->domain + " does not match the host " + host);
    }
    cookie.domain = *parsed->domain;
    cookie.host_only = false;
  }
  cookie.path = parsed->path ? *parsed->path : default_cookie_path(request_url.path);
  cookie.secure = parsed->secure;
  cookie.http_only = parsed->http_only;
  cookie.same_site = parsed->same_site;
  cookie.expires = expiry_of(*parsed, at);
  cookie.created = at;
  if (cookie.secure && !secure_origin) return refused("a Secure cookie set over insecure http");
  if (cookie.same_site == SameSite::none && !cookie.secure) {
    return refused("SameSite=None without Secure");
  }
  if (auto violation = prefix_violation(cookie)) return refused(*violation);
  if (!storable(cookie)) return refused("a host, domain or path a cookie file cannot hold");

  std::lock_guard lock(mu_);
  if (!secure_origin) {
    // http may not shadow or overwrite a Secure cookie (6265bis "Leave Secure
    // cookies alone").
    for (const Cookie& old : cookies_) {
      if (old.secure && old.name == cookie.name &&
          (domain_matches(old.domain, cookie.domain) ||
           domain_matches(cookie.domain, old.domain)) &&
          path_matches(cookie.path, old.path)) {
        return refused("http may not overwrite the Secure cookie " + old.name);
      }
    }
  }
  const bool removes = expired(cookie, at);
  store_locked(std::move(cookie), at);
  return {removes ? SetCookieOutcome::Kind::removed : SetCookieOutcome::Kind::stored, {}};
}

void CookieJar::insert(Cookie cookie) {
  if (!storable(cookie)) return;
  const SystemTime at = now();
  if (cookie.created == SystemTime{}) cookie.created = at;
  std::lock_guard lock(mu_);
  store_locked(std::move(cookie), at);
}

// Replaces a cookie of the same identity (keeping its creation time and its place,
// so header order stays that of creation), drops it when the new one has expired,
// else appends; then enforces the count limits.
void CookieJar::store_locked(Cookie cookie, SystemTime now) {
  auto same = std::find_if(cookies_.begin(), cookies_.end(),
                           [&](const Cookie& old) { return same_identity(old, cookie); });
  if (expired(cookie, now)) {
    if (same != cookies_.end()) cookies_.erase(same);
    return;
  }
  if (same != cookies_.end()) {
    cookie.created = same->created;
    *same = std::move(cookie);
    return;
  }
  const std::string domain = cookie.domain;
  cookies_.push_back(std::move(cookie));
  evict_locked(domain, now);
}

// Expired cookies go first; then the oldest of the domain, then the oldest of all.
void CookieJar::evict_locked(const std::string& domain, SystemTime now) {
  auto in_domain = [&](const Cookie& c) { return c.domain == domain; };
  const auto domain_count =
      static_cast<std::size_t>(std::count_if(cookies_.begin(), cookies_.end(), in_domain));
  if (domain_count <= options_.max_cookies_per_domain && cookies_.size() <= options_.max_cookies)
    return;
  std::erase_if(cookies_, [&](const Cookie& c) { return expired(c, now); });
  auto oldest_where = [&](auto&& keep) {
    auto oldest = cookies_.end();
    for (auto it = cookies_.begin(); it != cookies_.end(); ++it) {
      if (keep(*it) && (oldest == cookies_.end() || it->created < oldest->created)) oldest = it;
    }
    if (oldest != cookies_.end()) cookies_.erase(oldest);
  };
  while (static_cast<std::size_t>(std::count_if(cookies_.begin(), cookies_.end(), in_domain)) >
         options_.max_cookies_per_domain) {
    oldest_where(in_domain);
  }
  while (cookies_.size() > options_.max_cookies) {
    oldest_where([](const Cookie&) { return true; });
  }
}

std::string CookieJar::cookie_header(const Url& url) const {
  const SystemTime at = now();
  const std::string host = lowercase_ascii(url.host);
  const bool secure = secure_context(url);
  std::vector<const Cookie*> chosen;
  std::lock_guard lock(mu_);
  for (const Cookie& cookie : cookies_) {
    const bool domain_ok =
        cookie.host_only ? host == cookie.domain : domain_matches(host, cookie.domain);
    if (!domain_ok || !path_matches(url.path, cookie.path) || expired(cookie, at)) continue;
    if (cookie.secure && !secure) continue;
    chosen.push_back(&cookie);
  }
  // Stable: cookies_ is in creation order, which breaks ties of path length.
  std::stable_sort(chosen.begin(), chosen.end(), [](const Cookie* a, const Cookie* b) {
    if (a->path.size() != b->path.size()) return a->path.size() > b->path.size();
    return a->created < b->created;
  });
  std::string header;
  for (const Cookie* cookie : chosen) {
    if (!header.empty()) header += "; ";
    if (!cookie->name.empty()) {
      header += cookie->name;
      header += '=';
    }
    header += cookie->value;
  }
  return header;
}

std::vector<Cookie> CookieJar::cookies() const {
  const SystemTime at = now();
  std::vector<Cookie> out;
  {
    std::lock_guard lock(mu_);
    for (const Cookie& cookie : cookies_) {
      if (!expired(cookie, at)) out.push_back(cookie);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Cookie& a, const Cookie& b) {
    return std::tie(a.domain, a.path, a.name) < std::tie(b.domain, b.path, b.name);
  });
  return out;
}

std::size_t CookieJar::size() const {
  const SystemTime at = now();
  std::lock_guard lock(mu_);
  return static_cast<std::size_t>(std::count_if(cookies_.begin(), cookies_.end(),
                                                [&](const Cookie& c) { return !expired(c, at); }));
}

void CookieJar::clear() {
  std::lock_guard lock(mu_);
  cookies_.clear();
}

void CookieJar::remove_session_cookies() {
  std::lock_guard lock(mu_);
  std::erase_if(cookies_, [](const Cookie& c) { return !c.expires; });
}

}  // namespace sluice
