// --resolve and --connect-to entries: what parses, what is refused and how it says so,
// and which entry matches a host and port.
#include "dns/host_overrides.hpp"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ResolveOverride, TakesANameAPortAndAddressesOfBothFamilies) {
  auto entry = parse_resolve_override("Example.ORG:443:192.0.2.1,[2001:db8::1],::1");
  ASSERT_TRUE(entry) << entry.error().message();
  EXPECT_EQ(entry->host, "example.org");
  EXPECT_EQ(entry->port, 443);
  ASSERT_EQ(entry->addresses.size(), 3u);
  EXPECT_EQ(entry->addresses[0].to_string(), "192.0.2.1:0");
  EXPECT_EQ(entry->addresses[1].to_string(), "[2001:db8::1]:0");
  EXPECT_EQ(entry->addresses[2].to_string(), "[::1]:0");
}

TEST(ResolveOverride, AStarPortMatchesEveryPort) {
  std::vector<ResolveOverride> entries{*parse_resolve_override("a.test:*:127.0.0.1")};
  EXPECT_NE(find_resolve(entries, "A.test", 80), nullptr);
  EXPECT_NE(find_resolve(entries, "a.test", 8443), nullptr);
  EXPECT_EQ(find_resolve(entries, "b.test", 80), nullptr);
}

TEST(ResolveOverride, RefusesMalformedEntriesSayingWhy) {
  EXPECT_EQ(parse_resolve_override("a.test:443").error().message(),
            "--resolve 'a.test:443': missing a part (expected HOST:PORT:ADDRESS[,ADDRESS...])");
  EXPECT_EQ(parse_resolve_override("a.test:0:127.0.0.1").error().message(),
            "--resolve 'a.test:0:127.0.0.1': bad port (expected HOST:PORT:ADDRESS[,ADDRESS...])");
  EXPECT_EQ(parse_resolve_override("a.test:80:localhost").error().message(),
            "--resolve 'a.test:80:localhost': 'localhost' is not an IP address (expected "
            "HOST:PORT:ADDRESS[,ADDRESS...])");
  EXPECT_FALSE(parse_resolve_override(":80:127.0.0.1"));
  EXPECT_EQ(parse_resolve_override("a.test:80:127.0.0.1").value().port, 80);
}

TEST(ConnectToOverride, EmptyPartsMatchAnyOrKeepTheOriginal) {
  auto any_host = parse_connect_to_override(":443:[::1]:8443");
  ASSERT_TRUE(any_host) << any_host.error().message();
  EXPECT_EQ(any_host->host, "");
  EXPECT_EQ(any_host->port, 443);
  EXPECT_EQ(any_host->connect_host, "::1");
  EXPECT_EQ(any_host->connect_port, 8443);
  auto same_host = parse_connect_to_override("a.test::b.test:");
  ASSERT_TRUE(same_host) << same_host.error().message();
  EXPECT_EQ(same_host->port, 0);
  EXPECT_EQ(same_host->connect_host, "b.test");
  EXPECT_EQ(same_host->connect_port, 0);
  std::vector<ConnectToOverride> entries{*same_host, *any_host};
  EXPECT_EQ(find_connect_to(entries, "a.test", 80), &entries[0]);  // the first match wins
  EXPECT_EQ(find_connect_to(entries, "c.test", 443), &entries[1]);
  EXPECT_EQ(find_connect_to(entries, "c.test", 80), nullptr);
}

TEST(ConnectToOverride, NeedsFourParts) {
  EXPECT_FALSE(parse_connect_to_override("a.test:443:b.test"));
  EXPECT_FALSE(parse_connect_to_override("a.test:443:b.test:1:2"));
  EXPECT_FALSE(parse_connect_to_override("a.test:70000:b.test:1"));
  EXPECT_FALSE(parse_connect_to_override("[::1:443:b.test:1"));
}

}  // namespace
}  // namespace sluice
