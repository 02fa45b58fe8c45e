// A server that takes a fixed number of requests per connection (nginx's
// keepalive_requests, a load balancer's per-connection budget) says so only by its
// GOAWAY: the streams above its last stream id were not processed. The client learns
// that number for the origin and sends no more than it on one connection, so
// parallel requests finish instead of being refused again on every new connection.
// End to end through sluice::Client against the in-process h2c H2TestServer.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/h2_test_server.hpp"
#include "support/make_client.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::H2ServerStream;
using test::H2TestServer;
using test::make_client;

Request h2_request(const H2TestServer& server, const std::string& path) {
  Request request = Request::get(server.url(path));
  request.version = VersionPolicy::http2_prior_knowledge;
  request.timeouts.connect = 5s;
  return request;
}

// Answers the first `limit` streams of each connection and sends GOAWAY naming the
// last of them; streams above it get no answer (they were not processed).
H2TestServer::Handler serving_per_connection(std::int32_t limit) {
  return [limit](H2ServerStream& stream) {
    const std::int32_t last = 2 * limit - 1;  // client streams are 1, 3, 5, ...
    if (stream.stream_id() > last) return;
    stream.respond(200);
    stream.send_body("body of " + stream.path(), true);
    if (stream.stream_id() == last) stream.conn().goaway(last, NGHTTP2_NO_ERROR, "request limit");
  };
}

std::vector<std::string> fetch_in_parallel(Client& client, const H2TestServer& server, int count) {
  std::vector<PendingResponse> pending;
  for (int i = 0; i < count; ++i) {
    pending.push_back(client.send(h2_request(server, "/file" + std::to_string(i))));
  }
  std::vector<std::string> outcomes;
  for (auto& one : pending) {
    auto decided = one.wait_for(20s);
    if (!decided) {
      outcomes.push_back("no answer within 20 s");
      continue;
    }
    if (!decided->ok()) {
      outcomes.push_back("error: " + decided->error().message());
      continue;
    }
    auto body = (*decided)->body.read_all();
    outcomes.push_back(body.ok() ? *body : "body error: " + body.error().message());
  }
  return outcomes;
}

std::vector<std::string> expected_bodies(int count) {
  std::vector<std::string> bodies;
  for (int i = 0; i < count; ++i) bodies.push_back("body of /file" + std::to_string(i));
  return bodies;
}

TEST(GoawayRequestLimit, FourParallelRequestsFinishAgainstOneRequestPerConnection) {
  H2TestServer server(serving_per_connection(1));
  auto client = make_client();
  EXPECT_EQ(fetch_in_parallel(client, server, 4), expected_bodies(4));
  // The first connection carried all four and served one; after its GOAWAY each
  // connection carries one request, so each of the three refused went once more.
  EXPECT_EQ(server.connections_accepted(), 4u);
}

TEST(GoawayRequestLimit, ALimitOfTwoPutsTwoRequestsOnEachNewConnection) {
  H2TestServer server(serving_per_connection(2));
  auto client = make_client();
  EXPECT_EQ(fetch_in_parallel(client, server, 8), expected_bodies(8));
  // 2 served on the first; the 6 refused go 2 by 2 on three more.
  EXPECT_EQ(server.connections_accepted(), 4u);
}

// What was learned holds for the origin while it is in use (here a download that
// never ends keeps it): later requests go one per connection from the start, and
// none is refused.
TEST(GoawayRequestLimit, RequestsAfterTheGoawayAreNotRefusedAgain) {
  const auto one_per_connection = serving_per_connection(1);
  H2TestServer server([&one_per_connection](H2ServerStream& stream) {
    if (stream.path() != "/held") {
      one_per_connection(stream);
      return;
    }
    stream.respond(200);
    stream.send_body("begun, never finished", false);
    stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR, "request limit");
  });
  auto client = make_client();
  auto held = client.fetch(h2_request(server, "/held"));
  ASSERT_TRUE(held.ok()) << held.error().message();
  ASSERT_EQ(fetch_in_parallel(client, server, 3), expected_bodies(3));
  ASSERT_EQ(server.connections_accepted(), 4u);  // /held's, then 1 + 2 for the three

  EXPECT_EQ(fetch_in_parallel(client, server, 3), expected_bodies(3));
  const std::vector<std::size_t> seen = server.requests_per_connection();
  ASSERT_EQ(seen.size(), 7u);
  EXPECT_EQ(std::vector<std::size_t>(seen.begin() + 4, seen.end()),
            (std::vector<std::size_t>{1, 1, 1}));
}

// A GOAWAY that refuses nothing teaches nothing: a server restarting gracefully
// does not turn the origin into one request per connection. The GOAWAY goes before
// the first response, so the client has read it when that fetch returns: sent after
// it, it could cross the four new requests on the wire and refuse them, which is
// what a per-connection limit looks like.
TEST(GoawayRequestLimit, AGracefulGoawayLeavesMultiplexingAlone) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.conn().index() == 1) {
      stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR, "restart");
    }
    stream.respond(200);
    stream.send_body("body of " + stream.path(), true);
  });
  auto client = make_client();
  auto first = client.fetch(h2_request(server, "/first"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(fetch_in_parallel(client, server, 4), expected_bodies(4));
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{1, 4}));
}

}  // namespace
}  // namespace sluice
