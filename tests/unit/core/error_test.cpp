// sluice::Error and sluice::Result (include/sluice/error.hpp, src/core/error.cpp):
// Result has std::expected's shape, so the steps of a fallible chain read as one.

#include "sluice/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Error(ErrorCategory::usage, std::string("not a digit: ") + c);
  return c - '0';
}

Result<int> halve(int n) {
  if (n % 2 != 0) return Error(ErrorCategory::usage, "odd");
  return n / 2;
}

TEST(Error, CodesAreStableAndNameTheirCategory) {
  EXPECT_EQ(static_cast<int>(ErrorCode::idle_timeout), 503);
  EXPECT_EQ(static_cast<int>(ErrorCode::tls_certificate), 301);
  EXPECT_EQ(category_of(ErrorCode::idle_timeout), ErrorCategory::timeout);
  EXPECT_EQ(category_of(ErrorCode::bad_url), ErrorCategory::usage);
  EXPECT_EQ(category_of(ErrorCode::http_status), ErrorCategory::http);
  EXPECT_EQ(std::string(to_string(ErrorCode::body_truncated)), "body_truncated");
  for (int category = 0; category <= static_cast<int>(ErrorCategory::http); ++category) {
    const auto c = static_cast<ErrorCategory>(category);
    EXPECT_EQ(category_of(general_code(c)), c) << to_string(c);
  }
}

TEST(Error, ACategoryGivesItsGeneralCodeAndACodeItsCategory) {
  const Error by_category(ErrorCategory::tls, "TLS: handshake failed");
  EXPECT_EQ(by_category.code(), ErrorCode::tls_failed);
  const Error by_code(ErrorCode::decoded_too_large, "decoded body exceeds the limit");
  EXPECT_EQ(by_code.category(), ErrorCategory::too_large);
  EXPECT_EQ(by_code.describe(), "too_large: decoded body exceeds the limit");
}

TEST(Result, ValueAndErrorLikeExpected) {
  Result<int> four = parse_digit('4');
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(four.value(), 4);
  EXPECT_EQ(*four, 4);
  Result<int> bad = parse_digit('x');
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().category(), ErrorCategory::usage);
  EXPECT_EQ(bad.error().message(), "not a digit: x");
}

TEST(Result, AndThenChainsFallibleStepsAndStopsAtTheFirstError) {
  EXPECT_EQ(parse_digit('8').and_then(halve).and_then(halve).value(), 2);
  const Result<int> odd = parse_digit('6').and_then(halve).and_then(halve);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error().message(), "odd");
  const Result<int> first = parse_digit('?').and_then(halve);
  EXPECT_EQ(first.error().message(), "not a digit: ?");
}

TEST(Result, TransformMapsTheValueAndKeepsTheError) {
  const Result<std::string> text =
      parse_digit('7').transform([](int n) { return std::to_string(n * 6); });
  EXPECT_EQ(text.value(), "42");
  EXPECT_FALSE(parse_digit('z').transform([](int n) { return n; }).ok());
  int seen = 0;
  const Result<void> done = parse_digit('3').transform([&](int n) { seen = n; });
  EXPECT_TRUE(done.ok());
  EXPECT_EQ(seen, 3);
}

TEST(Result, OrElseAndValueOrRecover) {
  EXPECT_EQ(parse_digit('x').value_or(-1), -1);
  EXPECT_EQ(parse_digit('5').value_or(-1), 5);
  const Result<int> recovered =
      parse_digit('x').or_else([](const Error&) -> Result<int> { return 0; });
  EXPECT_EQ(recovered.value(), 0);
}

TEST(Result, VoidResultsChainToo) {
  const Result<void> fine;
  EXPECT_TRUE(fine.has_value());
  EXPECT_EQ(fine.and_then([] { return parse_digit('9'); }).value(), 9);
  EXPECT_EQ(fine.transform([] { return 1; }).value(), 1);
  const Result<void> failed = Error(ErrorCategory::io, "disk full");
  EXPECT_EQ(failed.and_then([] { return parse_digit('9'); }).error().message(), "disk full");
  EXPECT_TRUE(failed.or_else([](const Error&) { return Result<void>(); }).ok());
}

}  // namespace
}  // namespace sluice
