// Alt-Svc: the parser's grammar and bounds, and the cache's expiry, replacement,
// broken marks and size bound, on a hand-driven clock.
#include "web/alt_svc.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sluice/url.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using Kind = AltSvcField::Kind;

const TimePoint kStart = TimePoint{} + 1000h;

std::string origin_of(const char* url) { return Url::parse(url).value().origin(); }

TEST(AltSvcParse, CaddyHeaderIsSameHostH3) {
  const AltSvcField field = parse_alt_svc(R"(h3=":35041"; ma=2592000)");
  ASSERT_EQ(field.kind, Kind::alternatives);
  ASSERT_EQ(field.alternatives.size(), 1u);
  const AltSvcAlternative& h3 = field.alternatives[0];
  EXPECT_EQ(h3.protocol_id, "h3");
  EXPECT_EQ(h3.host, "");
  EXPECT_EQ(h3.port, 35041);
  EXPECT_EQ(h3.max_age, 2592000s);
  EXPECT_FALSE(h3.persist);
}

// What caddy 2.6 sends over TCP when it listens on two addresses: one entry each, and
// no space after the comma.
TEST(AltSvcParse, CaddysRepeatedEntriesBothParse) {
  const AltSvcField field = parse_alt_svc(R"(h3=":40707"; ma=2592000,h3=":40707"; ma=2592000)");
  ASSERT_EQ(field.alternatives.size(), 2u);
  for (const AltSvcAlternative& h3 : field.alternatives) {
    EXPECT_EQ(h3.protocol_id, "h3");
    EXPECT_EQ(h3.port, 40707);
    EXPECT_EQ(h3.max_age, 2592000s);
  }
}

TEST(AltSvcParse, MultipleEntriesKeepTheServersOrderAndParameters) {
  const AltSvcField field = parse_alt_svc(
      R"(h3="Alt.Example:443"; ma=60; persist=1, h3-29=":443", h2="other.example:8443")");
  ASSERT_EQ(field.alternatives.size(), 3u);
  EXPECT_EQ(field.alternatives[0].protocol_id, "h3");
  EXPECT_EQ(field.alternatives[0].host, "alt.example");
  EXPECT_EQ(field.alternatives[0].max_age, 60s);
  EXPECT_TRUE(field.alternatives[0].persist);
  EXPECT_EQ(field.alternatives[1].protocol_id, "h3-29");
  EXPECT_EQ(field.alternatives[1].max_age, 24h);
  EXPECT_EQ(field.alternatives[2].protocol_id, "h2");
  EXPECT_EQ(field.alternatives[2].port, 8443);
}

TEST(AltSvcParse, ClearCountsOnlyAsTheWholeValue) {
  EXPECT_EQ(parse_alt_svc("clear").kind, Kind::clear);
  EXPECT_EQ(parse_alt_svc(" clear\t").kind, Kind::clear);
  EXPECT_EQ(parse_alt_svc("Clear").kind, Kind::ignored);
  const AltSvcField mixed = parse_alt_svc(R"(clear, h3=":443")");
  EXPECT_EQ(mixed.kind, Kind::alternatives);
  EXPECT_EQ(mixed.alternatives.size(), 1u);
}

TEST(AltSvcParse, QuotedStringEscapesAreUndone) {
  const AltSvcField field = parse_alt_svc(R"(h3="alt\.example:4\43"; ma="90")");
  ASSERT_EQ(field.alternatives.size(), 1u);
  EXPECT_EQ(field.alternatives[0].host, "alt.example");
  EXPECT_EQ(field.alternatives[0].port, 443);
  EXPECT_EQ(field.alternatives[0].max_age, 90s);
}

TEST(AltSvcParse, CommasAndEscapedQuotesInsideQuotesDoNotSplitTheList) {
  const AltSvcField field = parse_alt_svc(R"(h3=":443"; note="a\",b, c", h3=":444")");
  ASSERT_EQ(field.alternatives.size(), 2u);
  EXPECT_EQ(field.alternatives[0].port, 443);
  EXPECT_EQ(field.alternatives[1].port, 444);
}

TEST(AltSvcParse, ProtocolIdsArePercentDecoded) {
  const AltSvcField field = parse_alt_svc(R"(h3%2D29=":1", w%3Dx%3ay=":2", h%3=":3", h3%=":4")");
  ASSERT_EQ(field.alternatives.size(), 2u);
  EXPECT_EQ(field.alternatives[0].protocol_id, "h3-29");
  EXPECT_EQ(field.alternatives[1].protocol_id, "w=x:y");
}

TEST(AltSvcParse, UnknownParametersAreIgnored) {
  const AltSvcField field =
      parse_alt_svc(R"(h3=":443"; foo=bar; MA=10 ;baz="q,uo;ted"; persist=yes; ma=99)");
  ASSERT_EQ(field.alternatives.size(), 1u);
  EXPECT_EQ(field.alternatives[0].max_age, 10s);  // the first ma counts
  EXPECT_FALSE(field.alternatives[0].persist);    // only "1" means persist
}

TEST(AltSvcParse, IPv6AlternativesLoseTheirBrackets) {
  const AltSvcField field = parse_alt_svc(R"(h3="[2001:DB8::1]:8443")");
  ASSERT_EQ(field.alternatives.size(), 1u);
  EXPECT_EQ(field.alternatives[0].host, "2001:db8::1");
  EXPECT_EQ(field.alternatives[0].port, 8443);
}

TEST(AltSvcParse, MalformedEntriesAreSkippedAndTheRestCount) {
  const char* bad[] = {
      R"(h3=443)",           R"(h3=":0")",        R"(h3=":65536")",      R"(h3=":44x")",
      R"(h3="host")",        R"(="::1")",         R"(h3 = ":443")",      R"(h3=":443"; ma=abc)",
      R"(h3=":443"; ma=-1)", R"(h3=":443";)",     R"(h3="[::1:443")",    R"(h3="ho st:443")",
      R"(h3="a@b:443")",     R"(h3=":443" junk)", R"(h3=":443"; =1)",    R"(h3=":443"; ma=)",
      R"(h3=":")",           R"(h3="[zz]:443")",  R"(h3=":443"; x=y z)",
  };
  for (const char* entry : bad) {
    const std::string value = std::string(entry) + R"(, h3="good.example:8443")";
    const AltSvcField field = parse_alt_svc(value);
    ASSERT_EQ(field.alternatives.size(), 1u) << value;
    EXPECT_EQ(field.alternatives[0].host, "good.example") << value;
  }
}

TEST(AltSvcParse, UnterminatedQuoteLosesOnlyWhatFollows) {
  const AltSvcField field = parse_alt_svc(R"(h3=":1", h3=":2, h3=":3")");
  ASSERT_EQ(field.alternatives.size(), 1u);
  EXPECT_EQ(field.alternatives[0].port, 1);
}

TEST(AltSvcParse, EmptyListElementsAreNotErrors) {
  const AltSvcField field = parse_alt_svc(R"(, h3=":443" ,, )");
  ASSERT_EQ(field.alternatives.size(), 1u);
}

TEST(AltSvcParse, GarbageIsIgnored) {
  for (const char* value : {"", "   ", ",,,", "h3", "h3=", "\"\"", "h3=\"\x01:443\"", "\xff\xfe",
                            "clear clear", "h3=\":443\" h3=\":444\""}) {
    const AltSvcField field = parse_alt_svc(value);
    EXPECT_EQ(field.kind, Kind::ignored) << value;
    EXPECT_TRUE(field.alternatives.empty()) << value;
  }
}

TEST(AltSvcParse, OverlongValuesAreIgnoredWhole) {
  std::string value;
  while (value.size() <= kAltSvcMaxValueBytes) value += R"(h3=":443"; ma=2592000, )";
  EXPECT_EQ(parse_alt_svc(value).kind, Kind::ignored);
  value.resize(kAltSvcMaxValueBytes);
  EXPECT_EQ(parse_alt_svc(value).kind, Kind::alternatives);
}

TEST(AltSvcParse, EntryCountIsBounded) {
  std::string value;
  for (int i = 1; i <= 100; ++i) value += "h3=\":" + std::to_string(i) + "\", ";
  const AltSvcField field = parse_alt_svc(value);
  ASSERT_EQ(field.alternatives.size(), kAltSvcMaxAlternatives);
  EXPECT_EQ(field.alternatives.back().port, kAltSvcMaxAlternatives);
}

TEST(AltSvcParse, HugeMaxAgeIsCappedAndLongHostsRefused) {
  const AltSvcField field = parse_alt_svc(R"(h3=":443"; ma=99999999999999999999999999)");
  ASSERT_EQ(field.alternatives.size(), 1u);
  EXPECT_EQ(field.alternatives[0].max_age, std::chrono::seconds(std::int64_t{1} << 31));
  const std::string long_host(300, 'a');
  EXPECT_EQ(parse_alt_svc("h3=\"" + long_host + ":443\"").kind, Kind::ignored);
}

TEST(AltSvcCache, LookupPrefersTheFirstH3AndIgnoresDraftsAndOtherProtocols) {
  AltSvcCache cache;
  const std::string origin = origin_of("https://localhost:8443/x");
  cache.update(origin, R"(h3-29=":1", h2=":2", h3="alt.example:3"; ma=60, h3=":4")", kStart);
  const auto entry = cache.lookup(origin, kStart);
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->host, "alt.example");
  EXPECT_EQ(entry->port, 3);
  EXPECT_EQ(entry->expires, kStart + 60s);
  EXPECT_EQ(entry->host_or("localhost"), "alt.example");

  cache.update(origin, R"(h3-29=":1", h3-Q050=":2")", kStart);
  EXPECT_FALSE(cache.lookup(origin, kStart));
}

TEST(AltSvcCache, SameHostEntriesUseTheOriginsHost) {
  AltSvcCache cache;
  cache.update("https://localhost:8443", R"(h3=":9443")", kStart);
  const auto entry = cache.lookup("https://localhost:8443", kStart);
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->host_or("localhost"), "localhost");
  EXPECT_EQ(entry->port, 9443);
  EXPECT_EQ(entry->expires, kStart + 24h);  // the default max age
}

TEST(AltSvcCache, EntriesExpireAfterTheirMaxAge) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3="one.example:1"; ma=10, h3=":2"; ma=100)", kStart);
  EXPECT_EQ(cache.lookup("https://a.example", kStart + 9s)->port, 1);
  EXPECT_EQ(cache.lookup("https://a.example", kStart + 10s)->port, 2);
  EXPECT_EQ(cache.lookup("https://a.example", kStart + 99s)->port, 2);
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 100s));
  EXPECT_EQ(cache.origin_count(), 0u);
}

TEST(AltSvcCache, MaxAgeZeroRemovesTheAlternative) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":443")", kStart);
  ASSERT_TRUE(cache.lookup("https://a.example", kStart));
  cache.update("https://a.example", R"(h3=":443"; ma=0)", kStart + 1s);
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 1s));
  EXPECT_EQ(cache.origin_count(), 0u);
}

TEST(AltSvcCache, ANewValueReplacesTheOldOne) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":1")", kStart);
  cache.update("https://a.example", R"(h3=":2"; ma=5)", kStart);
  EXPECT_EQ(cache.lookup("https://a.example", kStart)->port, 2);
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 5s));  // ":1" did not linger
  cache.update("https://a.example", R"(h3=":3")", kStart);
  cache.update("https://a.example", R"(h2=":4")", kStart);
  EXPECT_FALSE(cache.lookup("https://a.example", kStart));
}

TEST(AltSvcCache, ClearForgetsOnlyThatOrigin) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":1")", kStart);
  cache.update("https://b.example", R"(h3=":2")", kStart);
  cache.update("https://a.example", "clear", kStart);
  EXPECT_FALSE(cache.lookup("https://a.example", kStart));
  EXPECT_EQ(cache.lookup("https://b.example", kStart)->port, 2);
}

TEST(AltSvcCache, AnIgnoredValueChangesNothing) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":1")", kStart);
  cache.update("https://a.example", "h3=garbage", kStart);
  EXPECT_EQ(cache.lookup("https://a.example", kStart)->port, 1);
}

TEST(AltSvcCache, PlainHttpOriginsAreNotRemembered) {
  AltSvcCache cache;
  cache.update("http://a.example", R"(h3=":443")", kStart);
  EXPECT_FALSE(cache.lookup("http://a.example", kStart));
  EXPECT_EQ(cache.origin_count(), 0u);
}

TEST(AltSvcCache, BrokenHidesTheAlternativeUntilItsTimePasses) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":443")", kStart);
  cache.mark_broken("https://a.example", kStart, 5min);
  EXPECT_TRUE(cache.is_broken("https://a.example", kStart + 4min));
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 4min));
  EXPECT_FALSE(cache.is_broken("https://a.example", kStart + 5min));
  EXPECT_EQ(cache.lookup("https://a.example", kStart + 5min)->port, 443);
}

TEST(AltSvcCache, BrokenMarkSurvivesTheAdvertisementsThatFollow) {
  AltSvcCache cache;
  cache.update("https://a.example", R"(h3=":443")", kStart);
  cache.mark_broken("https://a.example", kStart, 5min);
  cache.update("https://a.example", R"(h3=":443")", kStart + 1min);  // over the TCP fallback
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 1min));
  cache.update("https://a.example", "clear", kStart + 2min);
  EXPECT_TRUE(cache.is_broken("https://a.example", kStart + 2min));
}

TEST(AltSvcCache, OriginsWithoutAlternativesCanBeMarkedBroken) {
  AltSvcCache cache;
  EXPECT_FALSE(cache.is_broken("https://a.example", kStart));
  cache.mark_broken("https://a.example", kStart, 1min);
  EXPECT_TRUE(cache.is_broken("https://a.example", kStart));
  EXPECT_FALSE(cache.lookup("https://a.example", kStart));
  EXPECT_FALSE(cache.lookup("https://a.example", kStart + 1min));
  EXPECT_EQ(cache.origin_count(), 0u);  // nothing left to remember
}

TEST(AltSvcCache, TheOriginUpdatedLongestAgoIsEvictedFirst) {
  AltSvcCache cache(3);
  cache.update("https://1.example", R"(h3=":1")", kStart);
  cache.update("https://2.example", R"(h3=":2")", kStart);
  cache.update("https://3.example", R"(h3=":3")", kStart);
  cache.update("https://1.example", R"(h3=":1")", kStart);  // 2 is now the oldest
  cache.update("https://4.example", R"(h3=":4")", kStart);
  EXPECT_EQ(cache.origin_count(), 3u);
  EXPECT_FALSE(cache.lookup("https://2.example", kStart));
  EXPECT_TRUE(cache.lookup("https://1.example", kStart));
  EXPECT_TRUE(cache.lookup("https://3.example", kStart));
  EXPECT_TRUE(cache.lookup("https://4.example", kStart));
}

TEST(AltSvcCache, ExpiredOriginsMakeRoomBeforeLiveOnes) {
  AltSvcCache cache(2);
  cache.update("https://long.example", R"(h3=":1"; ma=1000)", kStart);
  cache.update("https://short.example", R"(h3=":2"; ma=10)", kStart);
  cache.update("https://new.example", R"(h3=":3")", kStart + 20s);
  EXPECT_TRUE(cache.lookup("https://long.example", kStart + 20s));
  EXPECT_TRUE(cache.lookup("https://new.example", kStart + 20s));
  EXPECT_EQ(cache.origin_count(), 2u);
}

TEST(AltSvcCache, DefaultBoundHoldsAThousandOrigins) {
  AltSvcCache cache;
  for (int i = 0; i < 1500; ++i) {
    cache.update("https://h" + std::to_string(i) + ".example", R"(h3=":443")", kStart);
  }
  EXPECT_EQ(cache.origin_count(), AltSvcCache::kDefaultMaxOrigins);
  EXPECT_FALSE(cache.lookup("https://h0.example", kStart));
  EXPECT_TRUE(cache.lookup("https://h1499.example", kStart));
}

}  // namespace
}  // namespace sluice
