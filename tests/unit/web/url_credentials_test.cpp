// Url::without_credentials() and url_without_credentials(): a URL less its
// user:password, as messages, progress lines, a Referer and a control file show it.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "sluice/url.hpp"

namespace sluice {
namespace {

Url parsed(std::string_view text) {
  auto result = Url::parse(text);
  EXPECT_TRUE(result.ok()) << "'" << text << "': " << (result.ok() ? "" : result.error().message());
  return result.ok() ? result.value() : Url{};
}

TEST(UrlWithoutCredentials, DropsAUserAndPassword) {
  const Url url = parsed("http://user:secret@example.org/f");
  const Url shown = url.without_credentials();
  EXPECT_EQ(shown.userinfo, "");
  EXPECT_EQ(shown.to_string(), "http://example.org/f");
  EXPECT_EQ(url.userinfo, "user:secret") << "the URL itself keeps them";
}

TEST(UrlWithoutCredentials, DropsAUserWithoutPassword) {
  EXPECT_EQ(parsed("https://user@example.org/").without_credentials().to_string(),
            "https://example.org/");
}

TEST(UrlWithoutCredentials, AUrlWithoutUserinfoIsUnchanged) {
  const Url url = parsed("https://example.org:8443/a?b#c");
  const Url shown = url.without_credentials();
  EXPECT_EQ(shown.to_string(), url.to_string());
  EXPECT_EQ(shown.fragment, "c");
}

TEST(UrlWithoutCredentials, KeepsAnIpv6HostPortQueryAndFragment) {
  const Url shown =
      parsed("http://u%40x:p%3Aw@[2001:db8::7]:8080/p/a%20th?q=1&r#frag").without_credentials();
  EXPECT_EQ(shown.scheme, "http");
  EXPECT_EQ(shown.host, "2001:db8::7");
  EXPECT_EQ(shown.port, 8080);
  EXPECT_EQ(shown.path, "/p/a%20th");
  EXPECT_EQ(shown.query, "q=1&r");
  EXPECT_TRUE(shown.has_query);
  EXPECT_EQ(shown.fragment, "frag");
  EXPECT_EQ(shown.to_string(), "http://[2001:db8::7]:8080/p/a%20th?q=1&r");
}

TEST(UrlWithoutCredentials, TextWithUserinfoIsWrittenAgainWithoutItOrTheFragment) {
  EXPECT_EQ(url_without_credentials("http://user:secret@example.org/f"), "http://example.org/f");
  EXPECT_EQ(url_without_credentials("http://user@example.org/f"), "http://example.org/f");
  EXPECT_EQ(url_without_credentials("https://user:pw@[::1]:8443/x?y=1#z"),
            "https://[::1]:8443/x?y=1");
}

// Without credentials the text is returned as written, so a message shows the URL as
// the user typed it, and a control file keeps the URL as the download was asked for.
TEST(UrlWithoutCredentials, TextWithoutUserinfoOrThatDoesNotParseIsAsWritten) {
  EXPECT_EQ(url_without_credentials("HTTP://Example.ORG"), "HTTP://Example.ORG");
  EXPECT_EQ(url_without_credentials("http://example.org/a#frag"), "http://example.org/a#frag");
  EXPECT_EQ(url_without_credentials("not a url"), "not a url");
  EXPECT_EQ(url_without_credentials(""), "");
}

}  // namespace
}  // namespace sluice
