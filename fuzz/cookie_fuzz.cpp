// Fuzz target: the cookie engine (src/web/cookie_*): Set-Cookie values through
// CookieJar::set_cookie (parser, date algorithm, domain and path rules, libpsl,
// prefixes, eviction), or a cookie file through CookieJar::load_text.
// Input: a flags byte (bit 0: the request is https; bit 1: the rest is a cookie file,
// else Set-Cookie values one per line; bit 2: drop session cookies when loading;
// bits 3-7: the per-domain limit, so eviction runs), then a line with the request's
// host and path ("h.example/a/b"; "h.example/" when it does not parse), then the rest.
// The clock is fixed and moved a second per Set-Cookie line by a '\x01' line.
// Invariants: every stored cookie is one a cookie file can hold (no control byte or
// TAB, a domain without a leading dot, a path from '/', 4096 bytes at most); over
// insecure http (not https, not a loopback name) no Secure cookie is stored; the Cookie header built for the URL is a valid
// header value; the jar's Netscape text reads back into the same text; the jar
// never holds more than the limits.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "sluice/cookies.hpp"
#include "sluice/headers.hpp"
#include "sluice/url.hpp"

namespace {

using sluice::fuzz::check;
using SystemTime = std::chrono::system_clock::time_point;

bool clean(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
  }
  return true;
}

sluice::Url request_url(bool https, std::string_view line) {
  const std::string scheme = https ? "https://" : "http://";
  auto url = sluice::Url::parse(scheme + std::string(line));
  if (url) return *url;
  return *sluice::Url::parse(scheme + "h.example/");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sluice::fuzz::FuzzInput input(data, size);
  const std::uint8_t flags = input.byte();
  const bool https = (flags & 1) != 0;
  const bool file_mode = (flags & 2) != 0;
  const bool drop_session = (flags & 4) != 0;
  const sluice::Url url = request_url(https, input.line());
  const bool secure =
      https || url.host == "localhost" || url.host == "127.0.0.1" || url.host == "::1";

  SystemTime now{std::chrono::seconds(1'700'000'000)};
  sluice::CookieJarOptions options;
  options.clock = [&now] { return now; };
  options.max_cookies_per_domain = 1 + (flags >> 3);
  options.max_cookies = 2 * options.max_cookies_per_domain;
  sluice::CookieJar jar(options);

  if (file_mode) {
    jar.load_text(input.rest(), drop_session);
  } else {
    while (!input.empty()) {
      const std::string_view line = input.line();
      if (line == "\x01") {
        now += std::chrono::seconds(1);
        continue;
      }
      (void)jar.set_cookie(url, line);
    }
  }

  const auto cookies = jar.cookies();
  check(cookies.size() <= options.max_cookies, "the jar keeps within max_cookies");
  for (const sluice::Cookie& cookie : cookies) {
    check(clean(cookie.name) && clean(cookie.value) && clean(cookie.domain) && clean(cookie.path),
          "stored cookies hold no control byte or TAB");
    check(!cookie.domain.empty() && cookie.domain.front() != '.', "a domain without a leading dot");
    check(!cookie.path.empty() && cookie.path.front() == '/', "a path starting with '/'");
    check(cookie.name.size() + cookie.value.size() <= 4096, "name and value within 4096 bytes");
    if (!file_mode)
      check(secure || !cookie.secure, "no Secure cookie is stored from insecure http");
    if (file_mode && drop_session) check(cookie.expires.has_value(), "-j leaves no session cookie");
  }
  const std::string header = jar.cookie_header(url);
  check(sluice::validate_header_value(header).ok(), "the Cookie header is a valid field value");

  const std::string text = jar.to_netscape_text();
  sluice::CookieJar again(options);
  again.load_text(text);
  check(again.to_netscape_text() == text, "the cookie file reads back the same");
  return 0;
}
