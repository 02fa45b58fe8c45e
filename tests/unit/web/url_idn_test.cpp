// Internationalized host names: Url::parse converts them to A-labels (UTS #46, as
// curl does with libidn2), and to_display_string() shows them in Unicode again.

#include "web/url_idn.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sluice/url.hpp"

namespace sluice {
namespace {

Url parsed(const std::string& text) {
  auto url = Url::parse(text);
  EXPECT_TRUE(url.ok()) << text << ": " << (url.ok() ? "" : url.error().message());
  return url.ok() ? *url : Url{};
}

TEST(UrlIdn, UnicodeHostBecomesItsALabel) {
  const Url url = parsed("http://b\u00fccher.example/a?b");
  EXPECT_EQ(url.host, "xn--bcher-kva.example");
  EXPECT_EQ(url.authority(), "xn--bcher-kva.example");
  EXPECT_EQ(url.origin(), "http://xn--bcher-kva.example");
  EXPECT_EQ(url.to_string(), "http://xn--bcher-kva.example/a?b");
}

TEST(UrlIdn, MixedCaseMapsToTheSameName) {
  const Url url = parsed("https://B\u00fcCHER.Example:8443/");
  EXPECT_EQ(url.host, "xn--bcher-kva.example");
  EXPECT_EQ(url.authority(), "xn--bcher-kva.example:8443");
}

TEST(UrlIdn, NonTransitionalKeepsSharpS) {
  // Transitional processing would map "ß" to "ss" and reach another host.
  EXPECT_EQ(parsed("http://stra\u00dfe.de/").host, "xn--strae-oqa.de");
}

TEST(UrlIdn, NonLatinScripts) {
  EXPECT_EQ(parsed("http://\u65e5\u672c\u8a9e.jp/").host, "xn--wgv71a119e.jp");
}

TEST(UrlIdn, TransitionalRetryAcceptsWhatIdna2003Did) {
  // A zero-width joiner outside its permitted context fails non-transitional
  // processing; transitional drops it, as curl's retry does.
  EXPECT_EQ(parsed("http://a\u200d\u00fc.example/").host, "xn--a-eha.example");
}

TEST(UrlIdn, NameThatDoesNotConvertIsBadUrlNamingTheHost) {
  for (const std::string host : {"-\u00fc.example", "ab\u202e.example", "\u00fc.xn--zz.example"}) {
    auto url = Url::parse("http://" + host + "/");
    ASSERT_FALSE(url.ok()) << host << " gave " << url->host;
    EXPECT_EQ(url.error().code(), ErrorCode::bad_url);
    const std::string message = url.error().message();
    EXPECT_NE(message.find("not a valid international name"), std::string::npos) << message;
    // printable() escapes non-ASCII bytes; the ASCII part of the host is there.
    EXPECT_NE(message.find(".example"), std::string::npos) << message;
  }
}

TEST(UrlIdn, AsciiHostsAreLeftAsTheyAre) {
  // Only a name with non-ASCII bytes is converted, as in curl: an "xn--" label that
  // is not valid punycode goes to DNS unchanged.
  EXPECT_EQ(parsed("http://xn--zz.example/").host, "xn--zz.example");
  EXPECT_EQ(parsed("http://Example.ORG/").host, "example.org");
}

TEST(UrlIdn, RedirectTargetsConvertToo) {
  const Url base = parsed("http://example.org/a");
  auto next = base.resolve("//b\u00fccher.example/x");
  ASSERT_TRUE(next.ok()) << next.error().message();
  EXPECT_EQ(next->host, "xn--bcher-kva.example");
  auto absolute = base.resolve("https://b\u00fccher.example/");
  ASSERT_TRUE(absolute.ok()) << absolute.error().message();
  EXPECT_EQ(absolute->host, "xn--bcher-kva.example");
}

TEST(UrlIdn, DisplayStringShowsUnicode) {
  EXPECT_EQ(parsed("http://B\u00fccher.example:8080/p").to_display_string(),
            "http://b\u00fccher.example:8080/p");
  EXPECT_EQ(parsed("http://xn--bcher-kva.example/").to_display_string(),
            "http://b\u00fccher.example/");
  // A label that does not decode is shown as it is sent.
  EXPECT_EQ(parsed("http://xn--zz.example/").to_display_string(), "http://xn--zz.example/");
  EXPECT_EQ(parsed("http://[::1]:81/").to_display_string(), "http://[::1]:81/");
}

TEST(UrlIdn, NeedsIdnaOnlyForNonAscii) {
  EXPECT_TRUE(url_detail::needs_idna("b\u00fccher.example"));
  EXPECT_FALSE(url_detail::needs_idna("xn--bcher-kva.example"));
}

}  // namespace
}  // namespace sluice
