// Callback bodies that outlive their Client. Destroying a Client ends what it has in
// flight, but a body whose on_data paused it still holds staged bytes, and the HTTP
// thread that would deliver them is gone: a resume (or callbacks registered only
// now) must deliver them, then the end, on the caller's own thread, or the reader
// waits for an end that never comes.
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// A callback reader that pauses after its first piece and records where it ran.
struct PausingReader {
  std::mutex mu;
  std::string bytes;
  std::optional<Result<void>> end;
  std::thread::id end_ran_on;
  bool hold = true;

  CallbackBody attach(BodyReader& body) {
    return std::move(body).on_data(
        [this](std::span<const std::byte> piece) {
          std::lock_guard lock(mu);
          bytes.append(reinterpret_cast<const char*>(piece.data()), piece.size());
          return !hold;
        },
        [this](Result<void> status) {
          std::lock_guard lock(mu);
          end.emplace(std::move(status));
          end_ran_on = std::this_thread::get_id();
        });
  }
  std::size_t received() {
    std::lock_guard lock(mu);
    return bytes.size();
  }
};

TEST(ClientOutlived, APausedBodyThatEndedDeliversTheRestOnResume) {
  const std::string payload = test::pseudo_random_bytes(200u << 10, 31);
  TestServer server([&payload](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, payload));
  });
  PausingReader reader;
  std::optional<CallbackBody> callbacks;
  {
    auto client = test::make_client();
    Request request = Request::get(server.url("/"));
    request.allowance = BodyAllowance{256u << 10, 256u << 10};  // the whole body fits
    auto response = client.fetch(request);
    ASSERT_TRUE(response.ok()) << response.error().describe();
    callbacks.emplace(reader.attach(response->body));
    ASSERT_TRUE(test::eventually([&] { return reader.received() > 0; }));
    // The whole body arrived (it fits the allowance): the transfer is over, its bytes staged.
    ASSERT_TRUE(test::eventually([&] { return client.stats().in_flight == 0; }));
    ASSERT_LT(reader.received(), payload.size()) << "the first piece did not pause delivery";
  }
  reader.hold = false;
  callbacks->resume();  // the Client is gone: the rest comes here, now
  ASSERT_TRUE(reader.end.has_value()) << "resume after the Client was destroyed delivered no end";
  ASSERT_TRUE(reader.end->ok()) << reader.end->error().describe();
  EXPECT_EQ(reader.end_ran_on, std::this_thread::get_id());
  EXPECT_EQ(test::sha256_hex(reader.bytes), test::sha256_hex(payload));
}

TEST(ClientOutlived, APausedBodyCutByTheDestroyedClientEndsWithItsError) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    // A head that promises 4 MiB, a part of it, then nothing until the client leaves.
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 4194304\r\n\r\n" +
               test::pseudo_random_bytes(200u << 10, 32));
    conn.wait_peer_closed(30s);
  });
  PausingReader reader;
  std::optional<CallbackBody> callbacks;
  std::size_t staged = 0;
  {
    auto client = test::make_client();
    auto response = client.fetch(Request::get(server.url("/")));
    ASSERT_TRUE(response.ok()) << response.error().describe();
    callbacks.emplace(reader.attach(response->body));
    ASSERT_TRUE(test::eventually([&] { return reader.received() > 0; }));
    ASSERT_TRUE(test::eventually([&] { return callbacks->buffered() > 0; }));
    staged = callbacks->buffered();
  }
  const std::size_t before = reader.received();
  reader.hold = false;
  callbacks->resume();
  ASSERT_TRUE(reader.end.has_value()) << "the cut body never heard its end";
  ASSERT_FALSE(reader.end->ok());
  EXPECT_EQ(reader.end->error().category(), ErrorCategory::cancelled)
      << reader.end->error().describe();
  EXPECT_EQ(reader.end_ran_on, std::this_thread::get_id());
  EXPECT_GE(reader.received(), before + staged) << "bytes staged before the end were lost";
}

TEST(ClientOutlived, HostDispatchBodiesEndTooOnceTheClientIsGone) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 4194304\r\n\r\n" +
               test::pseudo_random_bytes(200u << 10, 33));
    conn.wait_peer_closed(30s);
  });
  PausingReader reader;
  std::optional<CallbackBody> callbacks;
  {
    ClientOptions options;
    options.host_dispatch = true;
    auto client = test::make_client(std::move(options));
    auto response = client.fetch(Request::get(server.url("/")));
    ASSERT_TRUE(response.ok()) << response.error().describe();
    callbacks.emplace(reader.attach(response->body));
    // The host's loop: dispatch until the first piece came (and paused delivery).
    ASSERT_TRUE(test::eventually([&] {
      client.dispatch();
      return reader.received() > 0;
    }));
  }  // ~Client runs what waits in the host's queue; the paused body gets nothing yet
  EXPECT_FALSE(reader.end.has_value()) << "a paused body was delivered its end";
  reader.hold = false;
  callbacks->resume();
  ASSERT_TRUE(reader.end.has_value()) << "the host-dispatch body never heard its end";
  EXPECT_EQ(reader.end->error().category(), ErrorCategory::cancelled);
  EXPECT_EQ(reader.end_ran_on, std::this_thread::get_id());
}

}  // namespace
}  // namespace sluice
