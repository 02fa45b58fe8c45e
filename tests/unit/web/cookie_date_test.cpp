// The cookie date algorithm (RFC 6265 5.1.1) over the forms servers send.
#include "web/cookie_date.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

constexpr std::int64_t kSunNov6_1994 = 784111777;  // 1994-11-06T08:49:37Z

TEST(CookieDate, ReadsTheThreeHttpDateForms) {
  EXPECT_EQ(parse_cookie_date("Sun, 06 Nov 1994 08:49:37 GMT"), kSunNov6_1994);
  EXPECT_EQ(parse_cookie_date("Sunday, 06-Nov-94 08:49:37 GMT"), kSunNov6_1994);
  EXPECT_EQ(parse_cookie_date("Sun Nov  6 08:49:37 1994"), kSunNov6_1994);
}

TEST(CookieDate, IsLenientAsTheAlgorithmAllows) {
  EXPECT_EQ(parse_cookie_date("Wed, 09-Jun-2021 10:18:14 GMT"), 1623233894);
  EXPECT_EQ(parse_cookie_date("6 november 1994 8:49:37"), kSunNov6_1994);
  EXPECT_EQ(parse_cookie_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  // Two-digit years: 70..99 are 19xx, 00..69 are 20xx.
  EXPECT_EQ(parse_cookie_date("01 Jan 69 00:00:00"), parse_cookie_date("01 Jan 2069 00:00:00"));
  EXPECT_EQ(parse_cookie_date("29 Feb 2024 00:00:00"), 1709164800);
}

TEST(CookieDate, RefusesDatesThatDoNotExist) {
  EXPECT_FALSE(parse_cookie_date(""));
  EXPECT_FALSE(parse_cookie_date("Sun, 06 Nov 1994"));      // no time
  EXPECT_FALSE(parse_cookie_date("31 Apr 2020 00:00:00"));  // no 31st of April
  EXPECT_FALSE(parse_cookie_date("29 Feb 2023 00:00:00"));  // not a leap year
  EXPECT_FALSE(parse_cookie_date("01 Jan 2020 24:00:00"));
  EXPECT_FALSE(parse_cookie_date("01 Jan 1600 00:00:00"));
  EXPECT_FALSE(parse_cookie_date("01 Foo 2020 00:00:00"));
  EXPECT_FALSE(parse_cookie_date("001 Jan 2020 00:00:00"));  // three-digit day
}

}  // namespace
}  // namespace sluice
