// The C API's calls around one exchange that the other C API tests leave out: waiting
// for a head with a timeout, borrowing body bytes with a timeout and giving them back,
// reading trailers, sending a file as the body, and the trace callback. A scripted
// server (tests/support/test_server.hpp) holds its answer until the test has seen
// the "would block", so no step depends on timing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/sluice.h"
#include "support/capi_calls.hpp"
#include "support/capi_handles.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using test::ClientHandle;
using test::describe;
using test::PendingHandle;
using test::RequestHandle;
using test::ResponseHandle;
using test::ServerConnection;
using test::TestServer;

// A server that answers each request in two writes, the second only once the test
// opened it (after checking what the client does with the first). A test that fails
// before opening does not hang: the handler gives up waiting after 30 s. Test thread;
// the handler runs on the server's.
class TwoPartServer {
 public:
  TwoPartServer(std::string first, std::string second)
      : opened_(gate_.get_future().share()),
        server_([first, second, opened = opened_](ServerConnection& conn) {
          if (!conn.read_request()) return;
          if (!first.empty()) conn.write(first);
          opened.wait_for(std::chrono::seconds(30));
          conn.write(second);
        }) {}
  void open() { gate_.set_value(); }
  std::string url(std::string_view path) const { return server_.url(path); }

 private:
  std::promise<void> gate_;
  std::shared_future<void> opened_;
  TestServer server_;  // last: stopped (its handlers joined) before the gate goes
};

// Trace lines as the HTTP thread hands them over; read after the exchange ended.
struct TraceLines {
  std::mutex mu;
  std::vector<std::string> lines;  // guarded by mu
};

void on_trace(void* user_data, const char* line, size_t len) {
  auto* trace = static_cast<TraceLines*>(user_data);
  std::lock_guard lock(trace->mu);
  trace->lines.emplace_back(line, len);
}

class CapiExchange : public ::testing::Test {
 protected:
  void SetUp() override {
    sluice_client_options* options = nullptr;
    ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
    ASSERT_EQ(sluice_client_options_set_trace(options, on_trace, &trace_), SLUICE_OK);
    const sluice_code made = sluice_client_new(options, &client_.get);
    sluice_client_options_free(options);
    ASSERT_EQ(made, SLUICE_OK) << describe(made);
  }

  static RequestHandle request(const char* method, const std::string& url) {
    RequestHandle request;
    EXPECT_EQ(sluice_request_new(method, std::strlen(method), url.data(), url.size(), &request.get),
              SLUICE_OK);
    return request;
  }

  TraceLines trace_;
  ClientHandle client_;
};

TEST_F(CapiExchange, WaitTimeoutSaysWouldBlockUntilTheHeadArrives) {
  TwoPartServer server("", test::http_response(200, "held"));
  RequestHandle get = request("GET", server.url("/held"));
  PendingHandle pending;
  ASSERT_EQ(sluice_client_send(client_.get, get.get, &pending.get), SLUICE_OK);
  ResponseHandle response;
  EXPECT_EQ(sluice_pending_wait_timeout(pending.get, 0, &response.get), SLUICE_WOULD_BLOCK);
  EXPECT_EQ(response.get, nullptr);
  EXPECT_EQ(sluice_pending_wait_timeout(pending.get, 20, &response.get), SLUICE_WOULD_BLOCK);
  server.open();
  const sluice_code code = sluice_pending_wait_timeout(pending.get, 30'000, &response.get);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_EQ(sluice_response_status(response.get), 200);
  EXPECT_EQ(test::read_body(response.get), "held");
  sluice_response* again = nullptr;
  EXPECT_EQ(sluice_pending_wait_timeout(pending.get, 0, &again), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sluice_last_error()).find("already answered"), std::string::npos)
      << sluice_last_error();
}

// Borrows pieces of at most `max` bytes until `want` bytes came (TCP may split what
// the server wrote in one go); each piece is given back before the next is taken.
std::string borrow(sluice_response* response, size_t max, size_t want) {
  std::string taken;
  while (taken.size() < want) {
    const uint8_t* data = nullptr;
    size_t len = 0;
    const sluice_code code = sluice_response_next_timeout(response, max, 30'000, &data, &len);
    EXPECT_EQ(code, SLUICE_OK) << describe(code);
    if (code != SLUICE_OK || len == 0) break;
    EXPECT_LE(len, max) << "more than `max` lent";
    taken.append(reinterpret_cast<const char*>(data), len);
    EXPECT_EQ(sluice_response_release(response), SLUICE_OK);
  }
  return taken;
}

TEST_F(CapiExchange, NextTimeoutLendsWhatArrivedAndReleaseGivesItBack) {
  TwoPartServer server("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst", "-last");
  RequestHandle get = request("GET", server.url("/halves"));
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, get.get, &response.get), SLUICE_OK)
      << sluice_last_error();
  EXPECT_EQ(borrow(response.get, 64, 5), "first");
  const uint8_t* data = nullptr;
  size_t len = 0;
  EXPECT_EQ(sluice_response_next_timeout(response.get, 0, 0, &data, &len), SLUICE_WOULD_BLOCK)
      << "the second half is held by the server";
  server.open();
  EXPECT_EQ(borrow(response.get, 3, 5), "-last");
  ASSERT_EQ(sluice_response_next_timeout(response.get, 0, 30'000, &data, &len), SLUICE_OK);
  EXPECT_EQ(len, 0u) << "the end";
  EXPECT_EQ(sluice_response_bytes_read(response.get), 10u);
  EXPECT_EQ(sluice_response_release(nullptr), SLUICE_E_INVALID_ARGUMENT);
}

TEST_F(CapiExchange, TrailersAreReadableOnceTheBodyEnded) {
  TestServer server([](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: x-checksum, x-count\r\n\r\n"
        "4\r\nbody\r\n0\r\nx-checksum: abc123\r\nx-count: 4\r\n\r\n");
  });
  RequestHandle get = request("GET", server.url("/trailers"));
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, get.get, &response.get), SLUICE_OK)
      << sluice_last_error();
  EXPECT_EQ(test::read_body(response.get), "body");
  ASSERT_EQ(sluice_response_trailer_count(response.get), 2u);
  std::vector<std::string> fields;
  for (size_t i = 0; i < 2; ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    size_t name_len = 0;
    size_t value_len = 0;
    ASSERT_EQ(sluice_response_trailer(response.get, i, &name, &name_len, &value, &value_len),
              SLUICE_OK);
    fields.push_back(std::string(name, name_len) + "=" + std::string(value, value_len));
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"x-checksum=abc123", "x-count=4"}));
  const char* name = nullptr;
  const char* value = nullptr;
  size_t name_len = 0;
  size_t value_len = 0;
  EXPECT_EQ(sluice_response_trailer(response.get, 2, &name, &name_len, &value, &value_len),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_NE(std::string(sluice_last_error()).find("past the last trailer"), std::string::npos);
  EXPECT_EQ(sluice_response_trailer(response.get, 0, nullptr, &name_len, &value, &value_len),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_trailer_count(nullptr), 0u);
}

// A body past the request's limit fails the read with SLUICE_E_BODY_TOO_LARGE once
// the limit is passed, the bytes before it delivered; a body within it reads whole.
TEST_F(CapiExchange, ABodyPastTheMaxBodySizeFailsTheReadSayingSo) {
  TestServer server([](ServerConnection& conn) {
    while (conn.read_request()) conn.write(test::http_response(200, std::string(5000, 'x')));
  });
  RequestHandle limited = request("GET", server.url("/big"));
  ASSERT_EQ(sluice_request_set_max_body_size(limited.get, 1000), SLUICE_OK);
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, limited.get, &response.get), SLUICE_OK)
      << sluice_last_error();
  char buffer[10000];
  sluice_code code = SLUICE_OK;
  std::size_t total = 0;
  for (;;) {
    std::size_t n = 0;
    code = sluice_response_read(response.get, buffer, sizeof buffer, &n);
    if (code != SLUICE_OK || n == 0) break;
    total += n;
  }
  EXPECT_EQ(code, SLUICE_E_BODY_TOO_LARGE) << describe(code);
  EXPECT_NE(std::string(sluice_last_error()).find("1000 bytes"), std::string::npos)
      << sluice_last_error();
  EXPECT_LE(total, 5000u);

  RequestHandle roomy = request("GET", server.url("/big"));
  ASSERT_EQ(sluice_request_set_max_body_size(roomy.get, 5000), SLUICE_OK);
  ResponseHandle whole;
  ASSERT_EQ(sluice_client_fetch(client_.get, roomy.get, &whole.get), SLUICE_OK);
  EXPECT_EQ(test::read_body(whole.get).size(), 5000u);
  EXPECT_EQ(sluice_request_set_max_body_size(nullptr, 1), SLUICE_E_INVALID_ARGUMENT);
}

TEST_F(CapiExchange, AFileBodyIsSentWholeAndTheTraceNamesTheServer) {
  const std::string path = ::testing::TempDir() + "capi_exchange_body.bin";
  const std::string content = test::pseudo_random_bytes(300'000, 7);
  std::ofstream(path, std::ios::binary) << content;
  std::promise<std::string> received;
  TestServer server([&received](ServerConnection& conn) {
    auto request = conn.read_request();
    received.set_value(request ? request->body : "<no request>");
    conn.write(test::http_response(201, ""));
  });
  RequestHandle put = request("PUT", server.url("/upload"));
  ASSERT_EQ(sluice_request_set_body_file(put.get, path.data(), path.size()), SLUICE_OK)
      << sluice_last_error();
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, put.get, &response.get), SLUICE_OK)
      << sluice_last_error();
  EXPECT_EQ(sluice_response_status(response.get), 201);
  const std::string body = received.get_future().get();
  EXPECT_EQ(body.size(), content.size());
  EXPECT_TRUE(body == content) << "the file arrived changed";
  std::remove(path.c_str());

  EXPECT_EQ(sluice_request_set_body_file(put.get, "", 0), SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_request_set_body_file(put.get, "a\0b", 3), SLUICE_E_INVALID_ARGUMENT);

  const std::string port = std::to_string(server.port());
  std::lock_guard lock(trace_.mu);
  bool names_server = false;
  for (const std::string& line : trace_.lines) {
    names_server = names_server || line.find(port) != std::string::npos;
  }
  EXPECT_TRUE(names_server) << trace_.lines.size() << " trace lines, none names port " << port;
}

TEST_F(CapiExchange, AMissingFileBodyFailsTheFetchNamingTheFile) {
  TestServer server([](ServerConnection& conn) {
    if (conn.read_request_head()) conn.write(test::http_response(200, ""));
  });
  const std::string path = ::testing::TempDir() + "capi_exchange_no_such_file.bin";
  std::remove(path.c_str());
  RequestHandle put = request("PUT", server.url("/upload"));
  ASSERT_EQ(sluice_request_set_body_file(put.get, path.data(), path.size()), SLUICE_OK);
  ResponseHandle response;
  const sluice_code code = sluice_client_fetch(client_.get, put.get, &response.get);
  EXPECT_EQ(code, SLUICE_E_IO) << describe(code);
  EXPECT_NE(std::string(sluice_last_error()).find(path), std::string::npos) << sluice_last_error();
}

}  // namespace
}  // namespace sluice
