// Set-Cookie values into their parts; what is ignored whole and what one attribute.
#include "web/cookie_parse.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(CookieParse, SplitsNameValueAndAttributes) {
  auto cookie = parse_set_cookie(
      " sid = a b ; Path=/app; Domain=.Example.COM; Secure; HttpOnly; SameSite=Lax; "
      "Max-Age=60; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Unknown=1");
  ASSERT_TRUE(cookie);
  EXPECT_EQ(cookie->name, "sid");
  EXPECT_EQ(cookie->value, "a b");
  EXPECT_EQ(cookie->path, "/app");
  EXPECT_EQ(cookie->domain, "example.com");
  EXPECT_TRUE(cookie->secure);
  EXPECT_TRUE(cookie->http_only);
  EXPECT_EQ(cookie->same_site, SameSite::lax);
  EXPECT_EQ(cookie->max_age, 60);
  EXPECT_EQ(cookie->expires, 784111777);
}

TEST(CookieParse, LastAttributeWinsAndBadOnesAreSkipped) {
  auto cookie = parse_set_cookie("a=1; Path=/x; Path=relative; Max-Age=1x; Expires=never; Domain=");
  ASSERT_TRUE(cookie);
  EXPECT_FALSE(cookie->path);  // "relative" means the default path
  EXPECT_FALSE(cookie->max_age);
  EXPECT_FALSE(cookie->expires);
  EXPECT_FALSE(cookie->domain);
  EXPECT_EQ(parse_set_cookie("a=1; Max-Age=-5")->max_age, -5);
  EXPECT_EQ(parse_set_cookie("a=1; SameSite=bogus")->same_site, SameSite::unspecified);
}

TEST(CookieParse, IgnoresWholeFieldsThatCannotBeCookies) {
  EXPECT_FALSE(parse_set_cookie(""));
  EXPECT_FALSE(parse_set_cookie("=; Path=/"));
  EXPECT_FALSE(parse_set_cookie(std::string("a=b\x01")));
  EXPECT_FALSE(parse_set_cookie("a=b\r\nX: y"));
  EXPECT_FALSE(parse_set_cookie("a=b\tc"));
  EXPECT_FALSE(parse_set_cookie("a=" + std::string(4096, 'v')));
  EXPECT_TRUE(parse_set_cookie("a=" + std::string(4095, 'v')));
  auto nameless = parse_set_cookie("justvalue");
  ASSERT_TRUE(nameless);
  EXPECT_EQ(nameless->name, "");
  EXPECT_EQ(nameless->value, "justvalue");
}

}  // namespace
}  // namespace sluice
