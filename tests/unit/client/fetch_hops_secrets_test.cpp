// Where a fetch's secrets may go, hop by hop: the request's Authorization and Cookie
// fields and its Digest state stay with their origin when a redirect changes the
// host, the port or the scheme (unless the request trusts every hop); the proxy's
// credentials go only to a proxy that forwards, never inside a tunnel and never
// after a redirect to a host the proxy does not serve. Without sockets: FetchHops
// builds each hop's head, and that head is what goes on the wire.
#include <gtest/gtest.h>

#include <string>

#include "client/fetch/fetch_hops.hpp"

namespace sluice {
namespace {

Headers location(const std::string& where) {
  Headers headers;
  headers.add("Location", where);
  return headers;
}

Headers digest_challenge() {
  Headers headers;
  headers.add("WWW-Authenticate", "Digest realm=\"r\", nonce=\"n1\", qop=\"auth\"");
  return headers;
}

// The Client's side of a fetch: its options, proxies and routing.
struct Fixture {
  ClientOptions options;
  ProxySettings proxies;
  NetworkSettings network;
  Trace trace{[](std::string_view) {}};

  FetchHops hops(Request& request) {
    auto url = Url::parse(request.url);
    EXPECT_TRUE(url.ok()) << request.url;
    return FetchHops({options, proxies, network, trace}, request, url.ok() ? *url : Url());
  }
  void use_proxy(const std::string& proxy, const std::string& no_proxy = {}) {
    options.proxy.url = proxy;
    options.proxy.user = "bob:pw";
    if (!no_proxy.empty()) options.proxy.no_proxy = no_proxy;
    auto settings = ProxySettings::from(options, [](const char*) { return std::nullopt; });
    ASSERT_TRUE(settings.ok()) << settings.error().message();
    proxies = std::move(*settings);
  }
};

// The credentials a caller can give as fields (what -u, --oauth2-bearer, a netrc
// entry and URL userinfo become before the first hop, and -H's own).
Request with_credentials(const std::string& url, bool trusted) {
  Request request = Request::get(url);
  request.redirects.follow = true;
  request.redirects.allow_https_to_http = true;
  request.redirects.credentials_to_other_origins = trusted;
  request.headers.add("Authorization", "Bearer secret");
  request.headers.add("Cookie", "session=1");
  request.headers.add("Proxy-Authorization", "Basic cHJveHk6cHc=");
  return request;
}

// The head of the hop after `from` redirected to `to`.
Headers after_redirect(Fixture& f, Request request, const std::string& to) {
  FetchHops hops = f.hops(request);
  EXPECT_TRUE(hops.choose_proxy().ok());
  auto verdict = hops.on_head(302, location(to), std::string_view());
  EXPECT_TRUE(verdict.ok() && *verdict == FetchHops::Verdict::redirect) << to;
  EXPECT_TRUE(hops.follow_redirect(false).ok()) << to;
  EXPECT_EQ(hops.url().to_string(), to);
  return hops.request_headers("");
}

struct Move {
  const char* what;
  const char* from;
  const char* to;
};

// Each changes one part of the origin: curl's advisories on redirects came from a
// check that compared only the host.
constexpr Move kMoves[] = {
    {"another host", "https://a.example/start", "https://b.example/start"},
    {"another port", "https://a.example/start", "https://a.example:8443/start"},
    {"another scheme", "https://a.example:8080/start", "http://a.example:8080/start"},
    {"a subdomain", "https://example.com/start", "https://www.example.com/start"},
};

TEST(FetchHopsSecrets, NoCredentialFieldFollowsARedirectThatChangesTheOrigin) {
  for (const Move& move : kMoves) {
    SCOPED_TRACE(move.what);
    Fixture f;
    const Headers sent = after_redirect(f, with_credentials(move.from, false), move.to);
    EXPECT_FALSE(sent.contains("authorization"));
    EXPECT_FALSE(sent.contains("cookie"));
    EXPECT_FALSE(sent.contains("proxy-authorization"));
  }
}

TEST(FetchHopsSecrets, TrustedRedirectsTakeTheCredentialsToEveryOrigin) {
  for (const Move& move : kMoves) {
    SCOPED_TRACE(move.what);
    Fixture f;
    const Headers sent = after_redirect(f, with_credentials(move.from, true), move.to);
    EXPECT_EQ(sent.get("authorization"), "Bearer secret");
    EXPECT_EQ(sent.get("cookie"), "session=1");
  }
}

TEST(FetchHopsSecrets, CredentialsStayAfterLeavingAndComingBack) {
  // Dropped at the first foreign hop, they are gone for the rest of the fetch: the
  // foreign server chose where the fetch goes next.
  Fixture f;
  Request request = with_credentials("https://a.example/", false);
  FetchHops hops = f.hops(request);
  ASSERT_TRUE(hops.choose_proxy().ok());
  ASSERT_EQ(*hops.on_head(302, location("https://b.example/"), std::string_view()),
            FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  ASSERT_EQ(*hops.on_head(302, location("https://a.example/back"), std::string_view()),
            FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_FALSE(hops.request_headers("").contains("authorization"));
}

TEST(FetchHopsSecrets, DigestCredentialsAnswerNoChallengeFromAnotherOrigin) {
  for (const Move& move : kMoves) {
    SCOPED_TRACE(move.what);
    Fixture f;
    Request request = Request::get(move.from);
    request.redirects.follow = true;
    request.redirects.allow_https_to_http = true;
    request.auth = Authentication::digest("alice", "secret");
    FetchHops hops = f.hops(request);
    ASSERT_TRUE(hops.choose_proxy().ok());
    // The origin's challenge is answered...
    ASSERT_EQ(*hops.on_head(401, digest_challenge(), std::string_view()),
              FetchHops::Verdict::challenge);
    EXPECT_TRUE(hops.request_headers("").contains("authorization"));
    ASSERT_EQ(*hops.on_head(302, location(move.to), std::string_view()),
              FetchHops::Verdict::redirect);
    ASSERT_TRUE(hops.follow_redirect(false).ok());
    // ...the next origin's is the answer, and its hop carries nothing.
    EXPECT_FALSE(hops.request_headers("").contains("authorization"));
    EXPECT_EQ(*hops.on_head(401, digest_challenge(), std::string_view()),
              FetchHops::Verdict::answer);
  }
}

TEST(FetchHopsSecrets, DigestAnswersTheSameOriginAgainAfterARedirect) {
  Fixture f;
  Request request = Request::get("https://a.example/old");
  request.redirects.follow = true;
  request.auth = Authentication::digest("alice", "secret");
  FetchHops hops = f.hops(request);
  ASSERT_TRUE(hops.choose_proxy().ok());
  ASSERT_EQ(*hops.on_head(302, location("/new"), std::string_view()), FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(*hops.on_head(401, digest_challenge(), std::string_view()),
            FetchHops::Verdict::challenge);
}

TEST(FetchHopsSecrets, TheProxysCredentialsNeverGoInsideATunnel) {
  Fixture f;
  f.use_proxy("http://proxy.test:3128");
  Request request = Request::get("https://example.test/");
  FetchHops hops = f.hops(request);
  ASSERT_TRUE(hops.choose_proxy().ok());
  ASSERT_TRUE(hops.proxy().has_value());
  ASSERT_TRUE(hops.proxy()->tunnel);
  // The CONNECT carries them (proxy_connect.cpp); the request inside is the origin's.
  EXPECT_FALSE(hops.proxy()->authorization.empty());
  EXPECT_FALSE(hops.request_headers("").contains("proxy-authorization"));
}

TEST(FetchHopsSecrets, TheProxysCredentialsStayBehindWhenARedirectLeavesTheProxy) {
  Fixture f;
  f.use_proxy("http://proxy.test:3128", "direct.test");
  Request request = Request::get("http://example.test/");
  request.redirects.follow = true;
  FetchHops hops = f.hops(request);
  ASSERT_TRUE(hops.choose_proxy().ok());
  EXPECT_EQ(hops.request_headers("").get("proxy-authorization"), "Basic Ym9iOnB3");
  for (const char* to : {"http://direct.test/", "https://example.test/"}) {
    SCOPED_TRACE(to);
    ASSERT_EQ(*hops.on_head(302, location(to), std::string_view()), FetchHops::Verdict::redirect);
    ASSERT_TRUE(hops.follow_redirect(false).ok());
    EXPECT_FALSE(hops.request_headers("").contains("proxy-authorization"));
  }
}

}  // namespace
}  // namespace sluice
