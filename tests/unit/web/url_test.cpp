#include "sluice/url.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sluice {
namespace {

using namespace std::string_literals;

Url parsed(std::string_view text) {
  auto result = Url::parse(text);
  EXPECT_TRUE(result.ok()) << "'" << text << "': " << (result.ok() ? "" : result.error().message());
  return result.ok() ? result.value() : Url{};
}

std::string parse_error(std::string_view text) {
  auto result = Url::parse(text);
  EXPECT_FALSE(result.ok()) << "accepted '" << text << "' as "
                            << (result.ok() ? result->to_string() : "");
  if (result.ok()) return {};
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  return result.error().message();
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// ---- valid URLs -------------------------------------------------------------

TEST(UrlParse, SplitsEveryComponent) {
  const Url url = parsed("http://user:pw@example.org:8080/a/b?x=1&y=2#top");
  EXPECT_EQ(url.scheme, "http");
  EXPECT_EQ(url.userinfo, "user:pw");
  EXPECT_EQ(url.host, "example.org");
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.path, "/a/b");
  EXPECT_TRUE(url.has_query);
  EXPECT_EQ(url.query, "x=1&y=2");
  EXPECT_EQ(url.fragment, "top");
}

TEST(UrlParse, AppliesDefaultPorts) {
  const Url http = parsed("http://example.org/");
  EXPECT_EQ(http.port, 80);
  EXPECT_TRUE(http.has_default_port());
  EXPECT_FALSE(http.is_https());
  const Url https = parsed("https://example.org/");
  EXPECT_EQ(https.port, 443);
  EXPECT_TRUE(https.has_default_port());
  EXPECT_TRUE(https.is_https());
}

TEST(UrlParse, KeepsAnExplicitPort) {
  const Url url = parsed("https://example.org:8443/x");
  EXPECT_EQ(url.port, 8443);
  EXPECT_FALSE(url.has_default_port());
  EXPECT_EQ(url.authority(), "example.org:8443");
  EXPECT_EQ(url.origin(), "https://example.org:8443");
}

TEST(UrlParse, ExplicitDefaultPortLeavesTheAuthority) {
  EXPECT_EQ(parsed("http://example.org:80/").authority(), "example.org");
  EXPECT_EQ(parsed("https://example.org:443/").to_string(), "https://example.org/");
  // The default port of the other scheme is not a default.
  EXPECT_EQ(parsed("https://example.org:80/").authority(), "example.org:80");
}

TEST(UrlParse, EmptyPortMeansTheDefault) {
  EXPECT_EQ(parsed("http://example.org:/x").port, 80);
  EXPECT_EQ(parsed("https://[::1]:/").port, 443);
}

TEST(UrlParse, PortRangeEnds) {
  EXPECT_EQ(parsed("http://h:1/").port, 1);
  EXPECT_EQ(parsed("http://h:65535/").port, 65535);
  EXPECT_EQ(parsed("http://h:00080/").port, 80);
}

TEST(UrlParse, LowercasesSchemeAndHostButNotPath) {
  const Url url = parsed("HTTPS://ExAmple.ORG/Path/File?Q=A#F");
  EXPECT_EQ(url.scheme, "https");
  EXPECT_EQ(url.host, "example.org");
  EXPECT_EQ(url.path, "/Path/File");
  EXPECT_EQ(url.query, "Q=A");
  EXPECT_EQ(url.to_string(), "https://example.org/Path/File?Q=A");
}

TEST(UrlParse, EmptyPathBecomesSlash) {
  EXPECT_EQ(parsed("http://example.org").path, "/");
  EXPECT_EQ(parsed("http://example.org").target(), "/");
  const Url with_query = parsed("http://example.org?q=1");
  EXPECT_EQ(with_query.path, "/");
  EXPECT_EQ(with_query.target(), "/?q=1");
  const Url with_fragment = parsed("http://example.org#f");
  EXPECT_EQ(with_fragment.path, "/");
  EXPECT_EQ(with_fragment.fragment, "f");
}

TEST(UrlParse, EmptyQueryDiffersFromNoQuery) {
  const Url empty_query = parsed("http://example.org/x?");
  EXPECT_TRUE(empty_query.has_query);
  EXPECT_EQ(empty_query.query, "");
  EXPECT_EQ(empty_query.target(), "/x?");
  const Url no_query = parsed("http://example.org/x");
  EXPECT_FALSE(no_query.has_query);
  EXPECT_EQ(no_query.target(), "/x");
  EXPECT_FALSE(parsed("http://example.org/x#a?b").has_query);
}

TEST(UrlParse, FragmentIsKeptButNeverSent) {
  const Url url = parsed("http://example.org/a?b#c/d?e");
  EXPECT_EQ(url.fragment, "c/d?e");
  EXPECT_EQ(url.target(), "/a?b");
  EXPECT_EQ(url.to_string(), "http://example.org/a?b");
}

TEST(UrlParse, KeepsUserinfoRawAndOutOfTheOrigin) {
  const Url url = parsed("http://us%20er:p%40ss;x=1@Example.org/");
  EXPECT_EQ(url.userinfo, "us%20er:p%40ss;x=1");
  EXPECT_EQ(url.host, "example.org");
  EXPECT_EQ(url.authority(), "example.org");
  EXPECT_EQ(url.origin(), "http://example.org");
  EXPECT_EQ(url.to_string(), "http://us%20er:p%40ss;x=1@example.org/");
}

TEST(UrlParse, EmptyUserinfoIsAccepted) {
  const Url url = parsed("http://@example.org/");
  EXPECT_EQ(url.userinfo, "");
  EXPECT_EQ(url.to_string(), "http://example.org/");
}

TEST(UrlParse, Ipv4Host) {
  const Url url = parsed("http://192.0.2.1:8080/x");
  EXPECT_EQ(url.host, "192.0.2.1");
  EXPECT_FALSE(url.is_ipv6_literal());
  EXPECT_EQ(url.authority(), "192.0.2.1:8080");
  EXPECT_EQ(parsed("http://0.0.0.0/").host, "0.0.0.0");
  EXPECT_EQ(parsed("http://255.255.255.255/").host, "255.255.255.255");
}

TEST(UrlParse, Ipv6HostWithPort) {
  const Url url = parsed("http://[::1]:8080/x?y");
  EXPECT_EQ(url.host, "::1");
  EXPECT_TRUE(url.is_ipv6_literal());
  EXPECT_EQ(url.port, 8080);
  EXPECT_EQ(url.authority(), "[::1]:8080");
  EXPECT_EQ(url.origin(), "http://[::1]:8080");
  EXPECT_EQ(url.to_string(), "http://[::1]:8080/x?y");
}

TEST(UrlParse, Ipv6HostWithoutPort) {
  const Url url = parsed("https://[2001:db8::7]/");
  EXPECT_EQ(url.host, "2001:db8::7");
  EXPECT_EQ(url.port, 443);
  EXPECT_EQ(url.authority(), "[2001:db8::7]");
}

TEST(UrlParse, Ipv6HostIsCanonical) {
  EXPECT_EQ(parsed("http://[2001:DB8:0:0:0:0:0:1]/").host, "2001:db8::1");
  EXPECT_EQ(parsed("http://[0:0::1]/").host, "::1");
  EXPECT_EQ(parsed("http://[::FFFF:192.0.2.1]/").host, "::ffff:192.0.2.1");
}

TEST(UrlParse, HostNameForms) {
  EXPECT_EQ(parsed("http://localhost/").host, "localhost");
  EXPECT_EQ(parsed("http://my_service.internal/").host, "my_service.internal");
  EXPECT_EQ(parsed("http://example.org./").host, "example.org.");
  EXPECT_EQ(parsed("http://xn--caf-dma.example/").host, "xn--caf-dma.example");
  EXPECT_EQ(parsed("http://a1.b-2.example/").host, "a1.b-2.example");
  EXPECT_EQ(parsed("http://1.2.3.example/").host, "1.2.3.example");
}

TEST(UrlParse, TrimsSurroundingSpaces) {
  const Url url = parsed("   http://example.org/a b  ");
  EXPECT_EQ(url.host, "example.org");
  EXPECT_EQ(url.path, "/a%20b");
}

// ---- percent-encoding -------------------------------------------------------

TEST(UrlEncoding, EncodesSpacesInEveryComponent) {
  const Url url = parsed("http://example.org/a b/c?d e=f g#h i");
  EXPECT_EQ(url.path, "/a%20b/c");
  EXPECT_EQ(url.query, "d%20e=f%20g");
  EXPECT_EQ(url.fragment, "h%20i");
}

TEST(UrlEncoding, EncodesCharactersAPathMayNotHold) {
  EXPECT_EQ(parsed("http://h/\"<>\\^`{|}").path, "/%22%3C%3E%5C%5E%60%7B%7C%7D");
  EXPECT_EQ(parsed("http://h/[x]").path, "/%5Bx%5D");
}

TEST(UrlEncoding, EncodesCharactersAQueryMayNotHold) {
  EXPECT_EQ(parsed("http://h/?a=\"<x>\"&b={1|2}").query, "a=%22%3Cx%3E%22&b=%7B1%7C2%7D");
}

TEST(UrlEncoding, EncodesNonAsciiBytes) {
  EXPECT_EQ(parsed("http://h/caf\xC3\xA9?q=\xE2\x82\xAC").path, "/caf%C3%A9");
  EXPECT_EQ(parsed("http://h/caf\xC3\xA9?q=\xE2\x82\xAC").query, "q=%E2%82%AC");
  EXPECT_EQ(parsed("http://h/\xFF").path, "/%FF");
}

TEST(UrlEncoding, EncodesControlBytesOtherThanTheRefusedOnes) {
  EXPECT_EQ(parsed("http://h/a\x01z\x1F\x7F").path, "/a%01z%1F%7F");
  EXPECT_EQ(parsed("http://h/?\x0B").query, "%0B");
}

TEST(UrlEncoding, KeepsValidEscapesAsWritten) {
  const Url url = parsed("http://h/a%2fb%2F%20?x=%3d%3D#%41");
  EXPECT_EQ(url.path, "/a%2fb%2F%20");
  EXPECT_EQ(url.query, "x=%3d%3D");
  EXPECT_EQ(url.fragment, "%41");
}

TEST(UrlEncoding, EncodesAPercentThatStartsNoEscape) {
  EXPECT_EQ(parsed("http://h/100%").path, "/100%25");
  EXPECT_EQ(parsed("http://h/%4").path, "/%254");
  EXPECT_EQ(parsed("http://h/%zz%4g").path, "/%25zz%254g");
  EXPECT_EQ(parsed("http://h/?p=50%off").query, "p=50%25off");
}

TEST(UrlEncoding, KeepsCharactersTheComponentAllows) {
  const std::string path = "/a-b._~!$&'()*+,;=:@/c";
  EXPECT_EQ(parsed("http://h" + path).path, path);
  EXPECT_EQ(parsed("http://h/?a/b?c:d@e").query, "a/b?c:d@e");
  EXPECT_EQ(parsed("http://h/#a/b?c").fragment, "a/b?c");
}

TEST(UrlEncoding, EncodesASecondHashInTheFragment) {
  EXPECT_EQ(parsed("http://h/#a#b").fragment, "a%23b");
}

TEST(UrlEncoding, EncodedUrlParsesToItself) {
  const Url first = parsed("http://h/a b/\xC3\xA9/%/x?q=<1> 2");
  const Url second = parsed(first.to_string());
  EXPECT_EQ(second.path, first.path);
  EXPECT_EQ(second.query, first.query);
  EXPECT_EQ(second.to_string(), first.to_string());
}

// ---- dot segments -------------------------------------------------------------

TEST(UrlDotSegments, AreRemovedFromThePath) {
  EXPECT_EQ(parsed("http://h/a/b/c/./../../g").path, "/a/g");
  EXPECT_EQ(parsed("http://h/a/./b").path, "/a/b");
  EXPECT_EQ(parsed("http://h/a/b/../c").path, "/a/c");
  EXPECT_EQ(parsed("http://h/mid/content=5/../6").path, "/mid/6");
}

TEST(UrlDotSegments, FinalDotSegmentLeavesATrailingSlash) {
  EXPECT_EQ(parsed("http://h/a/.").path, "/a/");
  EXPECT_EQ(parsed("http://h/a/b/..").path, "/a/");
  EXPECT_EQ(parsed("http://h/a/..").path, "/");
  EXPECT_EQ(parsed("http://h/.").path, "/");
}

TEST(UrlDotSegments, CannotClimbAboveTheRoot) {
  EXPECT_EQ(parsed("http://h/..").path, "/");
  EXPECT_EQ(parsed("http://h/../a").path, "/a");
  EXPECT_EQ(parsed("http://h/a/../../../b").path, "/b");
}

TEST(UrlDotSegments, KeepEmptySegments) {
  EXPECT_EQ(parsed("http://h//a//b/").path, "//a//b/");
  EXPECT_EQ(parsed("http://h/a//../b").path, "/a/b");
}

TEST(UrlDotSegments, LeaveNamesThatOnlyContainDots) {
  EXPECT_EQ(parsed("http://h/a/.../b/.c/..d/e..").path, "/a/.../b/.c/..d/e..");
  // Only literal dots are dot segments; an escaped one goes to the server as written.
  EXPECT_EQ(parsed("http://h/a/%2e%2e/b").path, "/a/%2e%2e/b");
}

TEST(UrlDotSegments, LeaveTheQueryAndFragmentAlone) {
  const Url url = parsed("http://h/a/../b?x/../y#z/./w");
  EXPECT_EQ(url.path, "/b");
  EXPECT_EQ(url.query, "x/../y");
  EXPECT_EQ(url.fragment, "z/./w");
}

// ---- refused URLs -------------------------------------------------------------

TEST(UrlParseError, UnsupportedSchemeIsNamed) {
  EXPECT_EQ(parse_error("ftp://x/"),
            "URL: unsupported scheme 'ftp' in 'ftp://x/' (only http and https)");
  EXPECT_TRUE(contains(parse_error("ws://x/"), "unsupported scheme 'ws'"));
  EXPECT_TRUE(contains(parse_error("javascript:alert(1)"), "unsupported scheme 'javascript'"));
  EXPECT_TRUE(contains(parse_error("file:///etc/passwd"), "unsupported scheme 'file'"));
}

TEST(UrlParseError, MissingScheme) {
  EXPECT_EQ(parse_error("example.org/path"),
            "URL: missing scheme in 'example.org/path' (expected http:// or https://)");
  EXPECT_TRUE(contains(parse_error("//example.org/"), "missing scheme"));
  EXPECT_TRUE(contains(parse_error("://example.org/"), "missing scheme"));
  EXPECT_TRUE(contains(parse_error("localhost:8080/x"), "missing scheme"));
}

TEST(UrlParseError, InvalidSchemeSyntax) {
  EXPECT_TRUE(contains(parse_error("1http://x/"), "invalid scheme '1http'"));
  EXPECT_TRUE(contains(parse_error("ht tp://x/"), "invalid scheme 'ht tp'"));
}

TEST(UrlParseError, AuthorityIsRequired) {
  EXPECT_EQ(parse_error("http:/x"),
            "URL: expected '//' after 'http:' in 'http:/x' (an http(s) URL needs a host, "
            "as in http://example.org/)");
  EXPECT_TRUE(contains(parse_error("https:example.org"), "expected '//' after 'https:'"));
  EXPECT_TRUE(contains(parse_error("http:"), "expected '//'"));
}

TEST(UrlParseError, MissingHost) {
  EXPECT_EQ(parse_error("http:///x"), "URL: missing host in 'http:///x'");
  EXPECT_TRUE(contains(parse_error("http://"), "missing host"));
  EXPECT_TRUE(contains(parse_error("http://:80/"), "missing host"));
  EXPECT_TRUE(contains(parse_error("http://user@/"), "missing host"));
  EXPECT_TRUE(contains(parse_error("http://?q"), "missing host"));
}

TEST(UrlParseError, InvalidPort) {
  EXPECT_EQ(parse_error("http://example.org:99999/"),
            "URL: invalid port '99999' in 'http://example.org:99999/' (a port is a number "
            "from 1 to 65535)");
  EXPECT_TRUE(contains(parse_error("http://h:0/"), "invalid port '0'"));
  EXPECT_TRUE(contains(parse_error("http://h:65536/"), "invalid port '65536'"));
  EXPECT_TRUE(contains(parse_error("http://h:8o/"), "invalid port '8o'"));
  EXPECT_TRUE(contains(parse_error("http://h:-1/"), "invalid port '-1'"));
  EXPECT_TRUE(contains(parse_error("http://h: 80/"), "invalid port ' 80'"));
  EXPECT_TRUE(contains(parse_error("http://h:184467440737095516170/"), "invalid port"));
}

TEST(UrlParseError, RefusesSmugglingBytesAnywhere) {
  EXPECT_TRUE(contains(parse_error("http://h/a\r\nHost: evil"), "carriage return (CR)"));
  EXPECT_TRUE(contains(parse_error("http://h/a\nb"), "line feed (LF)"));
  EXPECT_TRUE(contains(parse_error("http://h/a?b\nc"), "line feed (LF)"));
  EXPECT_TRUE(contains(parse_error("http://h/#a\rb"), "carriage return (CR)"));
  EXPECT_TRUE(contains(parse_error("http://h\n.example/"), "line feed (LF)"));
  EXPECT_TRUE(contains(parse_error("http://h/a\0b"s), "NUL byte"));
  EXPECT_TRUE(contains(parse_error("http://h/a\tb"), "tab"));
}

TEST(UrlParseError, MessageEscapesControlBytes) {
  const std::string message = parse_error("http://h/a\r\nb");
  EXPECT_TRUE(contains(message, "'http://h/a\\x0D\\x0Ab'")) << message;
  EXPECT_FALSE(contains(message, "\n")) << message;
  EXPECT_FALSE(contains(message, "\r")) << message;
}

TEST(UrlParseError, MessageCutsLongInput) {
  const std::string message = parse_error("ftp://h/" + std::string(5000, 'a'));
  EXPECT_LT(message.size(), 400u);
  EXPECT_TRUE(contains(message, "aaa...'")) << message;
}

TEST(UrlParseError, EmptyInput) {
  EXPECT_TRUE(contains(parse_error(""), "empty"));
  EXPECT_TRUE(contains(parse_error("    "), "empty"));
}

TEST(UrlParseError, SpaceInHost) {
  EXPECT_EQ(parse_error("http://exa mple.org/"),
            "URL: space is not allowed in host 'exa mple.org' in 'http://exa mple.org/'");
}

TEST(UrlParseError, BadHostCharacters) {
  EXPECT_TRUE(contains(parse_error("http://a!b/"), "character '!' is not allowed in host"));
  EXPECT_TRUE(contains(parse_error("http://a\\b/"), "character '\\' is not allowed in host"));
  EXPECT_TRUE(contains(parse_error("http://a%41b/"), "percent-encoded host name"));
  EXPECT_TRUE(contains(parse_error("http://a\x01"
                                   "b/"),
                       "control byte 0x01"));
}

TEST(UrlParseError, MalformedHostNames) {
  EXPECT_TRUE(contains(parse_error("http://a..b/"), "empty label in host name 'a..b'"));
  EXPECT_TRUE(contains(parse_error("http://.a/"), "empty label"));
  EXPECT_TRUE(contains(parse_error("http://./"), "empty label"));
  EXPECT_TRUE(contains(parse_error("http://" + std::string(64, 'a') + ".example/"),
                       "label longer than 63"));
  std::string long_name;
  for (int i = 0; i < 26; ++i) long_name += "abcdefghi.";
  long_name += "org";
  EXPECT_TRUE(contains(parse_error("http://" + long_name + "/"), "longer than 253"));
}

TEST(UrlParseError, InvalidIpv4Addresses) {
  for (std::string_view url : {"http://256.1.1.1/", "http://1.2.3/", "http://1.2.3.4.5/",
                               "http://010.0.0.1/", "http://1.2.3.4./"}) {
    EXPECT_TRUE(contains(parse_error(url), "invalid IPv4 address")) << url;
  }
}

TEST(UrlParseError, NumericHostsResolversWouldReadAsAddresses) {
  // inet_aton reads all of these as 127.0.0.1; a URL must spell it out.
  for (std::string_view url : {"http://127.1/", "http://2130706433/", "http://0x7f.0.0.1/",
                               "http://0x7f000001/", "http://example.0x10/"}) {
    EXPECT_TRUE(contains(parse_error(url), "invalid IPv4 address")) << url;
  }
}

TEST(UrlParseError, InvalidIpv6Literals) {
  EXPECT_TRUE(contains(parse_error("http://[::1/"), "missing ']'"));
  EXPECT_TRUE(contains(parse_error("http://[::g]/"), "invalid IPv6 address '[::g]'"));
  EXPECT_TRUE(contains(parse_error("http://[1.2.3.4]/"), "invalid IPv6 address"));
  EXPECT_TRUE(contains(parse_error("http://[1:2:3:4:5:6:7:8:9]/"), "invalid IPv6 address"));
  EXPECT_TRUE(contains(parse_error("http://[]/"), "empty IPv6 address"));
  EXPECT_TRUE(contains(parse_error("http://[v1.fe]/"), "IPvFuture"));
  EXPECT_TRUE(contains(parse_error("http://[::1]x/"), "unexpected character 'x' after"));
  EXPECT_TRUE(contains(parse_error("http://[::1]:x/"), "invalid port 'x'"));
}

TEST(UrlParseError, Ipv6ZoneIdentifierIsRefused) {
  const std::string message = parse_error("http://[fe80::1%25eth0]/");
  EXPECT_EQ(message,
            "URL: IPv6 zone identifier '%25eth0' is not supported in "
            "'http://[fe80::1%25eth0]/' (use an address without a '%' zone)");
  EXPECT_TRUE(contains(parse_error("http://[fe80::1%eth0]/"), "zone identifier '%eth0'"));
}

TEST(UrlParseError, Ipv6WithoutBrackets) {
  EXPECT_TRUE(contains(parse_error("http://::1/"), "missing host"));
  EXPECT_TRUE(contains(parse_error("http://fe80::1/"), "IPv6 address goes in brackets"));
}

TEST(UrlParseError, UserinfoMustBeEncoded) {
  EXPECT_TRUE(contains(parse_error("http://a@b@example.org/"),
                       "character '@' is not allowed in user info"));
  EXPECT_TRUE(contains(parse_error("http://a@b@example.org/"), "percent-encode it as %40"));
  EXPECT_TRUE(contains(parse_error("http://evil.example\\@good.example/"),
                       "character '\\' is not allowed in user info"));
  EXPECT_TRUE(contains(parse_error("http://us er@example.org/"), "space is not allowed"));
  EXPECT_TRUE(contains(parse_error("http://a%zz@example.org/"), "'%' not followed"));
}

// ---- resolve ---------------------------------------------------------------------

struct ResolveCase {
  std::string_view reference;
  std::string_view expected;  // to_string(): no fragment
  std::string_view fragment;
};

void expect_resolves(const Url& base, const ResolveCase& example) {
  SCOPED_TRACE("reference '" + std::string(example.reference) + "'");
  auto result = base.resolve(example.reference);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->to_string(), example.expected);
  EXPECT_EQ(result->fragment, example.fragment);
}

std::string resolve_error(const Url& base, std::string_view reference) {
  auto result = base.resolve(reference);
  EXPECT_FALSE(result.ok()) << "resolved '" << reference << "' to "
                            << (result.ok() ? result->to_string() : "");
  if (result.ok()) return {};
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  return result.error().message();
}

// RFC 3986 section 5.4.1, base "http://a/b/c/d;p?q"; expectations worked out with
// the algorithm of section 5.2 (merge, then remove_dot_segments).
TEST(UrlResolve, Rfc3986NormalExamples) {
  const Url base = parsed("http://a/b/c/d;p?q");
  const ResolveCase examples[] = {
      {"g", "http://a/b/c/g", ""},
      {"./g", "http://a/b/c/g", ""},
      {"g/", "http://a/b/c/g/", ""},
      {"/g", "http://a/g", ""},
      {"//g", "http://g/", ""},
      {"?y", "http://a/b/c/d;p?y", ""},
      {"g?y", "http://a/b/c/g?y", ""},
      {"#s", "http://a/b/c/d;p?q", "s"},
      {"g#s", "http://a/b/c/g", "s"},
      {"g?y#s", "http://a/b/c/g?y", "s"},
      {";x", "http://a/b/c/;x", ""},
      {"g;x", "http://a/b/c/g;x", ""},
      {"g;x?y#s", "http://a/b/c/g;x?y", "s"},
      {"", "http://a/b/c/d;p?q", ""},
      {".", "http://a/b/c/", ""},
      {"./", "http://a/b/c/", ""},
      {"..", "http://a/b/", ""},
      {"../", "http://a/b/", ""},
      {"../g", "http://a/b/g", ""},
      {"../..", "http://a/", ""},
      {"../../", "http://a/", ""},
      {"../../g", "http://a/g", ""},
  };
  for (const auto& example : examples) expect_resolves(base, example);
}

TEST(UrlResolve, Rfc3986NormalExampleWithOtherSchemeIsRefused) {
  // "g:h" resolves to "g:h", which is not an http(s) URL.
  const Url base = parsed("http://a/b/c/d;p?q");
  EXPECT_EQ(resolve_error(base, "g:h"),
            "URL: redirect target scheme 'g' is unsupported in 'g:h' (only http and https)");
}

// RFC 3986 section 5.4.2, the abnormal examples a strict parser handles.
TEST(UrlResolve, Rfc3986AbnormalExamples) {
  const Url base = parsed("http://a/b/c/d;p?q");
  const ResolveCase examples[] = {
      {"../../../g", "http://a/g", ""},
      {"../../../../g", "http://a/g", ""},
      {"/./g", "http://a/g", ""},
      {"/../g", "http://a/g", ""},
      {"g.", "http://a/b/c/g.", ""},
      {".g", "http://a/b/c/.g", ""},
      {"g..", "http://a/b/c/g..", ""},
      {"..g", "http://a/b/c/..g", ""},
      {"./../g", "http://a/b/g", ""},
      {"./g/.", "http://a/b/c/g/", ""},
      {"g/./h", "http://a/b/c/g/h", ""},
      {"g/../h", "http://a/b/c/h", ""},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y", ""},
      {"g;x=1/../y", "http://a/b/c/y", ""},
      {"g?y/./x", "http://a/b/c/g?y/./x", ""},
      {"g?y/../x", "http://a/b/c/g?y/../x", ""},
      {"g#s/./x", "http://a/b/c/g", "s/./x"},
      {"g#s/../x", "http://a/b/c/g", "s/../x"},
  };
  for (const auto& example : examples) expect_resolves(base, example);
}

TEST(UrlResolve, SameSchemeWithoutAuthorityIsNotRelative) {
  // RFC 3986 5.4.2: strict parsers read "http:g" as absolute, and it has no host.
  const Url base = parsed("http://a/b/c/d;p?q");
  EXPECT_TRUE(contains(resolve_error(base, "http:g"), "expected '//' after 'http:'"));
}

TEST(UrlResolve, UnsupportedRedirectSchemesAreRefused) {
  const Url base = parsed("https://example.org/start");
  EXPECT_EQ(resolve_error(base, "ftp://files.example/x"),
            "URL: redirect target scheme 'ftp' is unsupported in 'ftp://files.example/x' "
            "(only http and https)");
  EXPECT_TRUE(contains(resolve_error(base, "javascript:alert(1)"),
                       "redirect target scheme 'javascript' is unsupported"));
  EXPECT_TRUE(contains(resolve_error(base, "data:text/html,hi"), "scheme 'data'"));
  EXPECT_TRUE(contains(resolve_error(base, "file:///etc/passwd"), "scheme 'file'"));
}

TEST(UrlResolve, AbsoluteReferenceReplacesEverything) {
  const Url base = parsed("https://user@example.org:8443/a/b?q#f");
  const auto target = base.resolve("HTTP://Other.example/x/../y?z");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->to_string(), "http://other.example/y?z");
  EXPECT_EQ(target->port, 80);
  EXPECT_EQ(target->userinfo, "");
  EXPECT_EQ(target->fragment, "");
}

TEST(UrlResolve, SchemeRelativeKeepsTheBaseScheme) {
  const Url base = parsed("https://example.org:8443/a");
  const auto target = base.resolve("//cdn.example:9000/p?q");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->to_string(), "https://cdn.example:9000/p?q");
  EXPECT_EQ(parsed("https://h/").resolve("//other")->port, 443);
  EXPECT_EQ(parsed("https://h/").resolve("//[::1]:99/x")->authority(), "[::1]:99");
}

TEST(UrlResolve, SchemeRelativeWithBadHostIsRefused) {
  const Url base = parsed("http://a/");
  EXPECT_EQ(resolve_error(base, "//exa mple/"),
            "URL: space is not allowed in host 'exa mple' in '//exa mple/'");
  EXPECT_TRUE(contains(resolve_error(base, "//h:99999/"), "invalid port '99999'"));
  EXPECT_TRUE(contains(resolve_error(base, "///x"), "missing host"));
}

TEST(UrlResolve, RelativeReferenceKeepsBaseAuthority) {
  const Url base = parsed("http://user:pw@[::1]:8080/dir/file?q#frag");
  const auto target = base.resolve("other?x");
  ASSERT_TRUE(target.ok()) << target.error().message();
  EXPECT_EQ(target->to_string(), "http://user:pw@[::1]:8080/dir/other?x");
  EXPECT_EQ(target->fragment, "");
}

TEST(UrlResolve, BaseFragmentIsNeverInherited) {
  const Url base = parsed("http://a/b?q#base");
  EXPECT_EQ(base.resolve("")->fragment, "");
  EXPECT_EQ(base.resolve("?y")->fragment, "");
  EXPECT_EQ(base.resolve("c")->fragment, "");
  EXPECT_EQ(base.resolve("#new")->fragment, "new");
}

TEST(UrlResolve, EmptyQueryReferenceReplacesTheQuery) {
  const Url base = parsed("http://a/b?q");
  const auto target = base.resolve("?");
  ASSERT_TRUE(target.ok());
  EXPECT_TRUE(target->has_query);
  EXPECT_EQ(target->target(), "/b?");
  const auto no_query = base.resolve("c");
  EXPECT_FALSE(no_query->has_query);
  EXPECT_EQ(no_query->target(), "/c");
}

TEST(UrlResolve, BaseWithRootPath) {
  const Url base = parsed("http://a");
  EXPECT_EQ(base.resolve("g")->to_string(), "http://a/g");
  EXPECT_EQ(base.resolve("../g")->to_string(), "http://a/g");
  EXPECT_EQ(base.resolve("?x")->to_string(), "http://a/?x");
}

TEST(UrlResolve, EncodesLikeParse) {
  const Url base = parsed("http://a/b/c");
  EXPECT_EQ(base.resolve("new path/x y?q r#f g")->to_string(), "http://a/b/new%20path/x%20y?q%20r");
  EXPECT_EQ(base.resolve("#f g")->fragment, "f%20g");
  EXPECT_EQ(base.resolve("/caf\xC3\xA9?100%")->to_string(), "http://a/caf%C3%A9?100%25");
  EXPECT_EQ(base.resolve("/%7e")->path, "/%7e");
}

TEST(UrlResolve, TrimsSurroundingSpaces) {
  const Url base = parsed("http://a/b/c");
  EXPECT_EQ(base.resolve("  /x  ")->to_string(), "http://a/x");
  EXPECT_EQ(base.resolve("   ")->to_string(), "http://a/b/c");
}

TEST(UrlResolve, RefusesSmugglingBytes) {
  const Url base = parsed("http://a/b");
  EXPECT_TRUE(contains(resolve_error(base, "/x\r\nSet-Cookie: a=1"), "carriage return"));
  EXPECT_TRUE(contains(resolve_error(base, "x\ny"), "line feed"));
  EXPECT_TRUE(contains(resolve_error(base, "?a\0b"s), "NUL byte"));
  EXPECT_TRUE(contains(resolve_error(base, "#\t"), "tab"));
}

TEST(UrlResolve, BackslashesDoNotStartAnAuthority) {
  // Some browsers read "\\evil" as "//evil"; here it stays a path on the same host.
  const Url base = parsed("http://a/b/c");
  const auto target = base.resolve("\\\\evil.example/x");
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(target->host, "a");
  EXPECT_EQ(target->path, "/b/%5C%5Cevil.example/x");
}

TEST(UrlResolve, ColonAfterSlashIsPartOfThePath) {
  const Url base = parsed("http://a/b/c");
  EXPECT_EQ(base.resolve("./g:h")->to_string(), "http://a/b/g:h");
  EXPECT_EQ(base.resolve("/x:y")->to_string(), "http://a/x:y");
  EXPECT_EQ(base.resolve("?k=v:w")->to_string(), "http://a/b/c?k=v:w");
}

TEST(UrlResolve, PrefixThatIsNoSchemeIsARelativePath) {
  const Url base = parsed("http://a/b/c");
  EXPECT_EQ(base.resolve("1abc:x")->to_string(), "http://a/b/1abc:x");
}

}  // namespace
}  // namespace sluice
