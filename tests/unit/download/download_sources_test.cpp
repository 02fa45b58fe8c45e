// DownloadSources decides which credentials each source's ranges carry: all of them on
// the URL's origin, none on another (a mirror, or the redirect's target) unless the
// redirect was followed with credentials_to_other_origins, and the URL's own
// user:password, which the effective URL no longer shows, wherever the others go (in
// the URL, for Client::send to weigh as it did for the first request).
#include "download/download_sources.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

Request given(const std::string& url) {
  Request request = Request::get(url);
  request.auth = Authentication::basic("user", "secret");
  request.headers.add("Authorization", "Bearer token");
  request.headers.add("Cookie", "session=1");
  return request;
}

void expect_credentials(const Request& request) {
  EXPECT_EQ(request.auth.user, "user");
  EXPECT_EQ(request.headers.get("authorization"), "Bearer token");
  EXPECT_EQ(request.headers.get("cookie"), "session=1");
}

void expect_none(const Request& request) {
  EXPECT_EQ(request.auth.scheme, Authentication::Scheme::none);
  EXPECT_TRUE(request.auth.user.empty() && request.auth.password.empty());
  EXPECT_FALSE(request.headers.contains("authorization"));
  EXPECT_FALSE(request.headers.contains("cookie"));
}

TEST(DownloadSources, OnlyTheUrlsOriginGetsTheCredentials) {
  const DownloadSources sources(given("https://a.example/f"), "https://a.example/f",
                                {"https://a.example/copy", "https://a.example:8443/f",
                                 "http://a.example/f", "https://b.example/f"});
  ASSERT_EQ(sources.count(), 5u);
  expect_credentials(sources.request_for(0));
  expect_credentials(sources.request_for(1));
  for (std::size_t other = 2; other < 5; ++other) {
    SCOPED_TRACE(sources.url(other));
    expect_none(sources.request_for(other));
  }
}

TEST(DownloadSources, ARedirectsTargetOnAnotherOriginGetsThemOnlyWhenTrusted) {
  Request primary = given("https://cdn.example/f");
  const DownloadSources untrusted(primary, "https://a.example/f", {});
  expect_none(untrusted.request_for(0));

  primary.redirects.credentials_to_other_origins = true;
  const DownloadSources trusted(primary, "https://a.example/f", {"https://mirror.example/f"});
  expect_credentials(trusted.request_for(0));
  // A mirror is no redirect the user trusted.
  expect_none(trusted.request_for(1));
}

TEST(DownloadSources, TheUrlsOwnUserAndPasswordGoWithItsOriginsRanges) {
  // The effective URL, as Client::fetch reports it, has lost the userinfo.
  Request primary = Request::get("https://a.example/f");
  const DownloadSources sources(primary, "https://us%40er:pa%3Ass@a.example/f",
                                {"https://a.example/copy", "https://b.example/f"});
  EXPECT_EQ(sources.request_for(0).url, "https://us%40er:pa%3Ass@a.example/f");
  EXPECT_EQ(sources.request_for(1).url, "https://us%40er:pa%3Ass@a.example/copy");
  EXPECT_EQ(sources.request_for(2).url, "https://b.example/f");
  expect_none(sources.request_for(2));
  EXPECT_EQ(sources.url(0), "https://a.example/f") << "no password in what reports show";
  EXPECT_EQ(sources.url(1), "https://a.example/copy");
  EXPECT_EQ(sources.reports().at(1).url, "https://a.example/copy");
}

// Which of them a range sends is Client::send's choice, as for the first request:
// the sources leave the request's own credentials as they are, beside the URL's.
TEST(DownloadSources, AnExplicitUserOrAuthorizationGoesToEveryRangeAsGiven) {
  Request primary = Request::get("https://a.example/f");
  primary.auth = Authentication::basic("explicit", "pw");
  const DownloadSources by_auth(primary, "https://user:secret@a.example/f", {});
  EXPECT_EQ(by_auth.request_for(0).auth.user, "explicit");

  Request with_header = Request::get("https://a.example/f");
  with_header.headers.add("Authorization", "Bearer token");
  const DownloadSources by_header(with_header, "https://user:secret@a.example/f", {});
  EXPECT_EQ(by_header.request_for(0).auth.scheme, Authentication::Scheme::none);
  EXPECT_EQ(by_header.request_for(0).headers.get("authorization"), "Bearer token");
}

// A mirror's own user:password are its own: the URL's do not replace them, and no
// report or message shows them.
TEST(DownloadSources, AMirrorKeepsItsOwnUserAndPasswordAndShowsNone) {
  const DownloadSources sources(Request::get("https://a.example/f"),
                                "https://user:secret@a.example/f",
                                {"https://other:pw@a.example/copy", "https://m:pw@b.example/f"});
  EXPECT_EQ(sources.request_for(1).url, "https://other:pw@a.example/copy");
  EXPECT_EQ(sources.request_for(2).url, "https://m:pw@b.example/f");
  EXPECT_EQ(sources.url(1), "https://a.example/copy");
  EXPECT_EQ(sources.url(2), "https://b.example/f");
  for (const auto& report : sources.reports()) {
    EXPECT_EQ(report.url.find("pw"), std::string::npos) << report.url;
  }
}

}  // namespace
}  // namespace sluice
