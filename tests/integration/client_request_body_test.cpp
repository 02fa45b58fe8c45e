// Request bodies: owned bytes, files from the file pool, and producer streams that
// wait above their mark.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <thread>

#include "client/client_access.hpp"
#include "client/client_core.hpp"
#include "sluice/sluice.hpp"
#include "support/http_thread_hold.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::http_response;
using test::ServerConnection;
using test::TestServer;

std::span<const std::byte> as_bytes_for_test(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// Replies with the method, framing and SHA-256 of what it received.
TestServer echo_digest_server() {
  return TestServer([](ServerConnection& conn) {
    while (auto request = conn.read_request(30s)) {
      const std::string framing =
          request->chunked ? "chunked"
                           : std::string(request->headers.get("content-length").value_or("none"));
      if (!conn.write(http_response(
              200, request->method + " " + framing + " " + test::sha256_hex(request->body)))) {
        return;
      }
    }
  });
}

TEST(ClientRequestBody, OwnedBytesGoWithContentLength) {
  auto server = echo_digest_server();
  auto client = test::make_client();
  const std::string payload = test::pseudo_random_bytes(3 << 20, 3);
  Request request = Request::get(server.url("/upload"));
  request.method = "POST";
  request.body = BytesBody{payload};
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(),
            "POST " + std::to_string(payload.size()) + " " + test::sha256_hex(payload));
}

TEST(ClientRequestBody, FileBodyIsStreamedFromTheFilePool) {
  auto server = echo_digest_server();
  auto client = test::make_client();
  const std::string payload = test::pseudo_random_bytes((5 << 20) + 123, 4);
  const std::string path = ::testing::TempDir() + "/sluice_upload.bin";
  { std::ofstream(path, std::ios::binary) << payload; }
  Request request = Request::get(server.url("/file"));
  request.method = "PUT";
  request.body = FileBody{path};
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(),
            "PUT " + std::to_string(payload.size()) + " " + test::sha256_hex(payload));
  std::remove(path.c_str());
}

TEST(ClientRequestBody, MissingFileFailsAtOnceWithItsName) {
  auto client = test::make_client();
  Request request = Request::get("http://127.0.0.1:9/");
  request.method = "PUT";
  request.body = FileBody{"/nonexistent/upload.bin"};
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::io);
  EXPECT_NE(response.error().message().find("/nonexistent/upload.bin"), std::string::npos);
}

TEST(ClientRequestBody, StreamWithoutLengthIsChunked) {
  auto server = echo_digest_server();
  auto client = test::make_client();
  auto writer = BodyWriter::create(64 * 1024);
  Request request = Request::get(server.url("/stream"));
  request.method = "POST";
  request.body = StreamBody{writer, std::nullopt};
  auto pending = client.send(request);
  std::string sent;
  for (int i = 0; i < 100; ++i) {
    const std::string piece = test::pseudo_random_bytes(10000 + i, i);
    ASSERT_TRUE(writer->write(piece).ok());
    sent += piece;
  }
  writer->close();
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "POST chunked " + test::sha256_hex(sent));
}

TEST(ClientRequestBody, StreamWithLengthUsesContentLength) {
  auto server = echo_digest_server();
  auto client = test::make_client();
  auto writer = BodyWriter::create();
  Request request = Request::get(server.url("/stream"));
  request.method = "PUT";
  request.body = StreamBody{writer, 11};
  auto pending = client.send(request);
  ASSERT_TRUE(writer->write("hello ").ok());
  ASSERT_TRUE(writer->write("world").ok());
  writer->close();
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().message();
  EXPECT_EQ(*response->body.read_all(), "PUT 11 " + test::sha256_hex("hello world"));
}

TEST(ClientRequestBody, FastProducerWaitsForASlowServer) {
  // The server reads nothing of the body until the test has seen the producer held.
  std::promise<void> may_read;
  std::atomic<bool> server_reading{false};
  TestServer server([&, go = may_read.get_future().share()](ServerConnection& conn) {
    auto head = conn.read_request_head();
    ASSERT_TRUE(head);
    (void)go.wait_for(30s);  // a server that does not read yet
    server_reading = true;
    auto rest = conn.read_some(1 << 20, 5s);
    (void)rest;
    conn.write(http_response(200, "enough"));
    conn.close();
  });
  auto client = test::make_client();
  auto writer = BodyWriter::create(64 * 1024);
  Request request = Request::get(server.url("/slow-upload"));
  request.method = "POST";
  request.body = StreamBody{writer, std::nullopt};
  auto pending = client.send(request);
  // With the server not reading, the producer must be held back: far less than the
  // 256 MiB it offers gets written before write_for times out.
  const std::string piece(1 << 20, 'p');
  std::size_t accepted = 0;
  for (int i = 0; i < 256; ++i) {
    auto wrote = writer->write_for(as_bytes_for_test(piece), 300ms);
    if (!wrote.ok() || !*wrote) break;
    accepted += piece.size();
  }
  EXPECT_FALSE(server_reading.load());
  EXPECT_LT(accepted, std::size_t{64} << 20) << "the producer was never made to wait";
  may_read.set_value();
  writer->abort("test done");
  pending.cancel();
}

// fetch's duplex: "half": the response head and the start of its body may arrive
// while the request body is still streaming (an echo, a transcoder). The server
// answers after the first piece and keeps its response open; the client must hand
// over the response then, keep sending the rest, which the server reads whole, and
// then get the end of the response.
TEST(ClientRequestBody, TheResponseMayArriveWhileTheBodyIsStillStreaming) {
  std::promise<std::string> rest_received;
  TestServer server([&](ServerConnection& conn) {
    auto head = conn.read_request_head();
    if (!head) return;
    std::string got = conn.read_some(5);  // the first piece, in its chunk framing
    conn.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nearly\r\n");
    while (got.find("0\r\n\r\n") == std::string::npos) {  // the rest, to the last chunk
      const std::string more = conn.read_some(4096);
      if (more.empty()) break;
      got += more;
    }
    rest_received.set_value(got);
    conn.write("4\r\nlate\r\n0\r\n\r\n");
  });
  auto client = test::make_client();
  auto writer = BodyWriter::create();
  Request request = Request::get(server.url("/duplex"));
  request.method = "POST";
  request.body = StreamBody{writer, std::nullopt};
  PendingResponse pending = client.send(request);
  ASSERT_TRUE(writer->write("first").ok());
  auto response = pending.wait_for(30s);
  ASSERT_TRUE(response.has_value()) << "the head waited for the request body to end";
  ASSERT_TRUE(response->ok()) << response->error().describe();
  std::byte piece[16];
  auto early = (*response)->body.read(piece);
  ASSERT_TRUE(early.ok()) << early.error().describe();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(piece), *early), "early");
  ASSERT_TRUE(writer->write("second").ok()) << "the upload stopped when the response began";
  writer->close();
  auto got = rest_received.get_future();
  ASSERT_EQ(got.wait_for(30s), std::future_status::ready) << "the rest of the body never came";
  EXPECT_NE(got.get().find("second"), std::string::npos) << "the rest was not sent";
  EXPECT_EQ(*(*response)->body.read_all(), "late");
}

// A server for the upload budget's tests: it reads each request body at a trickle
// (16 KiB per 5 ms) until `go`, or not at all with `stalled`, then at full speed,
// and answers with the body's size and SHA-256.
TestServer upload_budget_server(std::shared_future<void> go, bool stalled) {
  return TestServer([go, stalled](ServerConnection& conn) {
    auto head = conn.read_request_head(30s);
    if (!head) return;
    const std::size_t length =
        std::stoul(std::string(head->headers.get("content-length").value_or("0")));
    std::string body;
    while (body.size() < length && go.wait_for(stalled ? 30s : 5ms) != std::future_status::ready) {
      if (!stalled)
        body += conn.read_some(std::min<std::size_t>(16 * 1024, length - body.size()), 1s);
    }
    while (body.size() < length) {
      std::string more = conn.read_some(length - body.size(), 30s);
      if (more.empty()) return;
      body += more;
    }
    conn.write(http_response(200, std::to_string(body.size()) + " " + test::sha256_hex(body)));
  });
}

Request post_owned(const TestServer& server, std::string path, std::string body) {
  Request request = Request::get(server.url(path));
  request.method = "POST";
  request.body = BytesBody{std::move(body)};
  return request;
}

// ClientOptions::memory.owned_upload_budget: a send whose owned body would pass the bound
// waits, on its caller's thread, until the transports took whole the bodies before
// it. Here the server trickles until told, and the first body (32 MiB, more than
// loopback's socket buffers take) goes alone, being larger than the whole bound.
TEST(ClientRequestBody, ASendOverTheUploadBudgetWaitsUntilTheBodiesBeforeItWereTaken) {
  std::promise<void> go;
  TestServer server = upload_budget_server(go.get_future().share(), false);
  ClientOptions options;
  options.memory.owned_upload_budget = 1u << 20;
  auto client = test::make_client(options);
  // Whether a trickle moves the body within a real second is the kernel's and the
  // scheduler's business: here only the body's being taken ends the wait.
  ClientAccess::core(client).upload_budget()->set_stall_window(std::chrono::hours(1));
  const std::string large = test::pseudo_random_bytes(32u << 20, 7);
  PendingResponse first = client.send(post_owned(server, "/large", large));
  std::atomic<bool> sent{false};
  std::optional<PendingResponse> second;
  std::thread sender([&] {
    second.emplace(client.send(post_owned(server, "/small", "a small body")));
    sent = true;
  });
  // owned_upload_waits moves before the sender sleeps: from then on it waits (the
  // wait is a hang guard: a send that never waits fails here, not by a timeout).
  const bool waited = test::eventually([&] { return client.stats().owned_upload_waits != 0; });
  const ClientStats waiting = client.stats();
  const bool sent_while_waiting = sent.load();
  go.set_value();
  sender.join();
  ASSERT_TRUE(waited) << "the second send never waited; " << waiting.owned_upload_bytes
                      << " owned bytes held";
  EXPECT_FALSE(sent_while_waiting) << "the second send went past the budget";
  EXPECT_GE(waiting.owned_upload_bytes, large.size()) << "the large body was taken already";
  ASSERT_TRUE(second.has_value());
  auto small_response = second->wait();
  ASSERT_TRUE(small_response.ok()) << small_response.error().describe();
  EXPECT_EQ(*small_response->body.read_all(), "12 " + test::sha256_hex("a small body"));
  auto large_response = first.wait();
  ASSERT_TRUE(large_response.ok()) << large_response.error().describe();
  EXPECT_EQ(*large_response->body.read_all(),
            std::to_string(large.size()) + " " + test::sha256_hex(large));
  EXPECT_EQ(client.stats().owned_upload_bytes, 0u);
  EXPECT_EQ(client.stats().owned_upload_waits, 1u);
}

// A wait for bodies that do not move at all could be a wait forever (the server
// reads no more until its answer is read, and the caller reads answers only after
// its sends): once the HTTP thread saw nothing taken for kUploadStall, the send goes on.
TEST(ClientRequestBody, ASendGoesOnWhenTheBodiesItWaitsForStopMoving) {
  std::promise<void> go;
  TestServer server = upload_budget_server(go.get_future().share(), true);
  ClientOptions options;
  options.memory.owned_upload_budget = 1u << 20;
  auto client = test::make_client(options);
  const std::string large = test::pseudo_random_bytes(32u << 20, 8);
  PendingResponse first = client.send(post_owned(server, "/large", large));
  PendingResponse second = client.send(post_owned(server, "/small", "small"));  // returns
  EXPECT_EQ(client.stats().owned_upload_waits, 1u);
  go.set_value();
  auto small_response = second.wait();
  ASSERT_TRUE(small_response.ok()) << small_response.error().describe();
  EXPECT_EQ(*small_response->body.read_all(), "5 " + test::sha256_hex("small"));
  auto large_response = first.wait();
  ASSERT_TRUE(large_response.ok()) << large_response.error().describe();
  EXPECT_EQ(*large_response->body.read_all(),
            std::to_string(large.size()) + " " + test::sha256_hex(large));
}

// The stall that lets sends past the budget is the HTTP thread's finding, after its
// turn's socket events: a sender cannot time it. Here the HTTP thread is held (as a
// loaded machine keeps it off the CPU) while windows of 1 ms pass many times over;
// the send over the budget waits through all of them, and goes once the thread runs
// again and the transports take the bodies.
TEST(ClientRequestBody, AStarvedHttpThreadNeverLetsSendsPastTheUploadBudget) {
  TestServer server = echo_digest_server();
  ClientOptions options;
  options.memory.owned_upload_budget = 1u << 20;
  auto client = test::make_client(options);
  // Client::stats() asks the HTTP thread, which is held: the budget answers itself.
  UploadBudget& budget = *ClientAccess::core(client).upload_budget();
  budget.set_stall_window(std::chrono::milliseconds(1));
  const std::string body = test::pseudo_random_bytes(600u << 10, 11);
  test::HttpThreadHold hold(client);
  ASSERT_TRUE(hold.held());
  PendingResponse first = client.send(post_owned(server, "/first", body));
  std::atomic<bool> sent{false};
  std::optional<PendingResponse> second;
  std::thread sender([&] {
    second.emplace(client.send(post_owned(server, "/second", body)));
    sent = true;
  });
  const bool waited = test::eventually([&] { return budget.waits() != 0; });
  // The negative cannot be an event: look for a while, hundreds of windows long.
  const bool went_past = test::eventually([&] { return sent.load(); }, 300ms);
  const std::size_t held_while_starved = budget.held();
  hold.release();
  sender.join();
  ASSERT_TRUE(waited) << "the second send never waited";
  EXPECT_FALSE(went_past) << "the send went past the budget while the HTTP thread was held";
  EXPECT_EQ(held_while_starved, body.size());
  for (PendingResponse* pending : {&first, &*second}) {
    auto response = pending->wait();
    ASSERT_TRUE(response.ok()) << response.error().describe();
    EXPECT_EQ(*response->body.read_all(),
              "POST " + std::to_string(body.size()) + " " + test::sha256_hex(body));
  }
  EXPECT_EQ(client.stats().owned_upload_bytes, 0u);
}

// The owned parts of one multipart body are counted together: two 20 MiB fields
// under a 32 MiB budget go as one request larger than the budget, alone, instead of
// the second waiting for room that only the first holds.
TEST(ClientRequestBody, OwnedPartsOfOneBodyNeverWaitForEachOther) {
  TestServer server = echo_digest_server();
  ClientOptions options;
  options.memory.owned_upload_budget = 32u << 20;
  auto client = test::make_client(options);
  const std::string first = test::pseudo_random_bytes(20u << 20, 9);
  const std::string second = test::pseudo_random_bytes(20u << 20, 10);
  Request request = Request::get(server.url("/parts"));
  request.method = "POST";
  request.body = PartsBody{{BytesBody{first}, BytesBody{second}}};
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(*response->body.read_all(), "POST " + std::to_string(first.size() + second.size()) +
                                            " " + test::sha256_hex(first + second));
  EXPECT_EQ(client.stats().owned_upload_waits, 0u);
  EXPECT_EQ(client.stats().owned_upload_bytes, 0u);
}

}  // namespace
}  // namespace sluice
