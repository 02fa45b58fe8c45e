// Response::timing, remote_ip/remote_port and BodyReader::ended_at over every version:
// the steps of a new connection in the order they happen (DNS, connect, TLS, request,
// response, end), none of them on a reused one, and the address the connection
// reached. HTTP/3 connects and secures in one QUIC handshake: both steps span it.
#include <optional>
#include <string>

#include "versions.hpp"

namespace sluice {
namespace {

using Step = std::optional<ResponseTiming::TimePoint>;

class VersionsTiming : public test::VersionsTest {
 protected:
  // Each step that happened is no earlier than the one before it.
  static void expect_ordered(const std::vector<std::pair<const char*, Step>>& steps) {
    const char* last_name = nullptr;
    Step last;
    for (const auto& [name, at] : steps) {
      if (!at) continue;
      if (last) {
        EXPECT_LE(*last, *at) << name << " came before " << last_name;
      }
      last = at;
      last_name = name;
    }
  }
  bool tls() const { return wire() != test::Wire::h1 && wire() != test::Wire::h2c; }
};

TEST_P(VersionsTiming, ANewConnectionShowsEachStepInOrderAndAReusedOneNone) {
  Client client = make_client();
  const std::string url = base_url(test::Need::files) + "/1m.bin";
  auto first = client.fetch(request_to(url));
  ASSERT_TRUE(first.ok()) << first.error().describe();
  expect_file(first->body, "1m.bin");
  const ResponseTiming& t = first->timing;
  EXPECT_FALSE(t.connection_reused);
  EXPECT_EQ(first->connects, 1) << "the first request opened the connection";
  ASSERT_TRUE(t.dns_start && t.dns_end && t.connect_start && t.connect_end);
  EXPECT_EQ(t.tls_start.has_value(), tls());
  EXPECT_EQ(t.tls_end.has_value(), tls());
  const Step end = first->body.ended_at();
  ASSERT_TRUE(end.has_value()) << "a body read to its end has no end time";
  // TCP connects, then TLS secures; QUIC's one handshake is both (checked below).
  expect_ordered({{"start", t.start},
                  {"fetch_start", t.fetch_start},
                  {"dns_start", t.dns_start},
                  {"dns_end", t.dns_end},
                  {"connect_start", t.connect_start},
                  {"connect_end", wire() == test::Wire::h3 ? Step() : t.connect_end},
                  {"tls_start", wire() == test::Wire::h3 ? Step() : t.tls_start},
                  {"tls_end", t.tls_end},
                  {"request_start", t.request_start},
                  {"response_start", t.response_start},
                  {"end", end}});
  if (wire() == test::Wire::h3) {
    EXPECT_EQ(t.connect_start, t.tls_start) << "QUIC connects and secures in one handshake";
    EXPECT_EQ(t.connect_end, t.tls_end);
  }
  EXPECT_EQ(first->remote_ip, "127.0.0.1");
  const std::string port = ":" + std::to_string(first->remote_port);
  EXPECT_NE(first->remote_port, 0);
  EXPECT_NE(base_url(test::Need::files).find(port), std::string::npos)
      << "remote_port " << first->remote_port << " is not the server's";

  auto second = client.fetch(request_to(url));
  ASSERT_TRUE(second.ok()) << second.error().describe();
  expect_file(second->body, "1m.bin");
  const ResponseTiming& again = second->timing;
  EXPECT_TRUE(again.connection_reused);
  EXPECT_EQ(second->connects, 0) << "a reused connection counted as opened";
  EXPECT_FALSE(again.dns_start || again.dns_end || again.connect_start || again.connect_end ||
               again.tls_start || again.tls_end)
      << "a reused connection reported the steps of its making";
  EXPECT_LE(again.fetch_start, again.request_start);
  EXPECT_LE(again.request_start, again.response_start);
  EXPECT_EQ(second->remote_ip, first->remote_ip);
  EXPECT_EQ(second->remote_port, first->remote_port);
}

// Only the versions whose real server redirects (nghttpd, behind h2c, does not).
class VersionsRedirectTiming : public VersionsTiming {};

TEST_P(VersionsRedirectTiming, ARedirectKeepsItsStartAndBeginsTheFinalFetchLater) {
  const std::string base = base_url(test::Need::redirects);
  ASSERT_FALSE(base.empty()) << "no real server redirects over " << test::wire_name(wire());
  Client client = make_client();
  Request request = request_to(base + "/redirect-chain/2");
  request.redirects.follow = true;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_EQ(response->redirects, 2);
  (void)test::read_until_end(response->body);
  const ResponseTiming& t = response->timing;
  EXPECT_LT(t.start, t.fetch_start) << "the final hop began when the first did";
  EXPECT_LE(t.fetch_start, t.request_start);
  EXPECT_TRUE(t.connection_reused) << "the hops share one origin and its connection";
  EXPECT_EQ(response->connects, 1) << "the first hop opened the one connection all hops used";
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsTiming, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);
INSTANTIATE_TEST_SUITE_P(Versions, VersionsRedirectTiming,
                         ::testing::Values(test::Wire::h1, test::Wire::h1_tls, test::Wire::h2,
                                           test::Wire::h3),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
