#include <gtest/gtest.h>

#include "sluice/http_date.hpp"
#include "sluice/retry.hpp"

namespace sluice {
namespace {

using namespace std::chrono;
using namespace std::chrono_literals;

constexpr sys_seconds kSunNov6_1994{seconds{784111777}};

std::optional<std::int64_t> epoch_of(std::string_view text) {
  if (auto when = parse_http_date(text)) return when->time_since_epoch().count();
  return std::nullopt;
}

TEST(HttpDate, TheThreeFormsOfRfc9110) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kSunNov6_1994);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), kSunNov6_1994);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), kSunNov6_1994);
  EXPECT_EQ(parse_http_date("Sun Nov 06 08:49:37 1994"), kSunNov6_1994);
}

TEST(HttpDate, LenientFallbackReadsWhatServersSend) {
  EXPECT_EQ(epoch_of("Wed, 09-Jun-2021 10:18:14 GMT"), 1623233894);
  EXPECT_EQ(parse_http_date("sun, 06 nov 1994 08:49:37 gmt"), kSunNov6_1994);
  EXPECT_EQ(parse_http_date("6 Nov 1994 08:49:37 UTC"), kSunNov6_1994);
  EXPECT_EQ(parse_http_date("Sun,  6 Nov 1994 08:49:37"), kSunNov6_1994);
}

TEST(HttpDate, EdgeYearsAndLeapDays) {
  EXPECT_EQ(epoch_of("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(epoch_of("Thu, 29 Feb 2024 00:00:00 GMT"), 1709164800);
  EXPECT_EQ(epoch_of("Tue, 29 Feb 2000 12:00:00 GMT"), 951825600);  // 2000 is a leap year
  EXPECT_FALSE(parse_http_date("Mon, 29 Feb 2100 00:00:00 GMT"));   // 2100 is not
  EXPECT_FALSE(parse_http_date("Wed, 29 Feb 2023 00:00:00 GMT"));
  EXPECT_EQ(epoch_of("Mon, 01 Jan 1601 00:00:00 GMT"), -11644473600);
  EXPECT_EQ(epoch_of("Fri, 31 Dec 9999 23:59:59 GMT"), 253402300799);
  EXPECT_EQ(epoch_of("Tue, 19 Jan 2038 03:14:08 GMT"), 2147483648);  // past 32-bit time_t
  // RFC 850's two-digit years: 70-99 are 19xx, 00-69 are 20xx.
  EXPECT_EQ(epoch_of("Thursday, 01-Jan-70 00:00:00 GMT"), 0);
  EXPECT_EQ(parse_http_date("Tuesday, 01-Jan-69 00:00:00 GMT"),
            parse_http_date("Tue, 01 Jan 2069 00:00:00 GMT"));
  // A strict form's four-digit year is never a two-digit one in disguise.
  EXPECT_FALSE(parse_http_date("Thu, 01 Jan 0069 00:00:00 GMT"));
  EXPECT_FALSE(parse_http_date("Mon, 01 Jan 1600 00:00:00 GMT"));
}

TEST(HttpDate, BadInputIsRefused) {
  for (std::string_view text : {"", "garbage", "Sun, 06 Nov 1994", "Sun, 31 Apr 1994 08:49:37 GMT",
                                "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
                                "Sun, 06 Nov 1994 08:49:60 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
                                "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
                                "1994-11-06T08:49:37Z"}) {
    EXPECT_FALSE(parse_http_date(text)) << text;
  }
}

TEST(HttpDate, TimezonesOtherThanGmtAreRefused) {
  for (std::string_view text : {"Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37 +0100",
                                "Sun, 06 Nov 1994 08:49:37 -0800", "Sun, 06 Nov 1994 08:49:37 CET",
                                "Sun, 06 Nov 1994 08:49:37-0800"}) {
    EXPECT_FALSE(parse_http_date(text)) << text;
  }
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 UT"), kSunNov6_1994);
}

TEST(HttpDate, FormatsImfFixdateThatParsesBack) {
  EXPECT_EQ(format_http_date(kSunNov6_1994), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{}), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{seconds{1709164800}}), "Thu, 29 Feb 2024 00:00:00 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{seconds{-20'000'000'000}}),
            "Mon, 01 Jan 1601 00:00:00 GMT");
  EXPECT_EQ(format_http_date(sys_seconds{seconds{400'000'000'000}}),
            "Fri, 31 Dec 9999 23:59:59 GMT");
  for (std::int64_t t : {0LL, 951825600LL, 2147483648LL, -1LL, 4102444800LL}) {
    const sys_seconds when{seconds{t}};
    EXPECT_EQ(parse_http_date(format_http_date(when)), when) << t;
  }
}

// Retry-After's date form against a clock the test sets: no sleeping.
TEST(RetryAfterDate, WaitsUntilTheDateWithinTheCap) {
  const system_clock::time_point now = kSunNov6_1994;
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now), 10s);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now + 500ms), 9500ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), 0ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0ms);    // past
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 10:00:00 GMT", now), 60s);    // the cap
  EXPECT_EQ(parse_retry_after(" Sunday, 06-Nov-94 08:49:40 GMT ", now), 3s);  // padded
  EXPECT_EQ(parse_retry_after("120", now), 60s);                              // same cap
  EXPECT_EQ(parse_retry_after("7", now), 7s);
  EXPECT_FALSE(parse_retry_after("soon", now));
  EXPECT_FALSE(parse_retry_after("Sun, 06 Nov 1994 08:49:47 PST", now));
}

}  // namespace
}  // namespace sluice
