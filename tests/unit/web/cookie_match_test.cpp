// Domain-match, path-match, default path and public suffixes (RFC 6265bis 5.1).
#include "web/cookie_match.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(CookieMatch, DomainMatchesItselfAndSubdomainsOnly) {
  EXPECT_TRUE(domain_matches("example.com", "example.com"));
  EXPECT_TRUE(domain_matches("www.example.com", "example.com"));
  EXPECT_FALSE(domain_matches("badexample.com", "example.com"));
  EXPECT_FALSE(domain_matches("example.com", "www.example.com"));
  EXPECT_TRUE(domain_matches("127.0.0.1", "127.0.0.1"));
}

TEST(CookieMatch, AddressesMatchOnlyThemselves) {
  EXPECT_FALSE(domain_matches("10.0.0.1", "0.0.1"));
  EXPECT_TRUE(is_ip_literal("::1"));
  EXPECT_FALSE(is_ip_literal("example.com"));
}

TEST(CookieMatch, PathMatchesOnSegmentBoundaries) {
  EXPECT_TRUE(path_matches("/", "/"));
  EXPECT_TRUE(path_matches("/docs/a", "/docs"));
  EXPECT_TRUE(path_matches("/docs/a", "/docs/"));
  EXPECT_FALSE(path_matches("/docsxyz", "/docs"));
  EXPECT_FALSE(path_matches("/", "/docs"));
}

TEST(CookieMatch, DefaultPathDropsTheLastSegment) {
  EXPECT_EQ(default_cookie_path("/"), "/");
  EXPECT_EQ(default_cookie_path("/login"), "/");
  EXPECT_EQ(default_cookie_path("/a/b/login"), "/a/b");
  EXPECT_EQ(default_cookie_path(""), "/");
}

TEST(CookieMatch, KnowsPublicSuffixes) {
  EXPECT_TRUE(is_public_suffix("com"));
  EXPECT_TRUE(is_public_suffix("co.uk"));
  EXPECT_FALSE(is_public_suffix("example.co.uk"));
  EXPECT_FALSE(is_public_suffix("example.com"));
}

}  // namespace
}  // namespace sluice
