// Memory rule 3, the sweep, over every protocol: a response its reader holds paused
// loses its empty scratch (the connection's receive and send buffers, the decoder's
// output scratch) after one sweep, while the bytes waiting for the reader stay; a
// prompt reader keeps its buffers. Each test also runs the same hold with the sweep
// effectively off, to show that the scratch it expects gone is really there. That
// control hold runs on a clock frozen once the body paused: held for as long as the
// test moves it, whatever the machine's load.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/client_on_clock.hpp"
#include "support/client_watch.hpp"
#include "support/freezable_clock.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr auto kQuickSweep = 100ms;  // so a receiver qualifies after 100 ms paused
// For the tests of what must NOT be swept: a prompt reader on a loaded 2-core
// machine (or under a sanitizer) can lag by tens of milliseconds, not by this.
constexpr auto kModerateSweep = 400ms;
constexpr auto kNoSweep = std::chrono::milliseconds(std::chrono::hours(1));
// The control hold, in the HTTP thread's time: longer than a quick sweep's receiver
// waits to qualify (kQuickSweep) and than the swept hold usually lasts, in steps of
// the quick sweep's period so that anything periodic gets its turns.
constexpr auto kControlHold = 1000ms;

class ClientSweep : public ::testing::Test {
 protected:
  ClientOptions options_with(std::chrono::milliseconds sweep_interval) {
    ClientOptions options;
    options.tls.ca_file = env_.get("SLUICE_TEST_CA");
    options.memory.sweep_interval = sweep_interval;
    return options;
  }
  Client make_client(std::chrono::milliseconds sweep_interval) {
    return test::make_client(options_with(sweep_interval));
  }
  // A Client whose HTTP thread runs on clock_ (which outlives it).
  Client make_client_on_clock(std::chrono::milliseconds sweep_interval) {
    auto client = test::client_on(clock_, options_with(sweep_interval));
    EXPECT_TRUE(client.ok()) << client.error().describe();
    return std::move(*client);
  }

  // Waits (with a deadline) until `done` holds for the client's stats; returns the
  // last snapshot, which the caller's expectations then show when it never did.
  template <typename Predicate>
  static ClientStats wait_for_stats(const Client& client, Predicate done) {
    ClientStats stats;
    test::eventually([&] {
      stats = client.stats();
      return done(stats);
    });
    return stats;
  }

  // Holds the response unread until it is paused and sweeps freed at least
  // `min_bytes` (an early sweep may find the connection still receiving and free only
  // the exchange's own scratch; a later one takes the connection's).
  static ClientStats hold_until_swept(const Client& client, std::size_t min_bytes) {
    return wait_for_stats(client, [min_bytes](const ClientStats& stats) {
      return stats.paused_receivers == 1 && stats.sweep_releases >= 1 &&
             stats.sweep_bytes_released >= min_bytes;
    });
  }

  // The same hold without a sweep, on clock_: paused, then the clock frozen and moved
  // by kControlHold, each step's timers run (anything but the sweep that would free
  // the scratch has had its chance), with the sweep an hour away. The clock runs on
  // afterwards, for the body's rest (QUIC needs time to pass to send).
  ClientStats hold_without_sweep(Client& client) {
    ClientStats paused = wait_for_stats(
        client, [](const ClientStats& stats) { return stats.paused_receivers == 1; });
    EXPECT_EQ(paused.paused_receivers, 1u);
    clock_.freeze();
    EXPECT_TRUE(test::advance_in_steps(clock_, client, kControlHold, kQuickSweep))
        << "the HTTP thread is stuck";
    const ClientStats held = client.stats();
    EXPECT_TRUE(test::thaw(clock_, client));
    return held;
  }

  void expect_body(Response& response, std::string_view file) {
    auto body = response.body.read_all(128u << 20);
    ASSERT_TRUE(body.ok()) << body.error().describe();
    EXPECT_EQ(test::sha256_hex(*body), env_.sha256_of(file));
  }

  // Holds `request` once with a quick sweep and once with none; returns both
  // snapshots (swept, unswept) after checking the bodies stayed intact.
  std::pair<ClientStats, ClientStats> hold_both_ways(const Request& request, std::string_view file,
                                                     std::size_t min_swept_bytes = 1) {
    Client swept_client = make_client(kQuickSweep);
    auto swept_response = swept_client.fetch(request);
    EXPECT_TRUE(swept_response.ok()) << swept_response.error().describe();
    if (!swept_response.ok()) return {};
    const ClientStats swept = hold_until_swept(swept_client, min_swept_bytes);
    expect_body(*swept_response, file);

    Client unswept_client = make_client_on_clock(kNoSweep);
    auto unswept_response = unswept_client.fetch(request);
    EXPECT_TRUE(unswept_response.ok()) << unswept_response.error().describe();
    if (!unswept_response.ok()) return {};
    const ClientStats unswept = hold_without_sweep(unswept_client);
    expect_body(*unswept_response, file);
    return {swept, unswept};
  }

  static void expect_swept(const ClientStats& swept, const ClientStats& unswept) {
    EXPECT_EQ(swept.paused_receivers, 1u);
    EXPECT_GE(swept.sweep_releases, 1u);
    EXPECT_EQ(swept.retained_scratch_bytes, 0u) << "the paused receiver kept empty scratch";
    EXPECT_GE(swept.staged_bytes, 32u * 1024) << "the reader's bytes must stay";
    EXPECT_EQ(unswept.sweep_releases, 0u);
    EXPECT_GT(unswept.retained_scratch_bytes, 0u) << "no scratch to sweep: the test proves nothing";
  }

  test::TestEnv env_;
  test::FreezableClock clock_;  // the unswept control's HTTP thread time
};

TEST_F(ClientSweep, PausedHttp1ReceiverLosesItsEmptyScratch) {
  Request request = Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin");
  const auto [swept, unswept] = hold_both_ways(request, "64m.bin");
  expect_swept(swept, unswept);
}

// Over TLS the sweep also frees OpenSSL's record buffers (a read and a write buffer
// of a whole record each). The control is the same hold over plain http, swept of
// everything it can free; the https hold is then waited on until its sweeps freed
// that much plus the two records (a sweep that found a record half read frees them at
// a later tick), and the body read after the pause, with the buffers made again,
// must still arrive whole and verified (expect_body checks its sha256).
TEST_F(ClientSweep, PausedHttpsReceiverAlsoLosesItsTlsRecordBuffers) {
  constexpr std::size_t kTwoRecords = 2 * 16384;
  Client plain_client = make_client(kQuickSweep);
  auto plain = plain_client.fetch(Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin"));
  ASSERT_TRUE(plain.ok()) << plain.error().describe();
  const ClientStats plain_swept = wait_for_stats(plain_client, [](const ClientStats& stats) {
    return stats.paused_receivers == 1 && stats.sweep_releases >= 1 &&
           stats.retained_scratch_bytes == 0;
  });
  expect_body(*plain, "64m.bin");

  Client client = make_client(kQuickSweep);
  Request request = Request::get(env_.get("SLUICE_NGINX_HTTPS_URL") + "/64m.bin");
  request.version = VersionPolicy::http1_only;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  const ClientStats swept =
      hold_until_swept(client, plain_swept.sweep_bytes_released + kTwoRecords);
  EXPECT_EQ(swept.paused_receivers, 1u);
  EXPECT_GE(swept.sweep_bytes_released, plain_swept.sweep_bytes_released + kTwoRecords)
      << "the TLS record buffers were not freed";
  EXPECT_GE(swept.staged_bytes, 32u * 1024) << "the reader's bytes must stay";
  expect_body(*response, "64m.bin");
}

TEST_F(ClientSweep, PausedGzipReceiverLosesItsDecoderScratchButKeepsUndecodedBytes) {
  Request request = Request::get(env_.get("SLUICE_NGINX_HTTP_URL") + "/large.txt");
  request.decode.enabled = true;
  const auto [swept, unswept] = hold_both_ways(request, "large.txt");
  expect_swept(swept, unswept);
}

TEST_F(ClientSweep, PausedHttp2StreamAloneOnItsConnectionLosesTheConnectionsScratch) {
  Request request = Request::get(env_.get("SLUICE_NGINX_H2_URL") + "/64m.bin");
  request.version = VersionPolicy::http2;
  const auto [swept, unswept] = hold_both_ways(request, "64m.bin");
  expect_swept(swept, unswept);
}

// A QUIC connection keeps receiving acknowledgements while a stream is held, and a
// datagram allocates the receive scratch again: what is checked is that the sweep
// freed it (at least the UDP batch block), not that it stays freed.
TEST_F(ClientSweep, PausedHttp3StreamLosesItsConnectionsReceiveScratch) {
  Request request = Request::get(env_.get("SLUICE_CADDY_URL") + "/64m.bin");
  request.version = VersionPolicy::http3_only;
  constexpr std::size_t kUdpBatchBlock = 64u * 2048;
  const auto [swept, unswept] = hold_both_ways(request, "64m.bin", kUdpBatchBlock);
  EXPECT_GE(swept.sweep_bytes_released, kUdpBatchBlock);
  EXPECT_EQ(unswept.sweep_releases, 0u);
  EXPECT_GT(unswept.retained_scratch_bytes, 0u);
}

// The sibling is read a MiB at a time while the test moves the HTTP thread's clock
// (frozen from the start, so no sweep runs before the test moves it: not while the
// sibling waits unread for the held stream to fill) by a step after each MiB: kModerateSweep /
// kSiblingStep steps make one sweep, and 64 steps sixteen. The sibling may pause at
// its mark between reads, but every MiB read resumes it (a MiB is four marks), so
// when a sweep runs it has been paused for at most one step, less than the sweep
// waits for: it receives, and the connection it shares with the held stream must
// keep its scratch through every sweep.
TEST_F(ClientSweep, HeldStreamDoesNotTakeScratchFromAFlowingSiblingOnItsConnection) {
  constexpr auto kSiblingStep = 100ms;
  static_assert(kSiblingStep < kModerateSweep);
  clock_.freeze();
  Client client = make_client_on_clock(kModerateSweep);
  Request request = Request::get(env_.get("SLUICE_NGINX_H2_URL") + "/64m.bin");
  request.version = VersionPolicy::http2;
  auto held = client.fetch(request);
  ASSERT_TRUE(held.ok()) << held.error().describe();
  auto sibling = client.fetch(request);
  ASSERT_TRUE(sibling.ok()) << sibling.error().describe();
  ASSERT_EQ(client.stats().connections, 1u);
  // The held stream has its whole window, the mark: it is paused, and stays so.
  ASSERT_TRUE(test::wait_for_client(
      client, [&] { return held->body.buffered() >= request.allowance.initial_bytes; }))
      << "the held stream never filled its window: buffered " << held->body.buffered();
  std::vector<std::byte> buffer(64 * 1024);
  std::uint64_t bytes = 0;
  std::uint64_t next_step = 1u << 20;
  ClientStats during{};
  while (true) {
    auto n = sibling->body.read(buffer);
    ASSERT_TRUE(n.ok()) << n.error().describe();
    if (*n == 0) break;
    bytes += *n;
    if (bytes < next_step) continue;
    next_step += 1u << 20;
    // The resume the reads posted has run (so the sibling's stream, seen from the
    // connection, is receiving or paused since now) before the clock moves.
    ASSERT_TRUE(test::settle(client)) << "the HTTP thread is stuck";
    ASSERT_TRUE(test::advance(clock_, client, kSiblingStep)) << "the HTTP thread is stuck";
    // Before the sibling ends: then the held stream is alone and may be swept.
    if (bytes < (60u << 20)) during = client.stats();
  }
  EXPECT_EQ(bytes, 64u << 20);
  EXPECT_EQ(during.in_flight, 2u);
  EXPECT_GE(during.paused_receivers, 1u);  // the held one; the sibling at moments
  EXPECT_EQ(during.sweep_releases, 0u) << "the connection's scratch went while its sibling read";
  EXPECT_TRUE(test::thaw(clock_, client));
  expect_body(*held, "64m.bin");
}

// A prompt reader is paused only for moments: 16 bodies read at once keep their
// scratch through every sweep. "Prompt" is made exact on a frozen clock, in steps:
// - the server sends each body a MiB per step, so 32 MiB take 32 steps (eight sweeps);
// - a reader reads until it has taken all there is (its stream is below the resume
//   point, its resume posted), then waits for the next step;
// - the test moves the HTTP thread's clock by a step once every reader caught up and
//   the resumes ran.
// A receiver is so paused for at most one step, a quarter of the pause the sweep
// waits for, and the sweep must find nothing to free.
TEST(ClientSweepPromptReaders, KeepTheirScratch) {
  constexpr int kReaders = 16;
  constexpr std::size_t kPerStep = 1u << 20;
  constexpr auto kStep = 100ms;
  static_assert(kStep * 4 <= kModerateSweep);
  const std::string body = test::pseudo_random_bytes(32u << 20, 5);

  std::mutex mu;
  std::condition_variable changed;
  int step = 0;           // the clock's moves so far; guarded by mu
  int caught_up = 0;      // readers that caught up since the last move; guarded by mu
  bool finished = false;  // a reader ended (or the test failed): no more moves; guarded by mu
  auto wait_for_step = [&](int seen) {
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return step > seen || finished; });
    return step;
  };
  auto finish = [&] {
    std::lock_guard lock(mu);
    finished = true;
    changed.notify_all();
  };

  test::TestServer server([&](test::ServerConnection& conn) {
    if (!conn.read_request()) return;
    if (!conn.write("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\n\r\n")) {
      return;
    }
    int seen = 0;
    for (std::size_t at = 0; at < body.size(); at += kPerStep) {
      if (at != 0) seen = wait_for_step(seen);
      if (!conn.write(std::string_view(body).substr(at, kPerStep))) return;
    }
  });
  test::FreezableClock clock;
  clock.freeze();
  ClientOptions options;
  options.memory.sweep_interval = kModerateSweep;
  options.pool.max_connections_per_origin = kReaders;
  auto created = test::client_on(clock, options);
  ASSERT_TRUE(created.ok()) << created.error().describe();
  Client& client = *created;

  std::vector<std::uint64_t> received(kReaders, 0);
  std::vector<std::string> errors(kReaders);
  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; ++i) {
    readers.emplace_back([&, i] {
      auto response = client.fetch(Request::get(server.url("/prompt")));
      if (!response.ok()) {
        errors[i] = response.error().describe();
        return finish();
      }
      std::vector<std::byte> buffer(256 * 1024);
      int seen = 0;
      while (true) {
        auto n = response->body.read(buffer);
        if (!n.ok()) errors[i] = n.error().describe();
        if (!n.ok() || *n == 0) break;
        received[i] += *n;
        if (response->body.buffered() != 0) continue;
        {
          std::lock_guard lock(mu);
          ++caught_up;
          changed.notify_all();
        }
        seen = wait_for_step(seen);
      }
      finish();
    });
  }
  int steps = 0;
  bool stuck = false;
  while (true) {
    {
      std::unique_lock lock(mu);
      changed.wait(lock, [&] { return caught_up >= kReaders || finished; });
      if (finished) break;
    }
    // The resumes the catching-up reads posted run before the clock moves.
    if (!test::settle(client) || !test::advance(clock, client, kStep)) {
      stuck = true;
      finish();
      break;
    }
    ++steps;
    std::lock_guard lock(mu);
    caught_up = 0;
    ++step;
    changed.notify_all();
  }
  for (auto& reader : readers) reader.join();
  ASSERT_FALSE(stuck) << "the HTTP thread is stuck";
  for (int i = 0; i < kReaders; ++i) {
    EXPECT_EQ(errors[i], "") << "reader " << i;
    EXPECT_EQ(received[i], body.size()) << "reader " << i;
  }
  EXPECT_GE(steps, static_cast<int>(body.size() / kPerStep) - 1);
  EXPECT_EQ(client.stats().sweep_releases, 0u) << "a prompt reader's scratch was swept";
  EXPECT_TRUE(test::thaw(clock, client));
}

}  // namespace
}  // namespace sluice
