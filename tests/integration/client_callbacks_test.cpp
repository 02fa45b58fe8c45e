// Callback-mode bodies and dropped handles: the cases a review found stalling.
#include <gtest/gtest.h>
#include <zlib.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/http_thread_hold.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// Collects a callback-mode body and waits for its end.
struct Collector {
  std::mutex mu;
  std::condition_variable ended_cv;
  std::string bytes;
  std::optional<Result<void>> end;

  void attach(BodyReader& body) {
    (void)std::move(body).on_data(
        [this](std::span<const std::byte> piece) {
          std::lock_guard lock(mu);
          bytes.append(reinterpret_cast<const char*>(piece.data()), piece.size());
          return true;
        },
        [this](Result<void> status) {
          std::lock_guard lock(mu);
          end.emplace(std::move(status));
          ended_cv.notify_all();
        });
  }
  bool wait_end() {
    std::unique_lock lock(mu);
    return ended_cv.wait_for(lock, 10s, [this] { return end.has_value(); });
  }
};

std::string gzip(std::string_view input) {
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, input.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(ClientCallbacks, CompressedBodyLargerThanTheMarkCompletes) {
  const std::string text(8u << 20, 't');
  const std::string encoded = gzip(text);
  TestServer server([&encoded](ServerConnection& conn) {
    if (conn.read_request())
      conn.write(test::http_response(200, encoded, {{"Content-Encoding", "gzip"}}));
  });
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.decode.enabled = true;
  request.allowance = {16 * 1024, 16 * 1024};
  request.decode.max_ratio = 0;  // 8 MiB of one letter is a 1000:1 "bomb" by design
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  Collector collector;
  collector.attach(response->body);
  ASSERT_TRUE(collector.wait_end()) << "stalled after " << collector.bytes.size() << " bytes";
  EXPECT_TRUE(collector.end->ok());
  EXPECT_EQ(collector.bytes.size(), text.size());
}

TEST(ClientCallbacks, CallbacksRegisteredAfterTheBodyEndedStillFire) {
  TestServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, "short"));
  });
  auto client = test::make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  // The whole body has arrived and the transfer ended: nothing is in flight.
  ASSERT_TRUE(test::eventually([&] { return client.stats().in_flight == 0; }))
      << "the transfer never ended";
  Collector collector;
  collector.attach(response->body);
  ASSERT_TRUE(collector.wait_end());
  EXPECT_TRUE(collector.end->ok());
  EXPECT_EQ(collector.bytes, "short");
}

TEST(ClientCallbacks, DroppingTheReaderKeepsCallbacksRunning) {
  const std::string payload = test::pseudo_random_bytes(2u << 20, 12);
  TestServer server([&payload](ServerConnection& conn) {
    if (conn.read_request()) conn.write_slowly(test::http_response(200, payload), 256 * 1024, 5ms);
  });
  auto client = test::make_client();
  Collector collector;
  {
    auto response = client.fetch(Request::get(server.url("/")));
    ASSERT_TRUE(response.ok());
    collector.attach(response->body);
  }  // the Response and its BodyReader are gone; the callbacks own the stream
  ASSERT_TRUE(collector.wait_end());
  EXPECT_TRUE(collector.end->ok());
  EXPECT_EQ(test::sha256_hex(collector.bytes), test::sha256_hex(payload));
}

TEST(ClientCallbacks, DroppedPendingResponseFreesItsConnection) {
  std::mutex mu;
  std::condition_variable arrived_cv;
  std::set<std::string> arrived;  // targets the server read; guarded by mu
  TestServer server([&](ServerConnection& conn) {
    while (auto request = conn.read_request(5s)) {
      const bool big = request->target.starts_with("/big");
      {
        std::lock_guard lock(mu);
        arrived.insert(request->target);
      }
      arrived_cv.notify_all();
      if (!conn.write(test::http_response(200, big ? std::string(4u << 20, 'b') : "small"))) return;
    }
  });
  ClientOptions options;
  options.pool.max_connections_per_origin = 1;
  auto client = test::make_client(options);
  // Each handle is dropped at another point of its request's life, chosen by an
  // event: at once (the request may not have left yet), once the server holds the
  // request, and once the 4 MiB response is held at its mark. None may keep the only
  // connection.
  enum class DropAt { at_once, request_arrived, response_held };
  int i = 0;
  for (DropAt drop_at : {DropAt::at_once, DropAt::request_arrived, DropAt::response_held}) {
    const std::string target = "/big/" + std::to_string(i++);
    auto ignored = client.send(Request::get(server.url(target)));
    if (drop_at == DropAt::request_arrived) {
      std::unique_lock lock(mu);
      ASSERT_TRUE(arrived_cv.wait_for(lock, 30s, [&] { return arrived.contains(target); }))
          << target << " never reached the server";
    } else if (drop_at == DropAt::response_held) {
      // Alone in flight (the handles dropped before are gone) and paused.
      ASSERT_TRUE(test::eventually([&] {
        const ClientStats stats = client.stats();
        return stats.in_flight == 1 && stats.paused_receivers == 1;
      })) << target
          << " was never held at its mark";
    }
  }
  auto pending = client.send(Request::get(server.url("/small")));
  auto response = pending.wait_for(5s);
  ASSERT_TRUE(response.has_value()) << "the connection stayed held by a dropped response";
  ASSERT_TRUE(response->ok()) << response->error().message();
  EXPECT_EQ(*(*response)->body.read_all(), "small");
}

// The reader learns of a pause inside on_data and resumes from its own thread; that
// resume can land before the HTTP thread has recorded the pause (on_data has decided
// to return false but not returned yet). It must not be lost: delivery goes on.
TEST(ClientCallbacks, ResumeThatLandsBeforeOnDataReturnsFalseIsNotLost) {
  const std::string payload = test::pseudo_random_bytes(1u << 20, 21);
  // Declared before the Client: its callbacks may still run while it shuts down.
  std::mutex mu;
  std::condition_variable changed;
  bool pause_decided = false;
  bool resumed = false;
  std::string bytes;
  std::optional<Result<void>> end;
  TestServer server([&payload](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, payload));
  });
  auto client = test::make_client();
  Request request = Request::get(server.url("/"));
  request.allowance = {64 * 1024, 64 * 1024};
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();

  std::promise<CallbackBody> handed;
  std::thread resumer([&, handle = handed.get_future()]() mutable {
    if (handle.wait_for(10s) != std::future_status::ready) return;
    CallbackBody callbacks = handle.get();
    std::unique_lock lock(mu);
    if (!changed.wait_for(lock, 10s, [&] { return pause_decided; })) return;
    lock.unlock();
    callbacks.resume();  // the reader's own thread, while on_data still runs
    lock.lock();
    resumed = true;
    changed.notify_all();
  });
  handed.set_value(std::move(response->body)
                       .on_data(
                           [&](std::span<const std::byte> piece) {
                             std::unique_lock lock(mu);
                             bytes.append(reinterpret_cast<const char*>(piece.data()),
                                          piece.size());
                             if (pause_decided) return true;
                             // The first piece pauses; on_data returns only after the resume went out.
                             pause_decided = true;
                             changed.notify_all();
                             changed.wait_for(lock, 10s, [&] { return resumed; });
                             return false;
                           },
                           [&](Result<void> status) {
                             std::lock_guard lock(mu);
                             end.emplace(std::move(status));
                             changed.notify_all();
                           }));
  std::unique_lock lock(mu);
  const bool ended = changed.wait_for(lock, 10s, [&] { return end.has_value(); });
  const std::size_t got = bytes.size();
  lock.unlock();
  resumer.join();
  ASSERT_TRUE(ended) << "delivery stalled after " << got << " bytes: the resume was lost";
  EXPECT_TRUE(end->ok());
  EXPECT_EQ(test::sha256_hex(bytes), test::sha256_hex(payload));
}

// The choices are the types': then() and on_data() take an rvalue, so a
// PendingResponse cannot be both waited on and given a callback, nor a body both read
// and handed to callbacks, without a visible std::move.
template <class Pending>
concept ThenOnAnLvalue = requires(Pending& pending) {
  pending.then([](Result<Response>) {});
};
template <class Pending>
concept ThenOnAnRvalue = requires(Pending& pending) {
  std::move(pending).then([](Result<Response>) {});
};
template <class Body>
concept OnDataOnAnLvalue = requires(Body& body) {
  body.on_data([](std::span<const std::byte>) { return true; }, [](Result<void>) {});
};
template <class Body>
concept OnDataOnAnRvalue = requires(Body& body) {
  std::move(body).on_data([](std::span<const std::byte>) { return true; }, [](Result<void>) {});
};
static_assert(!ThenOnAnLvalue<PendingResponse> && ThenOnAnRvalue<PendingResponse>);
static_assert(!OnDataOnAnLvalue<BodyReader> && OnDataOnAnRvalue<BodyReader>);

// then() runs its callback on the HTTP thread whichever way the response was
// decided: here at once, in send() (a URL that cannot be parsed), before then() was
// called. The HTTP thread is held, so the callback can only run once it is released,
// and never on the caller's thread.
TEST(ClientCallbacks, ThenForAnAlreadyDecidedResponseRunsOnTheHttpThread) {
  auto client = test::make_client();
  PendingResponse pending = client.send(Request::get("not a url"));
  std::promise<std::thread::id> ran_on;
  test::HttpThreadHold hold(client);
  ASSERT_TRUE(hold.held());
  RequestHandle handle = std::move(pending).then([&ran_on](Result<Response> response) {
    EXPECT_FALSE(response.ok());
    ran_on.set_value(std::this_thread::get_id());
  });
  auto thread = ran_on.get_future();
  EXPECT_EQ(thread.wait_for(0ms), std::future_status::timeout)
      << "the callback ran on the caller's thread, not the (held) HTTP thread";
  hold.release();
  ASSERT_EQ(thread.wait_for(10s), std::future_status::ready);
  EXPECT_NE(thread.get(), std::this_thread::get_id());
  EXPECT_EQ(pending.wait().error().category(), ErrorCategory::usage)
      << "then() consumed the PendingResponse: nothing is left to wait for";
}

TEST(ClientCallbacks, TheHandleThatThenReturnsCancelsTheRequest) {
  std::promise<void> request_arrived;
  TestServer server([&request_arrived](ServerConnection& conn) {
    if (conn.read_request()) request_arrived.set_value();
    conn.wait_peer_closed(10s);
  });
  auto client = test::make_client();
  std::promise<Result<Response>> outcome;
  RequestHandle handle =
      client.send(Request::get(server.url("/"))).then([&outcome](Result<Response> response) {
        outcome.set_value(std::move(response));
      });
  ASSERT_EQ(request_arrived.get_future().wait_for(10s), std::future_status::ready);
  handle.cancel();
  auto result = outcome.get_future();
  ASSERT_EQ(result.wait_for(10s), std::future_status::ready) << "the cancel never reached it";
  auto response = result.get();
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::cancelled);
}

// on_data consumes the reader: the body is read one way, never both.
TEST(ClientCallbacks, CallbackModeConsumesTheReader) {
  TestServer server([](ServerConnection& conn) {
    if (conn.read_request()) conn.write(test::http_response(200, "short"));
  });
  auto client = test::make_client();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok());
  Collector collector;
  collector.attach(response->body);
  EXPECT_FALSE(response->body.valid());
  std::vector<std::byte> into(16);
  auto read = response->body.read(into);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().category(), ErrorCategory::usage);
  ASSERT_TRUE(collector.wait_end());
  EXPECT_EQ(collector.bytes, "short");

  Collector second;  // callbacks on a consumed reader end at once, as a usage error
  second.attach(response->body);
  ASSERT_TRUE(second.wait_end());
  ASSERT_FALSE(second.end->ok());
  EXPECT_EQ(second.end->error().category(), ErrorCategory::usage);
}

}  // namespace
}  // namespace sluice
