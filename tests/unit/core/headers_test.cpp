#include "sluice/headers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace sluice {
namespace {

using namespace std::string_literals;

std::vector<std::string> names_of(const Headers& headers) {
  std::vector<std::string> names;
  for (const Header& field : headers) names.push_back(field.name);
  return names;
}

std::string name_error(std::string_view name) {
  auto result = validate_header_name(name);
  EXPECT_FALSE(result.ok()) << "accepted name '" << name << "'";
  if (result.ok()) return {};
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  return result.error().message();
}

std::string value_error(std::string_view value) {
  auto result = validate_header_value(value);
  EXPECT_FALSE(result.ok()) << "accepted value '" << value << "'";
  if (result.ok()) return {};
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  return result.error().message();
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(Headers, AddKeepsOrderAndRepeats) {
  Headers headers;
  headers.add("Via", "1.1 a");
  headers.add("Accept", "*/*");
  headers.add("via", "1.1 b");
  EXPECT_EQ(headers.size(), 3u);
  EXPECT_EQ(names_of(headers), (std::vector<std::string>{"Via", "Accept", "via"}));
}

TEST(Headers, StartsEmpty) {
  Headers headers;
  EXPECT_TRUE(headers.empty());
  EXPECT_EQ(headers.size(), 0u);
  EXPECT_FALSE(headers.get("Host").has_value());
}

TEST(Headers, InitializerListKeepsOrder) {
  Headers headers{{"B", "2"}, {"A", "1"}};
  EXPECT_EQ(names_of(headers), (std::vector<std::string>{"B", "A"}));
  EXPECT_EQ(headers.get("a"), "1");
}

TEST(Headers, GetIgnoresAsciiCase) {
  Headers headers;
  headers.add("Content-Type", "text/plain");
  EXPECT_EQ(headers.get("content-type"), "text/plain");
  EXPECT_EQ(headers.get("CONTENT-TYPE"), "text/plain");
  EXPECT_EQ(headers.get("Content-Type"), "text/plain");
  EXPECT_TRUE(headers.contains("cOnTeNt-TyPe"));
}

TEST(Headers, GetReturnsTheFirstOfRepeatedFields) {
  Headers headers;
  headers.add("Set-Cookie", "a=1");
  headers.add("set-cookie", "b=2");
  EXPECT_EQ(headers.get("SET-COOKIE"), "a=1");
}

TEST(Headers, GetOfAbsentNameIsEmpty) {
  Headers headers;
  headers.add("Accept", "*/*");
  EXPECT_FALSE(headers.get("Accept-Encoding").has_value());
  EXPECT_FALSE(headers.contains("Accep"));
}

TEST(Headers, GetAllReturnsEveryValueInOrder) {
  Headers headers;
  headers.add("Set-Cookie", "a=1");
  headers.add("Accept", "*/*");
  headers.add("SET-COOKIE", "b=2");
  headers.add("set-cookie", "c=3");
  EXPECT_EQ(headers.get_all("Set-Cookie"), (std::vector<std::string_view>{"a=1", "b=2", "c=3"}));
  EXPECT_TRUE(headers.get_all("Via").empty());
}

TEST(Headers, EmptyValueIsPresent) {
  Headers headers;
  headers.add("X-Empty", "");
  ASSERT_TRUE(headers.get("x-empty").has_value());
  EXPECT_EQ(*headers.get("x-empty"), "");
}

TEST(Headers, SetReplacesEveryFieldInPlaceOfTheFirst) {
  Headers headers;
  headers.add("Accept", "text/html");
  headers.add("Via", "1.1 a");
  headers.add("accept", "*/*");
  headers.add("Host", "example.org");
  headers.set("ACCEPT", "application/json");
  EXPECT_EQ(names_of(headers), (std::vector<std::string>{"ACCEPT", "Via", "Host"}));
  EXPECT_EQ(headers.get_all("accept"), (std::vector<std::string_view>{"application/json"}));
}

TEST(Headers, SetAppendsWhenAbsent) {
  Headers headers;
  headers.add("Accept", "*/*");
  headers.set("User-Agent", "sluice");
  EXPECT_EQ(names_of(headers), (std::vector<std::string>{"Accept", "User-Agent"}));
  EXPECT_EQ(headers.get("user-agent"), "sluice");
}

TEST(Headers, RemoveDropsEveryMatchAndCountsThem) {
  Headers headers;
  headers.add("Cookie", "a");
  headers.add("Accept", "*/*");
  headers.add("COOKIE", "b");
  headers.add("Host", "x");
  EXPECT_EQ(headers.remove("cookie"), 2u);
  EXPECT_EQ(names_of(headers), (std::vector<std::string>{"Accept", "Host"}));
  EXPECT_EQ(headers.remove("cookie"), 0u);
  EXPECT_EQ(headers.size(), 2u);
}

TEST(Iequals, IgnoresAsciiCaseOnly) {
  EXPECT_TRUE(iequals("Content-Length", "content-length"));
  EXPECT_TRUE(iequals("", ""));
  EXPECT_FALSE(iequals("Host", "Hos"));
  EXPECT_FALSE(iequals("Host", "Hosts"));
  EXPECT_FALSE(iequals("a-b", "a_b"));
}

TEST(Iequals, DoesNotFoldPunctuationThatDiffersByTheCaseBit) {
  // '@' and '`', '[' and '{' differ by 0x20 like letters do; they are not letters.
  EXPECT_FALSE(iequals("@", "`"));
  EXPECT_FALSE(iequals("[", "{"));
  EXPECT_FALSE(iequals("^", "~"));
}

TEST(Iequals, DoesNotFoldNonAsciiBytes) {
  EXPECT_FALSE(iequals("caf\xC3\xA9", "CAF\xC3\x89"));
  EXPECT_TRUE(iequals("caf\xC3\xA9", "CAF\xC3\xA9"));
}

TEST(ValidateHeaderName, AcceptsTokens) {
  for (std::string_view name :
       {"Host", "content-type", "X-Custom_1", "a", "!#$%&'*+-.^_`|~09azAZ"}) {
    EXPECT_TRUE(validate_header_name(name).ok()) << name;
  }
}

TEST(ValidateHeaderName, RefusesEmptyName) {
  EXPECT_EQ(name_error(""), "invalid header name '': a name cannot be empty");
}

TEST(ValidateHeaderName, NamesTheSpace) {
  EXPECT_EQ(name_error("Bad Name"),
            "invalid header name 'Bad Name': space is not allowed in a name");
}

TEST(ValidateHeaderName, NamesTheColon) {
  EXPECT_EQ(name_error("Host:"), "invalid header name 'Host:': colon ':' is not allowed in a name");
}

TEST(ValidateHeaderName, RefusesLineBreaksAndEscapesThemInTheMessage) {
  const std::string message = name_error("X-A\r\nInjected");
  EXPECT_TRUE(contains(message, "carriage return (CR) is not allowed")) << message;
  EXPECT_TRUE(contains(message, "'X-A\\x0D\\x0AInjected'")) << message;
  EXPECT_FALSE(contains(message, "\r")) << message;
  EXPECT_FALSE(contains(message, "\n")) << message;
  EXPECT_TRUE(contains(name_error("X\nA"), "line feed (LF)"));
  EXPECT_TRUE(contains(name_error("X\0A"s), "NUL byte"));
  EXPECT_TRUE(contains(name_error("X\tA"), "tab (HTAB)"));
}

TEST(ValidateHeaderName, RefusesSeparatorsAndNonAscii) {
  for (std::string_view name : {"a(b", "a)b", "a<b", "a>b", "a@b", "a,b", "a;b", "a\\b", "a\"b",
                                "a/b", "a[b", "a]b", "a?b", "a=b", "a{b", "a}b"}) {
    EXPECT_FALSE(validate_header_name(name).ok()) << name;
  }
  EXPECT_TRUE(contains(name_error("a(b"), "character '(' is not allowed"));
  EXPECT_TRUE(contains(name_error("caf\xC3\xA9"), "non-ASCII byte 0xC3"));
  EXPECT_TRUE(contains(name_error("a\x7F"), "DEL byte"));
}

TEST(ValidateHeaderValue, AcceptsOrdinaryValues) {
  for (std::string_view value : {"", "text/html; charset=utf-8", "a\tb", "a  b",
                                 "\"quoted, with comma\"", "caf\xC3\xA9", "\x80\xFF"}) {
    EXPECT_TRUE(validate_header_value(value).ok()) << value;
  }
}

TEST(ValidateHeaderValue, RefusesLineBreaksAndNul) {
  EXPECT_TRUE(contains(value_error("a\rb"), "carriage return (CR)"));
  EXPECT_TRUE(contains(value_error("a\nb"), "line feed (LF)"));
  EXPECT_TRUE(contains(value_error("a\r\nSet-Cookie: x=1"), "carriage return (CR)"));
  EXPECT_TRUE(contains(value_error("a\0b"s), "NUL byte"));
}

TEST(ValidateHeaderValue, RefusesOtherControlBytes) {
  EXPECT_TRUE(contains(value_error("a\x01z"), "control byte 0x01"));
  EXPECT_TRUE(contains(value_error("a\x1Fz"), "control byte 0x1F"));
  EXPECT_TRUE(contains(value_error("a\x7Fz"), "DEL byte"));
}

TEST(ValidateHeaderValue, RefusesWhitespaceAtEitherEnd) {
  EXPECT_TRUE(contains(value_error(" value"), "starts with whitespace"));
  EXPECT_TRUE(contains(value_error("\tvalue"), "starts with whitespace"));
  EXPECT_TRUE(contains(value_error("value "), "ends with whitespace"));
  EXPECT_TRUE(contains(value_error("value\t"), "ends with whitespace"));
  EXPECT_TRUE(contains(value_error(" "), "whitespace"));
}

TEST(ValidateHeader, NamesTheHeaderWhoseValueIsBad) {
  auto result = validate_header("X-A", "one\ntwo");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().category(), ErrorCategory::usage);
  EXPECT_EQ(result.error().message(), "header 'X-A': value contains a line feed (LF)");
}

TEST(ValidateHeader, ChecksTheNameFirst) {
  auto result = validate_header("Bad Name", "bad\nvalue");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message(),
            "invalid header name 'Bad Name': space is not allowed in a name");
}

TEST(ValidateHeader, AcceptsAGoodField) {
  EXPECT_TRUE(validate_header("Accept-Encoding", "gzip, br").ok());
  EXPECT_TRUE(validate_header("X-Empty", "").ok());
}

}  // namespace
}  // namespace sluice
