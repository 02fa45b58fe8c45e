// Redirect rules: methods per status, limits, scheme downgrades, credentials.
#include "web/redirect.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Url url(const char* text) { return Url::parse(text).value(); }

Headers location(const char* where) { return Headers{{"Location", where}}; }

TEST(Redirect, MethodRulesFollowEachStatus) {
  const Url from = url("http://a.example/form");
  RedirectPolicy policy;
  auto see_other = plan_redirect(from, "POST", 303, location("/r"), 0, policy);
  ASSERT_TRUE(see_other.ok());
  EXPECT_EQ(see_other->method, "GET");
  EXPECT_FALSE(see_other->keep_body);
  auto found = plan_redirect(from, "POST", 302, location("/r"), 0, policy);
  EXPECT_EQ(found->method, "GET");
  auto found_put = plan_redirect(from, "PUT", 302, location("/r"), 0, policy);
  EXPECT_EQ(found_put->method, "PUT");
  auto temporary = plan_redirect(from, "POST", 307, location("/r"), 0, policy);
  EXPECT_EQ(temporary->method, "POST");
  EXPECT_TRUE(temporary->keep_body);
  auto permanent = plan_redirect(from, "PUT", 308, location("/r"), 0, policy);
  EXPECT_TRUE(permanent->keep_body);
  auto head = plan_redirect(from, "HEAD", 303, location("/r"), 0, policy);
  EXPECT_EQ(head->method, "HEAD");
}

TEST(Redirect, ResolvesRelativeLocations) {
  auto step = plan_redirect(url("https://a.example/x/y?q"), "GET", 301, location("../z"), 0, {});
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->next.to_string(), "https://a.example/z");
}

TEST(Redirect, MissingLocationIsAProtocolError) {
  auto step = plan_redirect(url("http://a.example/"), "GET", 302, Headers{}, 0, {});
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.error().category(), ErrorCategory::protocol);
}

TEST(Redirect, LimitCountsRedirectsAlreadyFollowed) {
  RedirectPolicy policy;
  policy.max_redirects = 2;
  EXPECT_TRUE(plan_redirect(url("http://a.example/"), "GET", 302, location("/b"), 1, policy).ok());
  auto over = plan_redirect(url("http://a.example/"), "GET", 302, location("/b"), 2, policy);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().category(), ErrorCategory::too_large);
}

TEST(Redirect, HttpsToHttpIsRefusedUnlessAllowed) {
  RedirectPolicy policy;
  auto refused = plan_redirect(url("https://a.example/"), "GET", 302, location("http://a.example/"),
                               0, policy);
  ASSERT_FALSE(refused.ok());
  policy.allow_https_to_http = true;
  EXPECT_TRUE(
      plan_redirect(url("https://a.example/"), "GET", 302, location("http://a.example/"), 0, policy)
          .ok());
}

TEST(Redirect, APortTheRequestRefusesIsRefusedOnTheHop) {
  RedirectPolicy policy;
  policy.refused_ports = {25, 10080};
  auto refused = plan_redirect(url("http://a.example/"), "GET", 302,
                               location("http://b.example:10080/x"), 0, policy);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::redirect_refused);
  EXPECT_NE(refused.error().message().find("port 10080"), std::string::npos)
      << refused.error().message();
  EXPECT_TRUE(plan_redirect(url("http://a.example/"), "GET", 302,
                            location("http://b.example:8080/"), 0, policy)
                  .ok());
  // The default port is a port too: 80 refused refuses a Location without one.
  policy.refused_ports = {80};
  EXPECT_FALSE(plan_redirect(url("http://a.example:8080/"), "GET", 302,
                             location("http://b.example/"), 0, policy)
                   .ok());
}

TEST(Redirect, NonHttpSchemesAreRefused) {
  auto step =
      plan_redirect(url("http://a.example/"), "GET", 302, location("ftp://a.example/f"), 0, {});
  ASSERT_FALSE(step.ok());
}

TEST(Redirect, CredentialsStayWithinTheOrigin) {
  Headers headers{{"Authorization", "Basic x"}, {"Cookie", "c=1"}, {"Accept", "*/*"}};
  drop_credentials_across_origins(url("http://a.example/1"), url("http://a.example/2"), headers);
  EXPECT_EQ(headers.size(), 3u);
  drop_credentials_across_origins(url("http://a.example/"), url("http://b.example/"), headers);
  EXPECT_FALSE(headers.contains("authorization"));
  EXPECT_FALSE(headers.contains("cookie"));
  EXPECT_TRUE(headers.contains("accept"));
  Headers port_change{{"Authorization", "Basic x"}};
  drop_credentials_across_origins(url("http://a.example/"), url("http://a.example:8080/"),
                                  port_change);
  EXPECT_TRUE(port_change.empty());
}

TEST(Redirect, PostStaysAPostOnlyWhereThePolicyKeepsIt) {
  const Url from = url("http://a.example/form");
  RedirectPolicy policy;
  policy.keep_post_on_301 = true;
  policy.keep_post_on_303 = true;
  auto moved = plan_redirect(from, "POST", 301, location("/r"), 0, policy);
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->method, "POST");
  EXPECT_TRUE(moved->keep_body);
  auto found = plan_redirect(from, "POST", 302, location("/r"), 0, policy);
  EXPECT_EQ(found->method, "GET");
  EXPECT_FALSE(found->keep_body);
  auto see_other = plan_redirect(from, "POST", 303, location("/r"), 0, policy);
  EXPECT_EQ(see_other->method, "POST");
  EXPECT_TRUE(see_other->keep_body);
  // Only a POST is kept: a 303 still turns a PUT into a GET.
  auto put = plan_redirect(from, "PUT", 303, location("/r"), 0, policy);
  EXPECT_EQ(put->method, "GET");
  policy.keep_post_on_302 = true;
  EXPECT_EQ(plan_redirect(from, "POST", 302, location("/r"), 0, policy)->method, "POST");
}

TEST(Redirect, SchemesThePolicyTurnsOffAreRefused) {
  RedirectPolicy policy;
  policy.follow_to_http = false;
  auto refused =
      plan_redirect(url("http://a.example/"), "GET", 302, location("http://b.example/"), 0, policy);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::insecure_redirect);
  EXPECT_TRUE(
      plan_redirect(url("http://a.example/"), "GET", 302, location("https://b.example/"), 0, policy)
          .ok());
  policy.follow_to_http = true;
  policy.follow_to_https = false;
  EXPECT_FALSE(
      plan_redirect(url("http://a.example/"), "GET", 302, location("https://b.example/"), 0, policy)
          .ok());
}

// curl's --referer ";auto": each hop names the URL it came from, less its
// credentials and fragment; off, no hop gets one from the planner.
TEST(Redirect, AutoRefererNamesThePreviousUrlWithoutCredentials) {
  const Url from = url("https://user:secret@a.example/page?q=1#part");
  RedirectPolicy policy;
  auto plain = plan_redirect(from, "GET", 302, location("https://b.example/next"), 0, policy);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->referer.has_value());
  policy.auto_referer = true;
  auto step = plan_redirect(from, "GET", 302, location("https://b.example/next"), 0, policy);
  ASSERT_TRUE(step.ok());
  ASSERT_TRUE(step->referer.has_value());
  EXPECT_EQ(*step->referer, "https://a.example/page?q=1");
}

TEST(Redirect, CredentialsFollowToOtherOriginsOnlyWhenTrusted) {
  RedirectPolicy policy;
  EXPECT_TRUE(credentials_follow(url("http://a.example/1"), url("http://a.example/2"), policy));
  EXPECT_FALSE(credentials_follow(url("http://a.example/"), url("http://b.example/"), policy));
  policy.credentials_to_other_origins = true;
  EXPECT_TRUE(credentials_follow(url("http://a.example/"), url("http://b.example/"), policy));
}

}  // namespace
}  // namespace sluice
