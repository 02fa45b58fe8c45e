// ClientOptions::host_dispatch: the Client never runs user code on its HTTP thread.
// Callbacks wait until the host's loop sees dispatch_fd() readable and calls
// dispatch(), which runs them on the host's thread; a body nobody dispatches stays
// staged and its stream holds at the mark.
#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

constexpr std::size_t kOneReceive = 64u << 10;

Client host_client(ClientOptions options = {}) {
  options.host_dispatch = true;
  return test::make_client(std::move(options));
}

// The host's loop: waits for the fd, then dispatches, until `done` holds. False if
// the fd stayed quiet for 30 s with `done` still false.
bool run_host_loop(Client& client, const std::function<bool()>& done) {
  while (!done()) {
    pollfd fd{client.dispatch_fd(), POLLIN, 0};
    if (::poll(&fd, 1, 30'000) != 1) return false;
    client.dispatch();
  }
  return true;
}

// Waits (without dispatching) until the fd says callbacks wait.
bool fd_readable(const Client& client) {
  pollfd fd{client.dispatch_fd(), POLLIN, 0};
  return ::poll(&fd, 1, 30'000) == 1;
}

TEST(ClientHostDispatch, WithoutItThereIsNoFdAndNothingToDispatch) {
  auto client = test::make_client();
  EXPECT_EQ(client.dispatch_fd(), -1);
  EXPECT_EQ(client.dispatch(), 0u);
}

TEST(ClientHostDispatch, ThenRunsInDispatchOnTheHostThread) {
  TestServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, "hello"));
  });
  Client client = host_client();
  ASSERT_GE(client.dispatch_fd(), 0);
  std::atomic<bool> ran{false};
  std::thread::id ran_on;
  int status = 0;
  client.send(Request::get(server.url("/"))).then([&](Result<Response> response) {
    ran_on = std::this_thread::get_id();
    if (response) status = response->status;
    ran = true;
  });
  ASSERT_TRUE(fd_readable(client)) << "the fd never said a callback waits";
  EXPECT_FALSE(ran) << "the callback ran before dispatch()";
  ASSERT_TRUE(run_host_loop(client, [&] { return ran.load(); }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(status, 200);
  pollfd fd{client.dispatch_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&fd, 1, 0), 0) << "the fd stayed readable with nothing to dispatch";
}

TEST(ClientHostDispatch, ABodyNobodyDispatchesHoldsAtItsMarkThenArrivesWhole) {
  test::TestEnv env;
  ClientOptions options;
  Client client = host_client(options);
  Request request = Request::get(env.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin");
  std::optional<Response> response;
  client.send(request).then([&](Result<Response> r) {
    ASSERT_TRUE(r.ok()) << r.error().describe();
    response.emplace(std::move(*r));
  });
  ASSERT_TRUE(run_host_loop(client, [&] { return response.has_value(); }));
  std::string body;
  std::thread::id delivered_on;
  std::optional<Result<void>> end;
  auto callbacks = std::move(response->body)
                       .on_data(
                           [&](std::span<const std::byte> bytes) {
                             delivered_on = std::this_thread::get_id();
                             body.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
                             return true;
                           },
                           [&](Result<void> status) { end.emplace(std::move(status)); });
  // No dispatch(): the bytes wait staged, and the stream stops at its mark.
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "the undispatched body never paused; staged " << callbacks.buffered();
  EXPECT_TRUE(body.empty()) << "on_data ran without dispatch()";
  EXPECT_LE(callbacks.buffered(), request.allowance.initial_bytes + kOneReceive);
  ASSERT_TRUE(run_host_loop(client, [&] { return end.has_value(); }));
  ASSERT_TRUE(end->ok()) << end->error().describe();
  EXPECT_EQ(delivered_on, std::this_thread::get_id());
  EXPECT_EQ(test::sha256_hex(body), env.sha256_of("64m.bin"));
}

TEST(ClientHostDispatch, APausedCallbackKeepsTheStreamHeldUntilResumed) {
  test::TestEnv env;
  Client client = host_client();
  Request request = Request::get(env.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin");
  auto head = client.fetch(request);  // wait() needs no dispatch
  ASSERT_TRUE(head.ok()) << head.error().describe();
  std::string body;
  bool hold = true;
  std::optional<Result<void>> end;
  auto callbacks = std::move(head->body)
                       .on_data(
                           [&](std::span<const std::byte> bytes) {
                             body.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
                             return !hold;  // the first piece pauses delivery
                           },
                           [&](Result<void> status) { end.emplace(std::move(status)); });
  ASSERT_TRUE(run_host_loop(client, [&] { return !body.empty(); }));
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }))
      << "a paused callback did not hold the stream; staged " << callbacks.buffered();
  EXPECT_LE(callbacks.buffered(), request.allowance.initial_bytes + kOneReceive);
  const std::size_t held_at = body.size();
  client.dispatch();  // nothing more may be delivered while paused
  EXPECT_EQ(body.size(), held_at);
  hold = false;
  callbacks.resume();
  ASSERT_TRUE(run_host_loop(client, [&] { return end.has_value(); }));
  ASSERT_TRUE(end->ok()) << end->error().describe();
  EXPECT_EQ(test::sha256_hex(body), env.sha256_of("64m.bin"));
}

// A paused reader has nothing to be handed: the HTTP thread filling its buffer up to
// the mark must not wake the host once per receive. Its resume queues the delivery.
TEST(ClientHostDispatch, APausedBodyDoesNotWakeTheHostUntilItResumes) {
  test::TestEnv env;
  Client client = host_client();
  auto head = client.fetch(Request::get(env.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin"));
  ASSERT_TRUE(head.ok()) << head.error().describe();
  std::size_t pieces = 0;
  bool hold = true;
  auto callbacks = std::move(head->body)
                       .on_data(
                           [&](std::span<const std::byte>) {
                             ++pieces;
                             return !hold;
                           },
                           [](Result<void>) {});
  ASSERT_TRUE(run_host_loop(client, [&] { return pieces > 0; }));
  ASSERT_TRUE(test::eventually([&] { return client.stats().paused_receivers == 1; }));
  pollfd fd{client.dispatch_fd(), POLLIN, 0};
  EXPECT_EQ(::poll(&fd, 1, 0), 0) << "the host was woken for a paused body";
  callbacks.resume();
  EXPECT_TRUE(fd_readable(client)) << "a resume queued no delivery";
  client.dispatch();
  EXPECT_EQ(pieces, 2u) << "one more piece, and the pause it asked for";
}

TEST(ClientHostDispatch, WhenWritableAndTraceRunInDispatch) {
  TestServer server([](ServerConnection& conn) {
    if (auto request = conn.read_request()) {
      conn.write(test::http_response(200, std::to_string(request->body.size())));
    }
  });
  ClientOptions options;
  std::atomic<bool> traced_off_host{false};
  std::size_t trace_lines = 0;
  const auto host_thread = std::this_thread::get_id();
  options.trace = [&](std::string_view) {
    if (std::this_thread::get_id() != host_thread) traced_off_host = true;
    ++trace_lines;
  };
  Client client = host_client(options);
  auto writer = BodyWriter::create(4096);
  Request request = Request::get(server.url("/upload"));
  request.method = "POST";
  request.body = StreamBody{writer, 3u * 4096};
  std::optional<Result<Response>> response;
  client.send(request).then([&](Result<Response> r) { response.emplace(std::move(r)); });
  int pieces = 0;
  std::thread::id writable_on;
  std::function<void()> write_next = [&] {
    writable_on = std::this_thread::get_id();
    ASSERT_TRUE(writer->write(std::string(4096, 'x')).ok());
    if (++pieces == 3) {
      writer->close();
    } else {
      writer->when_writable(write_next);
    }
  };
  writer->when_writable(write_next);
  ASSERT_TRUE(run_host_loop(client, [&] { return response.has_value(); }));
  ASSERT_TRUE(response->ok()) << response->error().describe();
  EXPECT_EQ(*(*response)->body.read_all(), std::to_string(3 * 4096));
  EXPECT_EQ(pieces, 3);
  EXPECT_EQ(writable_on, host_thread);
  EXPECT_GT(trace_lines, 0u) << "no trace line was dispatched";
  EXPECT_FALSE(traced_off_host);
}

TEST(ClientHostDispatch, DestroyingTheClientRunsTheCallbacksStillWaiting) {
  TestServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.wait_peer_closed(30s);  // never answers
  });
  int calls = 0;
  std::optional<ErrorCategory> category;
  std::thread::id ran_on;
  {
    Client client = host_client();
    client.send(Request::get(server.url("/never"))).then([&](Result<Response> r) {
      ++calls;
      ran_on = std::this_thread::get_id();
      if (!r) category = r.error().category();
    });
    ASSERT_TRUE(test::eventually([&] { return server.connections_accepted() == 1; }));
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(category, ErrorCategory::cancelled);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace sluice
