// Which proxy a request takes: the options' proxy, or the environment read as curl
// reads it (HTTP_PROXY in capitals never), minus what no_proxy names (names and
// their subdomains, addresses, CIDR ranges, "*"); and URL credentials as Basic.
#include "auth/proxy_choice.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "auth/credentials.hpp"

namespace sluice {
namespace {

Url url(const char* text) { return Url::parse(text).value(); }

ProxySettings::Environment environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

ProxySettings from_environment(std::map<std::string, std::string> values,
                               std::optional<std::string> no_proxy_option = std::nullopt) {
  ClientOptions options;
  options.proxy.from_environment = true;
  options.proxy.no_proxy = std::move(no_proxy_option);
  return ProxySettings::from(options, environment(std::move(values))).value();
}

std::string route_of(const ProxySettings& settings, const char* target) {
  auto route = settings.route_for(url(target));
  if (!route) return "direct";
  return route->host + ":" + std::to_string(route->port) + (route->tunnel ? " tunnel" : " forward");
}

TEST(ProxyChoice, TheOptionsProxyTakesEveryRequestHttpsThroughATunnel) {
  ClientOptions options;
  options.proxy.url = "http://proxy.example:3128";
  const auto settings = ProxySettings::from(options).value();
  EXPECT_EQ(route_of(settings, "http://a.example/"), "proxy.example:3128 forward");
  EXPECT_EQ(route_of(settings, "https://a.example/"), "proxy.example:3128 tunnel");
  options.proxy.tunnel = true;
  EXPECT_EQ(route_of(ProxySettings::from(options).value(), "http://a.example/"),
            "proxy.example:3128 tunnel");
}

TEST(ProxyChoice, NoSchemeMeansHttpAndNoPortMeans1080) {
  ClientOptions options;
  options.proxy.url = "proxy.example";
  EXPECT_EQ(route_of(ProxySettings::from(options).value(), "http://a.example/"),
            "proxy.example:1080 forward");
  options.proxy.url = "http://[::1]";
  EXPECT_EQ(route_of(ProxySettings::from(options).value(), "http://a.example/"),
            "::1:1080 forward");
  options.proxy.url = "http://[::1]:8080";
  EXPECT_EQ(route_of(ProxySettings::from(options).value(), "http://a.example/"),
            "::1:8080 forward");
}

TEST(ProxyChoice, AnUnsupportedOrBrokenProxyIsRefusedWithItsName) {
  ClientOptions options;
  options.proxy.url = "socks4://127.0.0.1:1080";
  auto refused = ProxySettings::from(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().category(), ErrorCategory::usage);
  EXPECT_NE(refused.error().message().find("socks4://"), std::string::npos)
      << refused.error().message();
  options.proxy.url = "http://user:bad%zzescape@proxy:1";
  EXPECT_FALSE(ProxySettings::from(options).ok());
}

TEST(ProxyChoice, AProxyUserWithAControlCharacterIsRefused) {
  for (const char* user : {"user:pass\r\nX-Injected: 1", "user\n:pass", "user:pa\x7fss"}) {
    ClientOptions options;
    options.proxy.url = "socks5://proxy.example:1080";
    options.proxy.user = user;
    const auto settings = ProxySettings::from(options);
    ASSERT_FALSE(settings.ok()) << user;
    EXPECT_EQ(settings.error().category(), ErrorCategory::usage);
    EXPECT_NE(settings.error().message().find("--proxy-user"), std::string::npos);
  }
  // The same bytes %-escaped in the proxy URL.
  ClientOptions escaped;
  escaped.proxy.url = "socks5://us%0D%0Aer:pw@proxy.example:1080";
  const auto from_url = ProxySettings::from(escaped);
  ASSERT_FALSE(from_url.ok());
  EXPECT_NE(from_url.error().message().find("control character"), std::string::npos)
      << from_url.error().message();
  EXPECT_EQ(from_url.error().message().find("us%0D%0Aer"), std::string::npos)
      << "the message shows the credentials";
  ClientOptions fine;
  fine.proxy.user = "user:p@ss word";
  EXPECT_TRUE(ProxySettings::from(fine).ok());
}

TEST(ProxyChoice, TheEnvironmentIsReadOnlyWhenAskedFor) {
  ClientOptions options;  // proxy_from_environment is off
  const auto settings =
      ProxySettings::from(options, environment({{"http_proxy", "http://p:1"}})).value();
  EXPECT_EQ(route_of(settings, "http://a.example/"), "direct");
}

TEST(ProxyChoice, TheEnvironmentPicksBySchemeAndFallsBackToAllProxy) {
  const auto settings = from_environment({{"http_proxy", "http://plain:1"},
                                          {"HTTPS_PROXY", "http://secure:2"},
                                          {"ALL_PROXY", "all:3"}});
  EXPECT_EQ(route_of(settings, "http://a.example/"), "plain:1 forward");
  EXPECT_EQ(route_of(settings, "https://a.example/"), "secure:2 tunnel");
  const auto all = from_environment({{"all_proxy", "http://all:3"}});
  EXPECT_EQ(route_of(all, "http://a.example/"), "all:3 forward");
  EXPECT_EQ(route_of(all, "https://a.example/"), "all:3 tunnel");
  // https_proxy in lowercase wins over the capitals, as in curl.
  EXPECT_EQ(route_of(from_environment({{"https_proxy", "low:4"}, {"HTTPS_PROXY", "up:5"}}),
                     "https://a.example/"),
            "low:4 tunnel");
}

TEST(ProxyChoice, HttpProxyInCapitalsIsNeverRead) {
  const auto settings = from_environment({{"HTTP_PROXY", "http://attacker:1"}});
  EXPECT_EQ(route_of(settings, "http://a.example/"), "direct");
}

TEST(ProxyChoice, NoProxyFromTheEnvironmentOrTheOptions) {
  const auto settings =
      from_environment({{"all_proxy", "p:1"}, {"no_proxy", "internal.example, 10.0.0.0/8"}});
  EXPECT_EQ(route_of(settings, "http://internal.example/"), "direct");
  EXPECT_EQ(route_of(settings, "https://api.internal.example/"), "direct");
  EXPECT_EQ(route_of(settings, "http://10.2.3.4/"), "direct");
  EXPECT_EQ(route_of(settings, "http://outside.example/"), "p:1 forward");
  // The option wins over the environment's list.
  const auto overridden =
      from_environment({{"all_proxy", "p:1"}, {"NO_PROXY", "a.example"}}, "b.example");
  EXPECT_EQ(route_of(overridden, "http://a.example/"), "p:1 forward");
  EXPECT_EQ(route_of(overridden, "http://b.example/"), "direct");
}

TEST(NoProxy, NamesMatchThemselvesAndSubdomainsOnly) {
  const auto entries = split_no_proxy(".Example.org,localhost");
  EXPECT_TRUE(no_proxy_matches(entries, "example.org"));
  EXPECT_TRUE(no_proxy_matches(entries, "www.EXAMPLE.org"));
  EXPECT_TRUE(no_proxy_matches(entries, "localhost"));
  EXPECT_FALSE(no_proxy_matches(entries, "badexample.org"));
  EXPECT_FALSE(no_proxy_matches(entries, "example.org.evil"));
  EXPECT_TRUE(no_proxy_matches(split_no_proxy("*"), "anything.at.all"));
}

TEST(NoProxy, AddressesAndRangesOfBothFamilies) {
  const auto entries = split_no_proxy("192.168.1.7 172.16.0.0/12,::1,fd00::/8");
  EXPECT_TRUE(no_proxy_matches(entries, "192.168.1.7"));
  EXPECT_FALSE(no_proxy_matches(entries, "192.168.1.8"));
  EXPECT_TRUE(no_proxy_matches(entries, "172.31.255.255"));
  EXPECT_FALSE(no_proxy_matches(entries, "172.32.0.1"));
  EXPECT_TRUE(no_proxy_matches(entries, "::1"));
  EXPECT_TRUE(no_proxy_matches(entries, "fd12:3456::1"));
  EXPECT_FALSE(no_proxy_matches(entries, "fe80::1"));
  EXPECT_FALSE(no_proxy_matches(entries, "172.16.example"));
  // A range without a number is no range: it must not read as /0, every host.
  EXPECT_FALSE(no_proxy_matches(split_no_proxy("10.0.0.0/,10.0.0.0/x"), "192.168.1.1"));
  EXPECT_TRUE(no_proxy_matches(split_no_proxy("0.0.0.0/0"), "192.168.1.1"));
  EXPECT_TRUE(no_proxy_matches(split_no_proxy("example.org"), "www.example.org."));
}

TEST(ProxyChoice, APasswordNeverShowsInAMessage) {
  ClientOptions options;
  options.proxy.url = "socks4://user:hunter2@proxy:1080";
  auto refused = ProxySettings::from(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message().find("hunter2"), std::string::npos)
      << refused.error().message();
  options.proxy.url = "http://user:hunter2@proxy:notaport";
  auto unparsed = ProxySettings::from(options);
  ASSERT_FALSE(unparsed.ok());
  EXPECT_EQ(unparsed.error().message().find("hunter2"), std::string::npos)
      << unparsed.error().message();
}

TEST(ProxyChoice, AnEmptyNoProxyOptionOverridesTheEnvironmentsList) {
  const auto settings = from_environment({{"all_proxy", "p:1"}, {"no_proxy", "a.example"}}, "");
  EXPECT_EQ(route_of(settings, "http://a.example/"), "p:1 forward");
}

TEST(ProxyChoice, AnOptionsProxyStillTakesTheEnvironmentsNoProxy) {
  ClientOptions options;
  options.proxy.url = "http://p:1";
  options.proxy.from_environment = true;  // as the CLI does with -x
  const auto settings =
      ProxySettings::from(options, environment({{"NO_PROXY", "a.example"}, {"http_proxy", "q:2"}}))
          .value();
  EXPECT_EQ(route_of(settings, "http://a.example/"), "direct");
  EXPECT_EQ(route_of(settings, "http://b.example/"), "p:1 forward");
}

TEST(ProxyChoice, ProxyCredentialsBecomeBasicAuthorization) {
  ClientOptions options;
  options.proxy.url = "http://sluice:proxy%2Dsecret@127.0.0.1:3128";
  const auto route = ProxySettings::from(options).value().route_for(url("https://a.example/"));
  ASSERT_TRUE(route.has_value());
  EXPECT_EQ(route->authorization, "Basic " + base64("sluice:proxy-secret"));
  EXPECT_EQ(route->display, "127.0.0.1:3128") << "a proxy's name in messages carries no password";
}

TEST(ProxyChoice, ProxyUserOverridesTheUrlsCredentialsForEveryProxy) {
  ClientOptions options;
  options.proxy.from_environment = true;
  options.proxy.user = "me:p@ss";  // as given, not %-encoded
  const auto settings =
      ProxySettings::from(options, environment({{"https_proxy", "http://old:creds@p:1"}})).value();
  const auto route = settings.route_for(url("https://a.example/"));
  ASSERT_TRUE(route.has_value());
  EXPECT_EQ(route->authorization, "Basic " + base64("me:p@ss"));
}

TEST(Credentials, Base64OfRfc4648sVectors) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
}

TEST(Credentials, UserinfoIsPercentDecodedThenEncoded) {
  // RFC 7617's example: Aladdin with "open sesame".
  EXPECT_EQ(basic_credentials("Aladdin:open%20sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(basic_credentials("user"), "Basic " + base64("user:"));
  EXPECT_EQ(basic_credentials(""), std::nullopt);
  EXPECT_EQ(basic_credentials("user:%4"), std::nullopt);
  EXPECT_EQ(basic_credentials("user:%g0"), std::nullopt);
}

}  // namespace
}  // namespace sluice
