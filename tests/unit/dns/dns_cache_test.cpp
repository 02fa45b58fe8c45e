// DnsCache: kept for min(TTL, cap), not at all with TTL 0, any case, and bounded (a
// full table drops what expired, then what would expire soonest).
#include "dns/dns_cache.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

using namespace std::chrono_literals;

std::vector<SocketAddress> at(const char* ip) { return {*SocketAddress::from_ip(ip, 0)}; }

TEST(DnsCache, KeepsAnAnswerForItsTtlCappedAndNotWithoutOne) {
  DnsCache cache({.max_entries = 8, .max_ttl = 60s});
  const TimePoint t0{};
  cache.store("a.test", at("192.0.2.1"), 30s, t0);
  cache.store("long.test", at("192.0.2.2"), 3600s, t0);
  cache.store("hosts.test", at("192.0.2.3"), 0s, t0);  // /etc/hosts: never cached
  EXPECT_TRUE(cache.find("A.TEST", t0 + 29s));
  EXPECT_FALSE(cache.find("a.test", t0 + 30s));
  EXPECT_TRUE(cache.find("long.test", t0 + 59s));
  EXPECT_FALSE(cache.find("long.test", t0 + 60s));
  EXPECT_FALSE(cache.find("hosts.test", t0));
}

TEST(DnsCache, AFullTableDropsTheExpiredThenTheSoonestToExpire) {
  DnsCache cache({.max_entries = 2, .max_ttl = 60s});
  const TimePoint t0{};
  cache.store("one.test", at("192.0.2.1"), 10s, t0);
  cache.store("two.test", at("192.0.2.2"), 50s, t0);
  cache.store("three.test", at("192.0.2.3"), 40s, t0);  // full: one.test expires first
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_FALSE(cache.find("one.test", t0));
  EXPECT_TRUE(cache.find("two.test", t0));
  EXPECT_TRUE(cache.find("three.test", t0));
  cache.store("four.test", at("192.0.2.4"), 60s, t0 + 45s);  // three.test has expired
  EXPECT_TRUE(cache.find("two.test", t0 + 45s));
  EXPECT_TRUE(cache.find("four.test", t0 + 45s));
  EXPECT_FALSE(cache.find("three.test", t0 + 45s));
}

}  // namespace
}  // namespace sluice
