// FetchHops signs every hop of an AWS SigV4 request anew, for its own path, host and
// time, and drops the key pair when a redirect leaves the origin. The expected
// signature is AWS's published "get-vanilla" one (SigV4 test suite).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "client/fetch/fetch_hops.hpp"

namespace sluice {
namespace {

using namespace std::chrono;

constexpr std::string_view kGetVanilla =
    "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
    "SignedHeaders=host;x-amz-date, "
    "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31";

// A fetch signed with the suite's key pair, on a clock stopped at the suite's time.
struct SignedFetch {
  ClientOptions options;
  ProxySettings proxies;
  NetworkSettings network;
  Trace trace{[](std::string_view) {}};
  Request request;

  explicit SignedFetch(std::string url, std::string scope = "aws:amz:us-east-1:service") {
    request = Request::get(std::move(url));
    request.redirects.follow = true;
    request.auth = Authentication::aws_sigv4(
        "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", std::move(scope));
  }
  FetchHops hops() {
    auto url = Url::parse(request.url);
    EXPECT_TRUE(url.ok());
    FetchHops made({options, proxies, network, trace}, request, url.ok() ? *url : Url());
    made.set_wall_clock([] { return sys_days{year{2015} / 8 / 30} + hours{12} + minutes{36}; });
    return made;
  }
};

Headers location(const std::string& where) {
  Headers headers;
  headers.add("Location", where);
  return headers;
}

TEST(FetchHopsSigV4, TheHopIsSignedOverTheRequestsOwnFieldsOnly) {
  SignedFetch fetch("https://example.amazonaws.com/");
  FetchHops hops = fetch.hops();
  ASSERT_TRUE(hops.choose_proxy().ok());
  const Headers sent = hops.request_headers("gzip");
  // User-Agent, Accept and Accept-Encoding go too, unsigned.
  EXPECT_TRUE(sent.contains("user-agent"));
  EXPECT_EQ(sent.get("authorization"), kGetVanilla);
  EXPECT_EQ(sent.get("x-amz-date"), "20150830T123600Z");
}

TEST(FetchHopsSigV4, ARedirectWithinTheOriginIsSignedForItsOwnPath) {
  SignedFetch fetch("https://example.amazonaws.com/old/place");
  FetchHops hops = fetch.hops();
  ASSERT_TRUE(hops.choose_proxy().ok());
  EXPECT_NE(hops.request_headers("").get("authorization"), kGetVanilla);
  ASSERT_EQ(*hops.on_head(301, location("/"), std::string_view()), FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(hops.request_headers("").get("authorization"), kGetVanilla);
}

TEST(FetchHopsSigV4, ARedirectToAnotherOriginGoesUnsignedUnlessTrusted) {
  SignedFetch fetch("https://example.amazonaws.com/x");
  FetchHops hops = fetch.hops();
  ASSERT_TRUE(hops.choose_proxy().ok());
  ASSERT_EQ(*hops.on_head(302, location("https://other.amazonaws.com/"), std::string_view()),
            FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  const Headers sent = hops.request_headers("");
  EXPECT_FALSE(sent.contains("authorization"));
  EXPECT_FALSE(sent.contains("x-amz-date"));

  // --location-trusted: the next host is signed for, with its own name.
  SignedFetch trusted("https://other.amazonaws.com/x");
  trusted.request.redirects.credentials_to_other_origins = true;
  FetchHops trusted_hops = trusted.hops();
  ASSERT_TRUE(trusted_hops.choose_proxy().ok());
  ASSERT_EQ(
      *trusted_hops.on_head(302, location("https://example.amazonaws.com/"), std::string_view()),
      FetchHops::Verdict::redirect);
  ASSERT_TRUE(trusted_hops.follow_redirect(false).ok());
  EXPECT_EQ(trusted_hops.request_headers("").get("authorization"), kGetVanilla);
}

TEST(FetchHopsSigV4, AScopeTheHostCannotCompleteFailsTheHop) {
  SignedFetch fetch("http://localhost/", "aws");
  FetchHops hops = fetch.hops();
  auto chosen = hops.choose_proxy();
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.error().category(), ErrorCategory::usage);
  EXPECT_NE(chosen.error().message().find("--aws-sigv4"), std::string::npos);
}

TEST(FetchHopsSigV4, ARequestWithItsOwnAuthorizationIsNotSigned) {
  SignedFetch fetch("https://example.amazonaws.com/");
  fetch.request.headers.add("Authorization", "Bearer mine");
  FetchHops hops = fetch.hops();
  ASSERT_TRUE(hops.choose_proxy().ok());
  const Headers sent = hops.request_headers("");
  EXPECT_EQ(sent.get("authorization"), "Bearer mine");
  EXPECT_FALSE(sent.contains("x-amz-date"));
}

TEST(FetchHopsSigV4, ABodySluiceCannotHashIsSignedAsUnsignedPayload) {
  SignedFetch fetch("https://bucket.s3.us-east-1.amazonaws.com/key", "aws:amz:us-east-1:s3");
  fetch.request.method = "PUT";
  FetchHops hops = fetch.hops();
  ASSERT_TRUE(hops.choose_proxy().ok());
  EXPECT_EQ(hops.request_headers("", std::nullopt).get("x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_EQ(hops.request_headers("", "").get("x-amz-content-sha256"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace sluice
