// HSTS in a fetch's hops: an http:// URL to a known host goes to https:// before any
// connection, for the first hop and for a redirect; port 80 becomes 443, another
// port stays; nothing changes without a store.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client/fetch/fetch_hops.hpp"
#include "client/state_files.hpp"

namespace sluice {
namespace {

struct HstsFixture {
  ClientOptions options;
  ProxySettings proxies;
  NetworkSettings network;
  std::vector<std::string> lines;
  Trace trace{[this](std::string_view line) { lines.emplace_back(line); }};
  HstsStore store;

  HstsFixture() {
    store.update("secure.test", "max-age=3600; includeSubDomains", wall_clock_now());
  }

  FetchHops hops(Request& request, const HstsStore* hsts) {
    return FetchHops({options, proxies, network, trace, hsts}, request,
                     Url::parse(request.url).value());
  }
};

TEST(FetchHopsHsts, AKnownHostGoesOverHttpsFromTheFirstHop) {
  HstsFixture f;
  Request request = Request::get("http://www.secure.test/a?b");
  FetchHops hops = f.hops(request, &f.store);
  EXPECT_EQ(hops.url().to_string(), "https://www.secure.test/a?b");
  EXPECT_EQ(hops.url().port, 443);
  ASSERT_FALSE(f.lines.empty());
  EXPECT_EQ(f.lines.back(), "HSTS: http://www.secure.test/a?b -> https://www.secure.test/a?b");
}

TEST(FetchHopsHsts, AnotherPortIsKeptAndUnknownHostsStay) {
  HstsFixture f;
  Request other_port = Request::get("http://secure.test:8080/");
  EXPECT_EQ(f.hops(other_port, &f.store).url().to_string(), "https://secure.test:8080/");
  Request unknown = Request::get("http://plain.test/");
  EXPECT_EQ(f.hops(unknown, &f.store).url().to_string(), "http://plain.test/");
  Request without_store = Request::get("http://secure.test/");
  EXPECT_EQ(f.hops(without_store, nullptr).url().to_string(), "http://secure.test/");
}

TEST(FetchHopsHsts, ARedirectToHttpOfAKnownHostIsUpgraded) {
  HstsFixture f;
  Request request = Request::get("https://plain.test/");
  request.redirects.follow = true;
  request.redirects.allow_https_to_http = true;
  FetchHops hops = f.hops(request, &f.store);
  Headers location;
  location.add("Location", "http://secure.test/next");
  auto verdict = hops.on_head(302, location, std::string_view());
  ASSERT_TRUE(verdict.ok()) << verdict.error().message();
  ASSERT_EQ(*verdict, FetchHops::Verdict::redirect);
  ASSERT_TRUE(hops.follow_redirect(false).ok());
  EXPECT_EQ(hops.url().to_string(), "https://secure.test/next");
}

}  // namespace
}  // namespace sluice
