// ClientOptions::memory.staged_bytes_budget: one number that bounds the body bytes a Client
// holds for readers, however many responses are held; and reading always makes
// progress under it, even while other held responses keep the total at the budget.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kBodies = 8;
constexpr std::size_t kBodySize = 8u << 20;
constexpr std::size_t kMark = 1u << 20;
constexpr std::size_t kBudget = 2u << 20;
constexpr std::size_t kReceive = 256 * 1024;  // HTTP/1.1's receive into the staging room

// Staged bytes once nothing can move any more, by the budget's contract: every
// response has bytes waiting for its reader and the total is at or above the budget,
// so each stream is held, by its mark or by the budget. Returns the total then, from
// a snapshot the HTTP thread takes between events (no receive half-done); fails the
// test if that state never comes.
std::size_t staged_once_all_held(const Client& client, const std::vector<Response>& responses,
                                 std::size_t budget) {
  ClientStats stats;
  const bool held = test::eventually([&] {
    for (const Response& response : responses) {
      if (response.body.buffered() == 0) return false;
    }
    stats = client.stats();
    return stats.staged_bytes >= budget;
  });
  EXPECT_TRUE(held) << "the responses were never all held: " << stats.staged_bytes
                    << " bytes staged, budget " << budget;
  return stats.staged_bytes;
}

// Without a budget: once every response is paused at its mark.
std::size_t staged_once_all_paused(const Client& client, std::size_t responses) {
  ClientStats stats;
  const bool paused = test::eventually([&] {
    stats = client.stats();
    return stats.paused_receivers == responses;
  });
  EXPECT_TRUE(paused) << stats.paused_receivers << " of " << responses << " paused";
  return stats.staged_bytes;
}

struct HeldBodies {
  std::string body = test::pseudo_random_bytes(kBodySize, 21);
  test::TestServer server{[this](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(test::http_response(200, body));
  }};

  std::vector<Response> start_all(Client& client) {
    std::vector<PendingResponse> pending;
    for (std::size_t i = 0; i < kBodies; ++i) {
      Request request = Request::get(server.url("/held/" + std::to_string(i)));
      request.allowance = {kMark, kMark};
      pending.push_back(client.send(std::move(request)));
    }
    std::vector<Response> responses;
    for (auto& waiting : pending) {
      auto response = waiting.wait();
      EXPECT_TRUE(response.ok()) << response.error().describe();
      if (response.ok()) responses.push_back(std::move(*response));
    }
    return responses;
  }
};

Client make_client(std::size_t budget) {
  ClientOptions options;
  options.memory.staged_bytes_budget = budget;
  options.pool.max_connections_per_origin = kBodies;
  return test::make_client(options);
}

// Once all are held, at most two bodies can sit at their mark (three marks exceed the
// bound), so at least six are held by the budget: budget_waits cannot be 0.
TEST(ClientBudget, HeldBodiesStayWithinTheBudgetPlusOneReceiveEach) {
  HeldBodies held;
  Client client = make_client(kBudget);
  std::vector<Response> responses = held.start_all(client);
  ASSERT_EQ(responses.size(), kBodies);
  const std::size_t staged = staged_once_all_held(client, responses, kBudget);
  EXPECT_LE(staged, kBudget + kBodies * kReceive);
  EXPECT_GE(staged, kBudget);
  EXPECT_GE(client.stats().budget_waits, 1u);

  // Without a budget the same responses hold their marks each: the bound above is
  // the budget's doing.
  Client unbounded = make_client(0);
  std::vector<Response> unbounded_responses = held.start_all(unbounded);
  ASSERT_EQ(unbounded_responses.size(), kBodies);
  EXPECT_GE(staged_once_all_paused(unbounded, kBodies), kBodies * kMark);
}

// The reader of one body reads it to the end while the others, unread, keep the
// total at the budget: a reader that has nothing waiting is always let through.
TEST(ClientBudget, ReadingOneBodyProgressesWhileOthersHoldTheBudget) {
  HeldBodies held;
  Client client = make_client(kBudget);
  std::vector<Response> responses = held.start_all(client);
  ASSERT_EQ(responses.size(), kBodies);
  staged_once_all_held(client, responses, kBudget);
  for (Response& response : responses) {
    auto body = response.body.read_all(kBodySize);
    ASSERT_TRUE(body.ok()) << body.error().describe();
    EXPECT_EQ(test::sha256_hex(*body), test::sha256_hex(held.body));
    EXPECT_LE(client.stats().staged_bytes, kBudget + kBodies * kReceive);
  }
  EXPECT_EQ(client.stats().staged_bytes, 0u);
}

// Reads with a buffer larger than the mark empty the staging buffer in one take, the
// case where the budget's hold and the mark's pause end together.
std::string read_in_large_reads(BodyReader& body) {
  std::string all;
  std::vector<std::byte> buffer(1u << 20);
  while (true) {
    auto n = body.read_for(buffer, 10s);
    if (!n.ok()) {
      ADD_FAILURE() << n.error().describe();
      return all;
    }
    if (!n->has_value()) {
      ADD_FAILURE() << "stalled: no byte for 10 s after " << all.size();
      return all;
    }
    if (**n == 0) return all;
    all.append(reinterpret_cast<const char*>(buffer.data()), **n);
  }
}

// Held streams and readers that empty their buffers at once, over HTTP/1.1 (socket
// reads) and HTTP/2 (no credit goes back while the budget is spent): every body
// arrives whole, in order, and the budget did hold streams back.
//
// The budget must hold streams back before any reader reads, whatever the timing:
// each of the 4 streams may stage a mark (256 KiB) before its reader reads, and one
// mark already fills the budget. Over HTTP/1.1 the total stays within the budget plus
// one receive per connection (256 + 4 * 64 KiB), so at most two streams can sit at
// their mark and the others must end held by the budget. (With a mark of one receive,
// 64 KiB, every stream could sit exactly at its mark with the total exactly at the
// budget, and no stream would ever be held by it.) Over HTTP/2 the first DATA frame
// that takes the total to the budget meets it.
void read_all_under_a_small_budget(const std::string& url, VersionPolicy version,
                                   const std::string& expected_sha, const std::string& ca) {
  ClientOptions options;
  options.tls.ca_file = ca;
  options.memory.staged_bytes_budget = 256 * 1024;
  options.pool.max_connections_per_origin = 4;
  Client client = test::make_client(options);
  Request request = Request::get(url);
  request.version = version;
  request.allowance = {256 * 1024, 256 * 1024};
  std::vector<Response> responses;
  for (int i = 0; i < 4; ++i) {
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    responses.push_back(std::move(*response));
  }
  // The readers start once the Client says the budget held streams back.
  ASSERT_TRUE(test::eventually([&] { return client.stats().budget_waits >= 1; }))
      << "the budget never held a stream back: " << client.stats().staged_bytes << " bytes staged";
  for (Response& response : responses) {
    EXPECT_EQ(test::sha256_hex(read_in_large_reads(response.body)), expected_sha);
  }
  EXPECT_EQ(client.stats().staged_bytes, 0u);
}

TEST(ClientBudget, LargeReadsFinishEveryBodyOverHttp1) {
  test::TestEnv env;
  read_all_under_a_small_budget(env.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin",
                                VersionPolicy::http1_only, env.sha256_of("64m.bin"), "");
}

TEST(ClientBudget, LargeReadsFinishEveryBodyOverHttp2) {
  test::TestEnv env;
  read_all_under_a_small_budget(env.get("SLUICE_NGINX_H2_URL") + "/64m.bin", VersionPolicy::http2,
                                env.sha256_of("64m.bin"), env.get("SLUICE_TEST_CA"));
}

// Decoded bytes count against the budget too: held gzip bodies that inflate 20:1
// stay within the budget plus one receive's worth of decoder output each, not a
// mark each (1 MiB here; 4 MiB in all without the budget).
TEST(ClientBudget, DecodedBytesCountAgainstTheBudget) {
  test::TestEnv env;
  ClientOptions options;
  options.memory.staged_bytes_budget = 512 * 1024;
  options.pool.max_connections_per_origin = 4;
  Client client = test::make_client(options);
  Request request = Request::get(env.get("SLUICE_NGINX_HTTP_URL") + "/64m.txt");
  request.decode.enabled = true;
  request.allowance = {1u << 20, 1u << 20};
  std::vector<Response> responses;
  for (int i = 0; i < 4; ++i) {
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    responses.push_back(std::move(*response));
  }
  // A mark (1 MiB) is more than the budget plus a step each (768 KiB): no stream can
  // stop at its mark, so every one ends held by the budget.
  EXPECT_LE(staged_once_all_held(client, responses, 512u * 1024), 512u * 1024 + 4 * kReceive);
  EXPECT_GE(client.stats().budget_waits, 1u);
  for (Response& response : responses) {
    EXPECT_EQ(test::sha256_hex(read_in_large_reads(response.body)), env.sha256_of("64m.txt"));
  }
}

}  // namespace
}  // namespace sluice
