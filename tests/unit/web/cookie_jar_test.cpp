// CookieJar's store and header rules, with a manual clock (no test sleeps).
#include <gtest/gtest.h>

#include "sluice/cookies.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using SystemTime = std::chrono::system_clock::time_point;

Url url(const char* text) { return Url::parse(text).value(); }

// A jar whose clock only moves when the test moves it.
struct ManualJar {
  SystemTime now = SystemTime{std::chrono::seconds(1'700'000'000)};
  CookieJar jar;
  explicit ManualJar(CookieJarOptions options = {})
      : jar([&] {
          options.clock = [this] { return now; };
          return options;
        }()) {}
};

TEST(CookieJar, HostOnlyCookieGoesToItsHostAlone) {
  CookieJar jar;
  EXPECT_TRUE(jar.set_cookie(url("http://example.com/"), "a=1").stored());
  EXPECT_EQ(jar.cookie_header(url("http://example.com/x")), "a=1");
  EXPECT_EQ(jar.cookie_header(url("http://www.example.com/")), "");
  EXPECT_TRUE(jar.cookies().front().host_only);
}

TEST(CookieJar, DomainCookieGoesToSubdomainsAndForeignDomainsAreRefused) {
  CookieJar jar;
  EXPECT_TRUE(jar.set_cookie(url("http://www.example.com/"), "a=1; Domain=.example.com").stored());
  EXPECT_EQ(jar.cookie_header(url("http://example.com/")), "a=1");
  EXPECT_EQ(jar.cookie_header(url("http://deep.www.example.com/")), "a=1");
  EXPECT_EQ(jar.cookie_header(url("http://notexample.com/")), "");
  auto foreign = jar.set_cookie(url("http://www.example.com/"), "b=2; Domain=other.com");
  EXPECT_EQ(foreign.kind, SetCookieOutcome::Kind::refused);
  EXPECT_NE(foreign.reason.find("does not match"), std::string::npos);
  EXPECT_FALSE(jar.set_cookie(url("http://example.com/"), "c=3; Domain=www.example.com").stored());
  EXPECT_FALSE(jar.set_cookie(url("http://10.0.0.1/"), "d=4; Domain=0.0.1").stored());
}

TEST(CookieJar, PublicSuffixDomainsAreRefusedUnlessTheHostIsIt) {
  CookieJar jar;
  auto outcome = jar.set_cookie(url("http://shop.example.co.uk/"), "a=1; Domain=co.uk");
  EXPECT_EQ(outcome.kind, SetCookieOutcome::Kind::refused);
  EXPECT_NE(outcome.reason.find("public suffix"), std::string::npos);
  EXPECT_FALSE(jar.set_cookie(url("http://example.com/"), "a=1; Domain=com").stored());
  // The host itself may: the cookie is then host-only.
  EXPECT_TRUE(jar.set_cookie(url("http://co.uk/"), "b=2; Domain=co.uk").stored());
  EXPECT_TRUE(jar.cookies().front().host_only);
  EXPECT_EQ(jar.cookie_header(url("http://x.co.uk/")), "");
}

TEST(CookieJar, PathDefaultsAndMatches) {
  CookieJar jar;
  ASSERT_TRUE(jar.set_cookie(url("http://h.example/app/login"), "d=1").stored());
  ASSERT_TRUE(jar.set_cookie(url("http://h.example/"), "p=2; Path=/app/admin").stored());
  EXPECT_EQ(jar.cookies().front().path, "/app");
  EXPECT_EQ(jar.cookie_header(url("http://h.example/app")), "d=1");
  EXPECT_EQ(jar.cookie_header(url("http://h.example/application")), "");
  EXPECT_EQ(jar.cookie_header(url("http://h.example/app/admin/x")), "p=2; d=1");
}

TEST(CookieJar, HeaderOrderIsLongerPathThenOlder) {
  ManualJar m;
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "first=1; Path=/").stored());
  m.now += 1s;
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "second=2; Path=/").stored());
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "deep=3; Path=/a/b").stored());
  m.now += 1s;
  // A replacement keeps its creation time, so its place.
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "first=new; Path=/").stored());
  EXPECT_EQ(m.jar.cookie_header(url("http://h.example/a/b/c")), "deep=3; first=new; second=2");
}

TEST(CookieJar, SecureCookiesNeedHttpsBothWays) {
  CookieJar jar;
  EXPECT_FALSE(jar.set_cookie(url("http://h.example/"), "s=1; Secure").stored());
  ASSERT_TRUE(jar.set_cookie(url("https://h.example/"), "s=1; Secure").stored());
  EXPECT_EQ(jar.cookie_header(url("https://h.example/")), "s=1");
  EXPECT_EQ(jar.cookie_header(url("http://h.example/")), "");
  // http may neither overwrite nor shadow it.
  EXPECT_FALSE(jar.set_cookie(url("http://h.example/"), "s=evil").stored());
  EXPECT_FALSE(jar.set_cookie(url("http://h.example/"), "s=evil; Path=/sub").stored());
  EXPECT_EQ(jar.cookie_header(url("https://h.example/sub")), "s=1");
}

// 6265bis "Leave Secure cookies alone" whichever way http comes at it: a Domain
// that covers the Secure cookie's host, a path under its path, or an expiry that
// would delete it. (A shorter path, Path=/ here, is allowed by the draft: it neither
// replaces it nor comes first in the header.) Other names and hosts are not in the way.
TEST(CookieJar, HttpCannotReplaceShadowOrDeleteASecureCookie) {
  CookieJar jar;
  ASSERT_TRUE(jar.set_cookie(url("https://www.h.example/a/"), "s=1; Secure; Path=/a").stored());
  const Url http = url("http://www.h.example/a/b");
  for (const char* attack :
       {"s=evil", "s=evil; Domain=h.example", "s=evil; Path=/a/b", "s=; Max-Age=0",
        "s=evil; Path=/a; Domain=www.h.example", "s=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"}) {
    SCOPED_TRACE(attack);
    const SetCookieOutcome outcome = jar.set_cookie(http, attack);
    EXPECT_EQ(outcome.kind, SetCookieOutcome::Kind::refused);
    EXPECT_EQ(outcome.reason, "http may not overwrite the Secure cookie s");
  }
  EXPECT_EQ(jar.size(), 1u);
  EXPECT_EQ(jar.cookie_header(url("https://www.h.example/a/b")), "s=1");
  EXPECT_TRUE(jar.set_cookie(http, "t=1").stored());
  EXPECT_TRUE(jar.set_cookie(url("http://other.example/a"), "s=1").stored());
  // https itself may replace it.
  EXPECT_TRUE(jar.set_cookie(url("https://www.h.example/a/"), "s=2; Secure; Path=/a").stored());
  EXPECT_EQ(jar.cookie_header(url("https://www.h.example/a/b")), "s=2; t=1");
}

TEST(CookieJar, LoopbackNamesCountAsSecureAsInCurl) {
  CookieJar jar;
  EXPECT_TRUE(jar.set_cookie(url("http://localhost:8080/"), "s=1; Secure").stored());
  EXPECT_TRUE(jar.set_cookie(url("http://127.0.0.1/"), "s=2; Secure").stored());
  EXPECT_EQ(jar.cookie_header(url("http://localhost/")), "s=1");
  EXPECT_EQ(jar.cookie_header(url("http://127.0.0.1/")), "s=2");
  EXPECT_FALSE(jar.set_cookie(url("http://127.0.0.2/"), "s=3; Secure").stored());
}

TEST(CookieJar, HttpOnlyAndSameSiteAreKept) {
  CookieJar jar;
  ASSERT_TRUE(jar.set_cookie(url("https://h.example/"), "a=1; HttpOnly; SameSite=Strict").stored());
  const Cookie cookie = jar.cookies().front();
  EXPECT_TRUE(cookie.http_only);
  EXPECT_EQ(cookie.same_site, SameSite::strict);
  EXPECT_EQ(jar.cookie_header(url("https://h.example/")), "a=1");
  EXPECT_FALSE(jar.set_cookie(url("https://h.example/"), "b=1; SameSite=None").stored());
  EXPECT_TRUE(jar.set_cookie(url("https://h.example/"), "b=1; SameSite=None; Secure").stored());
}

TEST(CookieJar, NamePrefixesAreEnforced) {
  CookieJar jar;
  const Url https = url("https://www.h.example/");
  EXPECT_FALSE(jar.set_cookie(https, "__Secure-a=1").stored());
  EXPECT_FALSE(jar.set_cookie(url("http://www.h.example/"), "__Secure-a=1; Secure").stored());
  EXPECT_TRUE(jar.set_cookie(https, "__Secure-a=1; Secure; Domain=h.example").stored());
  EXPECT_FALSE(jar.set_cookie(https, "__Host-b=1; Secure; Path=/; Domain=h.example").stored());
  EXPECT_FALSE(jar.set_cookie(https, "__Host-b=1; Secure; Path=/x").stored());
  EXPECT_FALSE(jar.set_cookie(https, "__host-b=1; Path=/").stored());
  EXPECT_TRUE(jar.set_cookie(https, "__Host-b=1; Secure; Path=/").stored());
  EXPECT_EQ(jar.size(), 2u);
}

TEST(CookieJar, ExpiresAndMaxAgeFollowTheClock) {
  ManualJar m;
  ASSERT_TRUE(
      m.jar.set_cookie(url("http://h.example/"), "e=1; Expires=Tue, 14 Nov 2023 22:14:00 GMT")
          .stored());
  // Max-Age wins over Expires, whichever comes first.
  ASSERT_TRUE(m.jar
                  .set_cookie(url("http://h.example/"),
                              "m=2; Max-Age=10; Expires=Thu, 01 Jan 1970 00:00:00 GMT")
                  .stored());
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "s=3").stored());
  EXPECT_EQ(m.jar.cookie_header(url("http://h.example/")), "e=1; m=2; s=3");
  m.now += 10s;  // 1'700'000'010: m expires, e (1'700'000'040) not yet
  EXPECT_EQ(m.jar.cookie_header(url("http://h.example/")), "e=1; s=3");
  m.now += 30s;
  EXPECT_EQ(m.jar.cookie_header(url("http://h.example/")), "s=3");
  EXPECT_EQ(m.jar.size(), 1u);
}

TEST(CookieJar, ZeroMaxAgeOrPastExpiresDeletes) {
  ManualJar m;
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "a=1").stored());
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "b=1").stored());
  EXPECT_EQ(m.jar.set_cookie(url("http://h.example/"), "a=; Max-Age=0").kind,
            SetCookieOutcome::Kind::removed);
  EXPECT_EQ(
      m.jar.set_cookie(url("http://h.example/"), "b=; Expires=Thu, 01 Jan 1970 00:00:01 GMT").kind,
      SetCookieOutcome::Kind::removed);
  EXPECT_EQ(m.jar.size(), 0u);
}

TEST(CookieJar, LifetimesAreCappedAt400Days) {
  ManualJar m;
  ASSERT_TRUE(m.jar.set_cookie(url("http://h.example/"), "a=1; Max-Age=999999999999").stored());
  ASSERT_TRUE(
      m.jar.set_cookie(url("http://h.example/"), "b=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT")
          .stored());
  for (const Cookie& cookie : m.jar.cookies()) {
    EXPECT_EQ(*cookie.expires, m.now + std::chrono::hours(24 * 400)) << cookie.name;
  }
}

TEST(CookieJar, EvictsTheOldestBeyondTheLimits) {
  CookieJarOptions options;
  options.max_cookies_per_domain = 3;
  options.max_cookies = 4;
  ManualJar m(options);
  for (const char* name : {"a", "b", "c", "d"}) {
    ASSERT_TRUE(m.jar.set_cookie(url("http://one.example/"), std::string(name) + "=1").stored());
    m.now += 1s;
  }
  EXPECT_EQ(m.jar.cookie_header(url("http://one.example/")), "b=1; c=1; d=1");
  ASSERT_TRUE(m.jar.set_cookie(url("http://two.example/"), "x=1").stored());
  m.now += 1s;
  ASSERT_TRUE(m.jar.set_cookie(url("http://two.example/"), "y=1").stored());
  EXPECT_EQ(m.jar.size(), 4u);
  EXPECT_EQ(m.jar.cookie_header(url("http://one.example/")), "c=1; d=1");
}

TEST(CookieJar, RemovesSessionCookies) {
  CookieJar jar;
  ASSERT_TRUE(jar.set_cookie(url("http://h.example/"), "session=1").stored());
  ASSERT_TRUE(jar.set_cookie(url("http://h.example/"), "kept=1; Max-Age=100").stored());
  jar.remove_session_cookies();
  EXPECT_EQ(jar.cookie_header(url("http://h.example/")), "kept=1");
}

}  // namespace
}  // namespace sluice
