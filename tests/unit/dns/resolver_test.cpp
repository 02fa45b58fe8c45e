// Resolver: /etc/hosts and IP literals, the DNS cache and its TTLs, one query per
// name in flight, --resolve entries, -4/-6, and a name server that never answers;
// against DnsTestServer, a real (tiny) DNS server on loopback.

#include "dns/resolver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "support/dns_test_server.hpp"
#include "support/manual_clock.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using Addresses = Result<std::vector<SocketAddress>>;

std::optional<Addresses> resolve_once(const std::string& host, std::uint16_t port) {
  EventLoop loop;
  Resolver resolver(loop);
  std::optional<Addresses> outcome;
  auto lookup = resolver.resolve(host, port, [&](Addresses result) {
    outcome.emplace(std::move(result));
    loop.stop();
  });
  loop.add_timer(Clock::now() + 5s, [&] { loop.stop(); });
  loop.run();
  return outcome;
}

// Resolves on `loop` (whose clock may be manual: answers come by the network, and
// nothing here waits on a timer) until the answer; a hang guard of 5 s real time.
Addresses resolve_on(EventLoop& loop, Resolver& resolver, const std::string& host,
                     std::uint16_t port = 80) {
  std::optional<Addresses> outcome;
  auto lookup = resolver.resolve(host, port, [&](Addresses result) {
    outcome.emplace(std::move(result));
    loop.stop();
  });
  // The hang guard runs on real time, whatever the loop's clock.
  std::mutex mu;
  std::condition_variable finished;
  bool done = false;
  std::thread guard([&] {
    std::unique_lock lock(mu);
    if (!finished.wait_for(lock, 5s, [&] { return done; })) loop.stop();
  });
  loop.run();
  {
    std::lock_guard lock(mu);
    done = true;
  }
  finished.notify_one();
  guard.join();
  if (!outcome) return Error(ErrorCategory::timeout, "test: no answer within 5 s");
  return std::move(*outcome);
}

std::vector<std::string> texts(const Addresses& result) {
  std::vector<std::string> out;
  if (result) {
    for (const auto& address : *result) out.push_back(address.to_string());
  }
  return out;
}

ResolverOptions asking(const test::DnsTestServer& server) {
  ResolverOptions options;
  options.servers = server.address();
  return options;
}

TEST(Resolver, LocalhostResolvesToLoopback) {
  auto outcome = resolve_once("localhost", 8080);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(*outcome) << outcome->error().message();
  ASSERT_FALSE(outcome->value().empty());
  for (const SocketAddress& address : outcome->value()) {
    const std::string text = address.to_string();
    EXPECT_TRUE(text == "127.0.0.1:8080" || text == "[::1]:8080") << text;
  }
}

TEST(Resolver, UnknownNameFailsWithCategoryDns) {
  auto outcome = resolve_once("nosuch.invalid", 80);
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(*outcome);
  EXPECT_EQ(outcome->error().category(), ErrorCategory::dns);
  EXPECT_EQ(outcome->error().message().rfind("DNS: cannot resolve 'nosuch.invalid': ", 0), 0u)
      << outcome->error().message();
}

TEST(Resolver, IpLiteralIsDeliveredLaterNotFromInsideResolve) {
  EventLoop loop;
  Resolver resolver(loop);
  bool returned = false;
  std::optional<bool> called_after_return;
  std::string text;
  auto lookup = resolver.resolve("[::1]", 443, [&](Result<std::vector<SocketAddress>> result) {
    called_after_return = returned;
    if (result && result.value().size() == 1) text = result.value()[0].to_string();
    loop.stop();
  });
  returned = true;
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });
  loop.run();
  ASSERT_TRUE(called_after_return.has_value());
  EXPECT_TRUE(*called_after_return);
  EXPECT_EQ(text, "[::1]:443");
}

TEST(Resolver, DestroyedLookupNeverCallsBack) {
  EventLoop loop;
  bool called = false;
  {
    Resolver resolver(loop);
    auto lookup = resolver.resolve("localhost", 80, [&](auto) { called = true; });
    lookup.reset();
  }  // the Resolver joined its threads: anything they posted is queued now
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

TEST(Resolver, LookupDestroyedAfterItsResultWasPostedNeverCallsBack) {
  EventLoop loop;
  bool called = false;
  std::unique_ptr<Resolver::Lookup> lookup;
  {
    Resolver resolver(loop);
    lookup = resolver.resolve("127.0.0.1", 80, [&](auto) { called = true; });
  }
  // The result is queued on the loop (IP literals post at once); cancel first.
  lookup.reset();
  loop.post([&] { loop.stop(); });
  loop.run();
  EXPECT_FALSE(called);
}

TEST(Resolver, CallbackMayDestroyItsLookup) {
  EventLoop loop;
  Resolver resolver(loop);
  std::unique_ptr<Resolver::Lookup> lookup;
  bool called = false;
  lookup = resolver.resolve("127.0.0.1", 80, [&](auto) {
    called = true;
    lookup.reset();
    loop.stop();
  });
  loop.add_timer(Clock::now() + 2s, [&] { loop.stop(); });
  loop.run();
  EXPECT_TRUE(called);
  EXPECT_EQ(lookup, nullptr);
}

TEST(Resolver, AnswersAreCachedForTheirTtl) {
  test::DnsTestServer server;
  server.answer("cached.test", {"127.0.0.1"}, 30);
  test::ManualClock clock;
  EventLoop loop(clock);
  Resolver resolver(loop, asking(server));
  EXPECT_EQ(texts(resolve_on(loop, resolver, "cached.test")),
            std::vector<std::string>{"127.0.0.1:80"});
  const std::size_t asked = server.questions("cached.test");
  EXPECT_EQ(asked, 2u);  // A and AAAA, together
  EXPECT_EQ(texts(resolve_on(loop, resolver, "CACHED.test", 443)),
            std::vector<std::string>{"127.0.0.1:443"});
  EXPECT_EQ(server.questions("cached.test"), asked);  // from the cache, with the port asked
  EXPECT_EQ(resolver.stats().cache_hits, 1u);
  clock.advance(30s);  // the TTL has run out
  EXPECT_TRUE(resolve_on(loop, resolver, "cached.test"));
  EXPECT_EQ(server.questions("cached.test"), 2 * asked);
  EXPECT_EQ(resolver.stats().queries, 2u);
}

TEST(Resolver, ALongTtlIsCappedByTheCacheLimit) {
  test::DnsTestServer server;
  server.answer("long.test", {"127.0.0.1"}, 86'400);
  test::ManualClock clock;
  EventLoop loop(clock);
  ResolverOptions options = asking(server);
  options.cache.max_ttl = 60s;
  Resolver resolver(loop, options);
  ASSERT_TRUE(resolve_on(loop, resolver, "long.test"));
  clock.advance(59s);
  ASSERT_TRUE(resolve_on(loop, resolver, "long.test"));
  EXPECT_EQ(resolver.stats().queries, 1u);
  clock.advance(1s);
  ASSERT_TRUE(resolve_on(loop, resolver, "long.test"));
  EXPECT_EQ(resolver.stats().queries, 2u);
}

TEST(Resolver, LookupsOfOneNameInFlightShareOneQuery) {
  test::DnsTestServer server;
  server.answer("shared.test", {"127.0.0.1"}, 0);  // TTL 0: never cached
  EventLoop loop;
  Resolver resolver(loop, asking(server));
  int answered = 0;
  auto count = [&](Addresses result) {
    EXPECT_TRUE(result);
    if (++answered == 3) loop.stop();
  };
  auto first = resolver.resolve("shared.test", 80, count);
  auto second = resolver.resolve("shared.test", 443, count);
  auto third = resolver.resolve("Shared.Test", 8080, count);
  loop.add_timer(Clock::now() + 5s, [&] { loop.stop(); });
  loop.run();
  EXPECT_EQ(answered, 3);
  EXPECT_EQ(resolver.stats().queries, 1u);
  EXPECT_EQ(server.questions("shared.test"), 2u);  // one A, one AAAA
}

TEST(Resolver, AnAaaaOnlyNameGivesItsIpv6Addresses) {
  test::DnsTestServer server;
  server.answer("six.test", {"::1", "fd00::5"}, 60);
  EventLoop loop;
  Resolver resolver(loop, asking(server));
  auto result = resolve_on(loop, resolver, "six.test", 443);
  ASSERT_TRUE(result) << result.error().message();
  auto got = texts(result);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"[::1]:443", "[fd00::5]:443"}));
}

TEST(Resolver, AnAOnlyNameUnderIpv6OnlyFailsNamingTheFamily) {
  test::DnsTestServer server;
  server.answer("four.test", {"127.0.0.1"}, 60);
  EventLoop loop;
  ResolverOptions options = asking(server);
  options.family = AF_INET6;
  Resolver resolver(loop, options);
  auto result = resolve_on(loop, resolver, "four.test");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::dns);
  EXPECT_NE(result.error().message().find("'four.test'"), std::string::npos)
      << result.error().message();
  auto literal = resolve_on(loop, resolver, "127.0.0.1");
  ASSERT_FALSE(literal);
  EXPECT_NE(literal.error().message().find("only IPv6 is allowed"), std::string::npos)
      << literal.error().message();
}

TEST(Resolver, BothFamiliesComeBackForADualStackName) {
  test::DnsTestServer server;
  server.answer("dual.test", {"127.0.0.1", "::1"}, 60);
  EventLoop loop;
  Resolver resolver(loop, asking(server));
  auto got = texts(resolve_on(loop, resolver, "dual.test"));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"127.0.0.1:80", "[::1]:80"}));
}

TEST(Resolver, AnUnknownNameIsNxdomainFromTheServer) {
  test::DnsTestServer server;
  EventLoop loop;
  Resolver resolver(loop, asking(server));
  auto result = resolve_on(loop, resolver, "nobody.test");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::dns_failed);
  EXPECT_EQ(result.error().message(), "DNS: cannot resolve 'nobody.test': no such name");
  EXPECT_GE(server.questions("nobody.test"), 1u);
}

TEST(Resolver, ASilentNameServerFailsWithDnsTimeout) {
  test::DnsTestServer server;
  server.silent();
  EventLoop loop;
  ResolverOptions options = asking(server);
  options.timeout = 300ms;
  Resolver resolver(loop, options);
  auto result = resolve_on(loop, resolver, "silent.test");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), ErrorCode::dns_timeout);
  EXPECT_EQ(result.error().message(), "DNS: no answer for 'silent.test' within 300 ms");
  EXPECT_GE(server.questions("silent.test"), 1u);  // it was asked, and said nothing
}

TEST(Resolver, ResolveEntriesAnswerForTheirNameAndPortWithoutDns) {
  test::DnsTestServer server;
  EventLoop loop;
  ResolverOptions options = asking(server);
  options.overrides.push_back(*parse_resolve_override("fixed.test:443:127.0.0.5,[::1]"));
  Resolver resolver(loop, options);
  EXPECT_EQ(texts(resolve_on(loop, resolver, "FIXED.test", 443)),
            (std::vector<std::string>{"127.0.0.5:443", "[::1]:443"}));
  EXPECT_EQ(server.questions(), 0u);
  EXPECT_FALSE(resolve_on(loop, resolver, "fixed.test", 80));  // another port: DNS, NXDOMAIN
  EXPECT_GE(server.questions("fixed.test"), 1u);
}

}  // namespace
}  // namespace sluice
