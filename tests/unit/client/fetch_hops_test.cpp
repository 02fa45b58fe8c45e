// FetchHops plans each hop of a fetch without a socket: the request head of a hop,
// what a response head means (the answer, a redirect, a 401 to answer), the next hop
// of a redirect (method, credentials, body), the proxy of each hop, and the bounds
// on resending.
#include "client/fetch/fetch_hops.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sluice/cookies.hpp"

namespace sluice {
namespace {

Url url(const std::string& text) {
  auto parsed = Url::parse(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed.ok() ? *parsed : Url();
}

Headers location(const std::string& where) {
  Headers headers;
  headers.add("Location", where);
  return headers;
}

// The Client's side of a fetch: options, proxies, routing and a trace kept here.
struct Fixture {
  ClientOptions options;
  ProxySettings proxies;
  NetworkSettings network;
  std::vector<std::string> lines;
  Trace trace{[this](std::string_view line) { lines.emplace_back(line); }};

  FetchHops hops(Request request) {
    return FetchHops({options, proxies, network, trace}, request, url(request.url));
  }
  void use_proxy(const std::string& proxy) {
    options.proxy.url = proxy;
    auto settings = ProxySettings::from(options, [](const char*) { return std::nullopt; });
    ASSERT_TRUE(settings.ok()) << settings.error().message();
    proxies = std::move(*settings);
  }
};

Request following(Request request) {
  request.redirects.follow = true;
  return request;
}

TEST(FetchHops, TheFirstHopCarriesTheDefaultsAndTheRequestsOwnFields) {
  Fixture f;
  Request request = Request::get("https://example.test/a?b=c");
  request.headers.add("Accept", "text/html");
  FetchHops hops = f.hops(request);
  ASSERT_TRUE(hops.choose_proxy().ok());
  const Headers sent = hops.request_headers("gzip");
  EXPECT_EQ(sent.get("accept"), "text/html");
  EXPECT_EQ(sent.get("user-agent"), f.options.user_agent);
  EXPECT_EQ(sent.get("accept-encoding"), "gzip");
  EXPECT_EQ(hops.request_target(), "/a?b=c");
  EXPECT_FALSE(hops.request_headers("").contains("accept-encoding"));
}

TEST(FetchHops, AnOrdinaryHeadIsTheAnswer) {
  Fixture f;
  FetchHops hops = f.hops(following(Request::get("https://example.test/")));
  auto verdict = hops.on_head(200, Headers{}, std::string_view());
  ASSERT_TRUE(verdict.ok());
  EXPECT_EQ(*verdict, FetchHops::Verdict::answer);
  EXPECT_EQ(hops.redirects(), 0);
}

TEST(FetchHops, A303AfterAPostGoesAsAGetWithoutTheBodyOrItsType) {
  Fixture f;
  Request request = following(Request::get("https://example.test/form"));
  request.method = "POST";
  request.headers.add("Content-Type", "application/x-www-form-urlencoded");
  FetchHops hops = f.hops(request);
  auto verdict = hops.on_head(303, location("/done"), std::string_view("a=1"));
  ASSERT_TRUE(verdict.ok());
  ASSERT_EQ(*verdict, FetchHops::Verdict::redirect);
  EXPECT_FALSE(hops.planned_redirect().keep_body);
  ASSERT_TRUE(hops.follow_redirect(true).ok());
  EXPECT_EQ(hops.method(), "GET");
  EXPECT_EQ(hops.url().to_string(), "https://example.test/done");
  EXPECT_EQ(hops.redirects(), 1);
  EXPECT_FALSE(hops.request_headers("").contains("content-type"));
  ASSERT_FALSE(f.lines.empty());
  EXPECT_EQ(f.lines.back(),
            "redirect 1: POST https://example.test/form -> GET https://example.test/done");
}

TEST(FetchHops, A307KeepsTheMethodAndTheBody) {
  Fixture f;
  Request request = following(Request::get("https://example.test/upload"));
  request.method = "PUT";
  request.headers.add("Content-Type", "application/octet-stream");
  FetchHops hops = f.hops(request);
  ASSERT_EQ(*hops.on_head(307, location("/elsewhere"), std::nullopt), FetchHops::Verdict::redirect);
  EXPECT_TRUE(hops.planned_redirect().keep_body);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(hops.method(), "PUT");
  EXPECT_EQ(hops.request_headers("").get("content-type"), "application/octet-stream");
}

TEST(FetchHops, CredentialsStayBehindWhenARedirectLeavesTheOrigin) {
  Fixture f;
  Request request = following(Request::get("https://example.test/"));
  request.headers.add("Authorization", "Bearer secret");
  request.headers.add("Cookie", "session=1");
  FetchHops hops = f.hops(request);
  ASSERT_EQ(*hops.on_head(302, location("https://user:pw@other.test/x"), std::string_view()),
            FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  const Headers sent = hops.request_headers("");
  EXPECT_FALSE(sent.contains("authorization"));
  EXPECT_FALSE(sent.contains("cookie"));
  // The Location's own credentials are neither sent nor shown.
  EXPECT_EQ(hops.url().to_string(), "https://other.test/x");
}

TEST(FetchHops, CredentialsGoAlongWithinTheOrigin) {
  Fixture f;
  Request request = following(Request::get("https://example.test/"));
  request.headers.add("Authorization", "Bearer secret");
  FetchHops hops = f.hops(request);
  ASSERT_EQ(*hops.on_head(301, location("/moved"), std::string_view()),
            FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(hops.request_headers("").get("authorization"), "Bearer secret");
}

TEST(FetchHops, RedirectsPastTheLimitFail) {
  Fixture f;
  Request request = following(Request::get("https://example.test/0"));
  request.redirects.max_redirects = 2;
  FetchHops hops = f.hops(request);
  for (int i = 1; i <= 2; ++i) {
    ASSERT_EQ(*hops.on_head(302, location("/" + std::to_string(i)), std::string_view()),
              FetchHops::Verdict::redirect);
    ASSERT_TRUE(hops.follow_redirect(false).ok());
  }
  auto third = hops.on_head(302, location("/3"), std::string_view());
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code(), ErrorCode::too_many_redirects);
}

TEST(FetchHops, ARequestThatRefusesRedirectsFailsOnOneAndOneThatIgnoresThemAnswers) {
  Fixture f;
  Request refusing = Request::get("https://example.test/");
  refusing.redirects.fail_on_redirect = true;
  auto refused = f.hops(refusing).on_head(302, location("/x"), std::string_view());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::redirect_refused);
  EXPECT_NE(refused.error().message().find("302 to '/x'"), std::string::npos);

  auto manual = f.hops(Request::get("https://example.test/"))
                    .on_head(302, location("/x"), std::string_view());
  ASSERT_TRUE(manual.ok());
  EXPECT_EQ(*manual, FetchHops::Verdict::answer);
}

TEST(FetchHops, ADigestChallengeIsAnsweredOnceOnTheNextSend) {
  Fixture f;
  Request request = Request::get("https://example.test/private");
  request.auth = Authentication::digest("alice", "secret");
  FetchHops hops = f.hops(request);
  Headers challenge;
  challenge.add("WWW-Authenticate", "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\"");
  auto first = hops.on_head(401, challenge, std::string_view());
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_EQ(*first, FetchHops::Verdict::challenge);
  hops.resend_authenticated();
  const Headers sent = hops.request_headers("");
  const auto authorization = sent.get("authorization");
  ASSERT_TRUE(authorization.has_value());
  EXPECT_EQ(authorization->rfind("Digest ", 0), 0u) << *authorization;
  EXPECT_NE(authorization->find("username=\"alice\""), std::string::npos) << *authorization;
  EXPECT_EQ(hops.challenge_scheme(), "Digest MD5");
  // The same challenge again: the credentials were wrong, and the 401 is the answer.
  auto second = hops.on_head(401, challenge, std::string_view());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, FetchHops::Verdict::answer);
}

TEST(FetchHops, CookiesFromARedirectGoWithTheNextHop) {
  Fixture f;
  f.options.cookie_jar = std::make_shared<CookieJar>();
  FetchHops hops = f.hops(following(Request::get("https://example.test/login")));
  Headers head = location("/home");
  head.add("Set-Cookie", "session=abc; Path=/");
  ASSERT_EQ(*hops.on_head(302, head, std::string_view()), FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(hops.request_headers("").get("cookie"), "session=abc");
}

TEST(FetchHops, AForwardingProxyTakesTheWholeUrlAndItsCredentials) {
  Fixture f;
  f.options.proxy.user = "bob:pw";
  f.use_proxy("http://proxy.test:3128");
  FetchHops hops = f.hops(Request::get("http://example.test/a"));
  ASSERT_TRUE(hops.choose_proxy().ok());
  ASSERT_TRUE(hops.proxy().has_value());
  EXPECT_EQ(hops.request_target(), "http://example.test/a");
  EXPECT_EQ(hops.request_headers("").get("proxy-authorization"), "Basic Ym9iOnB3");
}

TEST(FetchHops, HttpThreeOnlyCannotGoThroughAProxyOrAUnixSocket) {
  Fixture f;
  f.use_proxy("http://proxy.test:3128");
  Request request = Request::get("https://example.test/");
  request.version = VersionPolicy::http3_only;
  auto through_proxy = f.hops(request).choose_proxy();
  ASSERT_FALSE(through_proxy.ok());
  EXPECT_NE(through_proxy.error().message().find("cannot go through proxy"), std::string::npos);

  Fixture g;
  g.network.unix_socket = "/run/app.sock";
  auto over_socket = g.hops(request).choose_proxy();
  ASSERT_FALSE(over_socket.ok());
  EXPECT_NE(over_socket.error().message().find("/run/app.sock"), std::string::npos);
}

TEST(FetchHops, ResendsAreBounded) {
  Fixture f;
  FetchHops get = f.hops(Request::get("https://example.test/"));
  EXPECT_TRUE(get.may_resend_after_dead_connection());
  get.resent_after_dead_connection();
  EXPECT_FALSE(get.may_resend_after_dead_connection());
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(get.may_resend_unprocessed());
    get.resent_unprocessed();
    EXPECT_TRUE(get.may_resend_early());
    get.resent_early();
  }
  EXPECT_FALSE(get.may_resend_unprocessed());
  EXPECT_FALSE(get.may_resend_early());
  EXPECT_EQ(get.unprocessed_resends(), 2);

  Request post = Request::get("https://example.test/");
  post.method = "POST";
  EXPECT_FALSE(f.hops(post).may_resend_after_dead_connection());
}

}  // namespace
}  // namespace sluice
