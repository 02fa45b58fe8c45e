// CookieJar's files: the Netscape cookie file format that curl (and wget, and the
// browsers' export add-ons) read and write, plus curl's "Set-Cookie:" line files.
//   domain <TAB> TRUE|FALSE (subdomains too) <TAB> path <TAB> TRUE|FALSE (Secure)
//   <TAB> expiry (epoch seconds, 0 = session) <TAB> name <TAB> value
// "#HttpOnly_" before the domain marks HttpOnly cookies; other '#' lines are comments.
#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/state_file.hpp"
#include "sluice/cookies.hpp"
#include "web/cookie_match.hpp"
#include "web/cookie_parse.hpp"

namespace sluice {
namespace {

using SystemTime = std::chrono::system_clock::time_point;

constexpr std::string_view kHttpOnlyPrefix = "#HttpOnly_";

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t tab = line.find('\t');
    fields.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) break;
    line.remove_prefix(tab + 1);
  }
  return fields;
}

// One Netscape line into a cookie; nullopt for anything else. curl also takes six
// fields (an empty value written without its TAB by old tools).
std::optional<Cookie> parse_netscape_line(std::string_view line) {
  Cookie cookie;
  if (line.starts_with(kHttpOnlyPrefix)) {
    cookie.http_only = true;
    line.remove_prefix(kHttpOnlyPrefix.size());
  } else if (line.starts_with('#')) {
    return std::nullopt;
  }
  const auto fields = split_tabs(line);
  if (fields.size() != 7 && fields.size() != 6) return std::nullopt;
  std::string_view domain = fields[0];
  if (domain.starts_with('.')) domain.remove_prefix(1);
  if (domain.empty() || fields[2].empty() || fields[2].front() != '/') return std::nullopt;
  std::int64_t expiry = 0;
  const auto [end, ec] =
      std::from_chars(fields[4].data(), fields[4].data() + fields[4].size(), expiry);
  if (ec != std::errc{} || end != fields[4].data() + fields[4].size() || expiry < 0) {
    return std::nullopt;
  }
  cookie.domain = lowercase_ascii(domain);
  cookie.host_only = fields[1] != "TRUE";
  cookie.path = std::string(fields[2]);
  cookie.secure = fields[3] == "TRUE";
  // Far-future expiries (curl writes 2^63-1 for "never") are clamped to fit the clock.
  constexpr std::int64_t kLatest = 7258118400;  // 2200-01-01: system_clock (ns) ends in 2262
  if (expiry != 0) cookie.expires = SystemTime{std::chrono::seconds(std::min(expiry, kLatest))};
  cookie.name = std::string(fields[5]);
  if (fields.size() == 7) cookie.value = std::string(fields[6]);
  return cookie;  // insert() refuses what a jar cannot hold
}

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && lowercase_ascii(text.substr(0, prefix.size())) == prefix;
}

void append_line(std::string& out, const Cookie& cookie) {
  if (cookie.http_only) out += kHttpOnlyPrefix;
  // curl writes a leading dot for cookies that also go to subdomains.
  if (!cookie.host_only) out += '.';
  out += cookie.domain;
  out += cookie.host_only ? "\tFALSE\t" : "\tTRUE\t";
  out += cookie.path;
  out += cookie.secure ? "\tTRUE\t" : "\tFALSE\t";
  out += cookie.expires ? std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                             cookie.expires->time_since_epoch())
                                             .count())
                        : "0";
  out += '\t';
  out += cookie.name;
  out += '\t';
  out += cookie.value;
  out += '\n';
}

}  // namespace

// A file has no request URL: such a cookie counts as sent by a host inside its
// Domain (over https), so it goes to the whole domain, and the store's rules (public
// suffixes, prefixes, expiry) still apply. Without a Domain it has no host: skipped.
void CookieJar::load_set_cookie_line(std::string_view field) {
  auto parsed = parse_set_cookie(field);
  if (!parsed || !parsed->domain) return;
  Url origin;
  origin.scheme = "https";
  origin.host = "cookie-file." + *parsed->domain;
  origin.port = 443;
  origin.path = "/";
  (void)set_cookie(origin, field);
}

void CookieJar::load_text(std::string_view text, bool drop_session) {
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (starts_with_nocase(line, "set-cookie:")) {
      line.remove_prefix(11);
      load_set_cookie_line(line);
      continue;
    }
    auto cookie = parse_netscape_line(line);
    if (!cookie || (drop_session && !cookie->expires)) continue;
    insert(std::move(*cookie));
  }
  if (drop_session) remove_session_cookies();
}

Result<void> CookieJar::load_file(const std::string& path, bool drop_session) {
  auto text = read_state_file("cookie file", path);
  if (!text) return std::move(text).error();
  if (!*text) {
    return Error(ErrorCategory::io,
                 "cookie file: cannot read '" + path + "': " + std::strerror(ENOENT));
  }
  load_text(**text, drop_session);
  return {};
}

std::string CookieJar::to_netscape_text() const {
  std::string out =
      "# Netscape HTTP Cookie File\n"
      "# https://curl.se/docs/http-cookies.html\n"
      "# This file was generated by sluice. Edit at your own risk.\n\n";
  for (const Cookie& cookie : cookies()) append_line(out, cookie);
  return out;
}

// Cookies are credentials: the file is 0600 (replace_state_file).
Result<void> CookieJar::save_file(const std::string& path) const {
  return replace_state_file("cookie file", path, to_netscape_text());
}

}  // namespace sluice
