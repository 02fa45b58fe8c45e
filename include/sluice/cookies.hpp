#pragma once
/// @file
/// sluice::CookieJar: the cookie engine (RFC 6265bis). A Client given a jar
/// (ClientOptions::cookie_jar) sends the jar's cookies with every request and every
/// redirect hop, and stores the Set-Cookie fields of every response, redirects
/// included. Jars load and save the Netscape cookie file that curl reads and writes.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/error.hpp"
#include "sluice/export.h"
#include "sluice/url.hpp"

namespace sluice {

/// The SameSite attribute as the server gave it. Kept and reported, not enforced:
/// sluice makes no cross-site requests in a browser's sense.
enum class SameSite { unspecified, strict, lax, none };

/// One stored cookie. A plain value: copied out of the jar, never shared.
struct Cookie {
  std::string name;
  std::string value;
  /// Lower-case, without a leading dot. With host_only the host that set it,
  /// otherwise the Domain attribute (the cookie also goes to its subdomains).
  std::string domain;
  std::string path = "/";
  bool host_only = true;
  bool secure = false;
  bool http_only = false;
  SameSite same_site = SameSite::unspecified;
  /// When it expires; none for a session cookie (kept until the jar goes, or until
  /// CookieJar::remove_session_cookies, curl's -j).
  std::optional<std::chrono::system_clock::time_point> expires;
  /// When it was first stored (a replacement keeps the first one's): the header
  /// lists cookies of equal path length in this order.
  std::chrono::system_clock::time_point created{};
};

/// What CookieJar::set_cookie did with one Set-Cookie field.
struct SetCookieOutcome {
  enum class Kind { stored, removed, refused };
  Kind kind = Kind::refused;
  /// Why it was refused (a sentence for a trace), empty otherwise.
  std::string reason;
  bool stored() const noexcept { return kind == Kind::stored; }
};

struct CookieJarOptions {
  /// The wall clock expiry is measured against. Empty: std::chrono::system_clock.
  /// Tests pass a manual clock.
  std::function<std::chrono::system_clock::time_point()> clock;
  /// At most this many cookies per domain (RFC 6265 asks for at least 50) and in
  /// all; beyond them the oldest expired, then the least recently created go.
  std::size_t max_cookies_per_domain = 150;
  std::size_t max_cookies = 3000;
  /// Refuse cookies whose Domain is a public suffix ("com", "co.uk"), through
  /// libpsl's built-in list, unless the host is exactly that domain.
  bool refuse_public_suffixes = true;
};

/// A cookie store. Thread-safe: every member takes an internal mutex, so one jar can
/// be shared (std::shared_ptr) by several Clients, whose HTTP threads read and
/// update it, and by the program's threads at the same time. No callback runs under
/// the lock.
class SLUICE_API CookieJar {
 public:
  explicit CookieJar(CookieJarOptions options = {});
  CookieJar(const CookieJar&) = delete;
  CookieJar& operator=(const CookieJar&) = delete;

  /// Stores (or removes, or refuses) the cookie of one Set-Cookie field value that
  /// came in a response to `request_url` (RFC 6265bis section 5.6).
  SetCookieOutcome set_cookie(const Url& request_url, std::string_view set_cookie);

  /// The Cookie header value for a request to `url`: "a=1; b=2" (longer paths
  /// first, then older cookies first), or empty when no cookie applies. Secure
  /// cookies are set from and sent to https only, and to http on the loopback
  /// names localhost, 127.0.0.1 and ::1, as curl and browsers allow.
  std::string cookie_header(const Url& url) const;

  /// Stores a cookie as it is (a file's line, a program's own), replacing one of
  /// the same name, domain and path; an expired one removes it. Cookies no jar
  /// could hold are dropped: empty, over 4096 bytes, a control character or TAB,
  /// spaces around the name or value, an empty domain or one starting with '.', a
  /// path not starting with '/'.
  void insert(Cookie cookie);

  /// A copy of the cookies that have not expired, ordered by domain, path, name.
  std::vector<Cookie> cookies() const;
  std::size_t size() const;
  void clear();
  /// Drops cookies without an expiry (curl's -j, --junk-session-cookies).
  void remove_session_cookies();

  /// Adds the cookies of a file: the Netscape cookie file format curl writes
  /// (lines of 7 TAB-separated fields, "#HttpOnly_" before the domain of HttpOnly
  /// ones), or lines "Set-Cookie: ..." (curl reads those too; such cookies belong to
  /// the host of their Domain attribute). Lines that fit neither are skipped.
  /// `drop_session` leaves out cookies without an expiry. A file that cannot be
  /// read fails with ErrorCategory::io naming it.
  Result<void> load_file(const std::string& path, bool drop_session = false);
  /// The same for a file's contents.
  void load_text(std::string_view text, bool drop_session = false);
  /// Writes the jar as curl does (header comment, then one line per cookie, expired
  /// ones left out), to a temporary file beside `path` renamed over it, so a reader
  /// never sees half a file; the file is made readable by its owner only.
  Result<void> save_file(const std::string& path) const;
  /// The same text, for a program to store elsewhere.
  std::string to_netscape_text() const;

 private:
  std::chrono::system_clock::time_point now() const;
  void load_set_cookie_line(std::string_view field);
  void store_locked(Cookie cookie, std::chrono::system_clock::time_point now);
  void evict_locked(const std::string& domain, std::chrono::system_clock::time_point now);

  CookieJarOptions options_;
  mutable std::mutex mu_;
  std::vector<Cookie> cookies_;  // guarded by mu_
};

}  // namespace sluice
