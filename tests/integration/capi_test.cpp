// The C API against the real servers: the same Client underneath, so a fetch over
// each version returns the file byte for byte, a held body stops at its mark, a
// non-blocking read says "would block", cancel works from another thread, and
// failures come back as codes with messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "sluice/sluice.h"
#include "support/capi_calls.hpp"
#include "support/capi_handles.hpp"
#include "support/test_env.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

constexpr std::size_t kOneReceive = 64u << 10;

using test::ClientHandle;
using test::PendingHandle;
using test::RequestHandle;
using test::ResponseHandle;

using test::describe;

class Capi : public ::testing::Test {
 protected:
  void SetUp() override {
    sluice_client_options* options = nullptr;
    ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
    const std::string ca = env_.get("SLUICE_TEST_CA");
    ASSERT_EQ(sluice_client_options_set_ca_file(options, ca.data(), ca.size()), SLUICE_OK);
    const sluice_code made = sluice_client_new(options, &client_.get);
    sluice_client_options_free(options);
    ASSERT_EQ(made, SLUICE_OK) << describe(made);
  }

  static RequestHandle get(const std::string& url) {
    RequestHandle request;
    EXPECT_EQ(sluice_request_new("GET", 3, url.data(), url.size(), &request.get), SLUICE_OK);
    return request;
  }

  sluice_client_stats stats() {
    sluice_client_stats out{};
    EXPECT_EQ(sluice_client_get_stats(client_.get, &out, sizeof out), SLUICE_OK);
    return out;
  }

  test::TestEnv env_;
  ClientHandle client_;
};

struct Served {
  const char* url_key;
  sluice_version_policy policy;
  int http_version;
};

TEST_F(Capi, FetchesAFileByteForByteOverEachVersion) {
  const Served servers[] = {
      {"SLUICE_NGINX_HTTP_URL", SLUICE_VERSION_AUTOMATIC, 11},
      {"SLUICE_NGINX_H2_URL", SLUICE_VERSION_HTTP2, 20},
      {"SLUICE_NGHTTPD_H2C_URL", SLUICE_VERSION_HTTP2_PRIOR_KNOWLEDGE, 20},
      {"SLUICE_GTLSSERVER_URL", SLUICE_VERSION_HTTP3_ONLY, 30},
  };
  for (const Served& served : servers) {
    SCOPED_TRACE(served.url_key);
    RequestHandle request = get(env_.get(served.url_key) + "/1m.bin");
    ASSERT_EQ(sluice_request_set_version(request.get, served.policy), SLUICE_OK);
    ResponseHandle response;
    const sluice_code code = sluice_client_fetch(client_.get, request.get, &response.get);
    ASSERT_EQ(code, SLUICE_OK) << describe(code);
    EXPECT_EQ(sluice_response_status(response.get), 200);
    EXPECT_EQ(sluice_response_http_version(response.get), served.http_version);
    const char* length = nullptr;
    size_t length_len = 0;
    ASSERT_EQ(sluice_response_header_get(response.get, "content-length", 14, &length, &length_len),
              SLUICE_OK);
    ASSERT_NE(length, nullptr) << "no Content-Length header";
    EXPECT_EQ(std::string(length, length_len), "1048576");
    EXPECT_EQ(test::sha256_hex(test::read_body(response.get)), env_.sha256_of("1m.bin"));
  }
}

// Nanoseconds from the start to `step`, or -1 for a step that did not happen.
int64_t step_ns(sluice_response* response, sluice_timing_step step) {
  int64_t ns = -2;
  EXPECT_EQ(sluice_response_timing(response, step, &ns), SLUICE_OK) << sluice_last_error();
  return ns;
}

TEST_F(Capi, TimingAndRemoteAddressSayHowTheResponseCame) {
  const std::string url = env_.get("SLUICE_NGINX_HTTPS_URL") + "/1m.bin";
  RequestHandle first_request = get(url);
  ResponseHandle first;
  ASSERT_EQ(sluice_client_fetch(client_.get, first_request.get, &first.get), SLUICE_OK)
      << sluice_last_error();
  EXPECT_EQ(step_ns(first.get, SLUICE_TIMING_RESPONSE_END), -1) << "ended before it was read";
  EXPECT_EQ(test::sha256_hex(test::read_body(first.get)), env_.sha256_of("1m.bin"));
  EXPECT_EQ(sluice_response_connection_reused(first.get), 0);
  EXPECT_EQ(sluice_response_connects(first.get), 1);
  // A new TLS connection: every step happened, each no earlier than the one before.
  int64_t last = 0;
  for (int step = SLUICE_TIMING_FETCH_START; step <= SLUICE_TIMING_RESPONSE_END; ++step) {
    const int64_t at = step_ns(first.get, static_cast<sluice_timing_step>(step));
    EXPECT_GE(at, last) << "step " << step;
    last = at;
  }
  const char* ip = nullptr;
  size_t ip_len = 0;
  uint16_t port = 0;
  ASSERT_EQ(sluice_response_remote_address(first.get, &ip, &ip_len, &port), SLUICE_OK);
  EXPECT_EQ(std::string(ip, ip_len), "127.0.0.1");
  EXPECT_NE(url.find(":" + std::to_string(port) + "/"), std::string::npos) << port;

  RequestHandle second_request = get(url);
  ResponseHandle second;
  ASSERT_EQ(sluice_client_fetch(client_.get, second_request.get, &second.get), SLUICE_OK);
  EXPECT_EQ(sluice_response_connection_reused(second.get), 1);
  EXPECT_EQ(sluice_response_connects(second.get), 0);
  for (sluice_timing_step step : {SLUICE_TIMING_DNS_START, SLUICE_TIMING_CONNECT_END,
                                  SLUICE_TIMING_TLS_START, SLUICE_TIMING_TLS_END}) {
    EXPECT_EQ(step_ns(second.get, step), -1) << "a reused connection has no step " << step;
  }
  EXPECT_GE(step_ns(second.get, SLUICE_TIMING_RESPONSE_START),
            step_ns(second.get, SLUICE_TIMING_REQUEST_START));

  int64_t ns = 0;
  EXPECT_EQ(sluice_response_timing(nullptr, SLUICE_TIMING_DNS_START, &ns),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_timing(second.get, SLUICE_TIMING_DNS_START, nullptr),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_timing(second.get, static_cast<sluice_timing_step>(10), &ns),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_remote_address(second.get, &ip, nullptr, &port),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_response_connection_reused(nullptr), 0);
  EXPECT_EQ(sluice_response_connects(nullptr), 0);
}

TEST_F(Capi, TheBorrowingReadLendsEveryByteOnce) {
  RequestHandle request = get(env_.get("SLUICE_NGINX_HTTP_URL") + "/1m.bin");
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, request.get, &response.get), SLUICE_OK);
  std::string all;
  for (;;) {
    const uint8_t* data = nullptr;
    size_t len = 0;
    const sluice_code code = sluice_response_next(response.get, 4096, &data, &len);
    ASSERT_EQ(code, SLUICE_OK) << describe(code);
    if (len == 0) break;
    ASSERT_LE(len, 4096u);
    all.append(reinterpret_cast<const char*>(data), len);
  }
  EXPECT_EQ(test::sha256_hex(all), env_.sha256_of("1m.bin"));
  EXPECT_EQ(sluice_response_bytes_read(response.get), 1048576u);
  // Not encoded: as many bytes came from the server as were read.
  EXPECT_EQ(sluice_response_bytes_received(response.get), 1048576u);
}

TEST_F(Capi, HeadersKeepTheirOrderRepeatsAndNamesAsSent) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    std::string echoed;
    for (const auto& field : request->headers) {
      if (field.name.rfind("X-", 0) == 0) echoed += field.name + "=" + field.value + ";";
    }
    conn.write(test::http_response(
        200, echoed, {{"Set-Cookie", "a=1"}, {"X-Mixed-Case", "m"}, {"Set-Cookie", "b=2"}}));
  });
  RequestHandle request = get(server.url("/echo"));
  ASSERT_EQ(sluice_request_add_header(request.get, "X-One", 5, "1", 1), SLUICE_OK);
  ASSERT_EQ(sluice_request_add_header(request.get, "X-Two", 5, "2", 1), SLUICE_OK);
  ASSERT_EQ(sluice_request_add_header(request.get, "X-One", 5, "again", 5), SLUICE_OK);
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, request.get, &response.get), SLUICE_OK);
  EXPECT_EQ(test::read_body(response.get), "X-One=1;X-Two=2;X-One=again;");
  std::string cookies;
  bool mixed_case_seen = false;
  for (size_t i = 0; i < sluice_response_header_count(response.get); ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    size_t name_len = 0;
    size_t value_len = 0;
    ASSERT_EQ(sluice_response_header(response.get, i, &name, &name_len, &value, &value_len),
              SLUICE_OK);
    const std::string field(name, name_len);
    if (field == "Set-Cookie") cookies += std::string(value, value_len) + ";";
    if (field == "X-Mixed-Case") mixed_case_seen = true;
  }
  EXPECT_EQ(cookies, "a=1;b=2;");
  EXPECT_TRUE(mixed_case_seen) << "the header name did not come out as the server sent it";
  const char* name = nullptr;
  const char* value = nullptr;
  size_t name_len = 0;
  size_t value_len = 0;
  EXPECT_EQ(sluice_response_header(response.get, sluice_response_header_count(response.get), &name,
                                   &name_len, &value, &value_len),
            SLUICE_E_INVALID_ARGUMENT);
}

TEST_F(Capi, ANonBlockingReadSaysWouldBlockUntilBytesArrive) {
  std::promise<void> send_body;
  std::shared_future<void> go = send_body.get_future().share();
  TestServer server([go](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
    go.wait();
    conn.write("hello");
  });
  RequestHandle request = get(server.url("/later"));
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, request.get, &response.get), SLUICE_OK);
  char buffer[16];
  size_t n = 99;
  EXPECT_EQ(sluice_response_read_timeout(response.get, buffer, sizeof buffer, 0, &n),
            SLUICE_WOULD_BLOCK);
  EXPECT_EQ(n, 0u);
  send_body.set_value();
  ASSERT_EQ(sluice_response_read_timeout(response.get, buffer, sizeof buffer, 30000, &n),
            SLUICE_OK);
  EXPECT_EQ(std::string(buffer, n), "hello");
  ASSERT_EQ(sluice_response_read(response.get, buffer, sizeof buffer, &n), SLUICE_OK);
  EXPECT_EQ(n, 0u) << "the body did not end";
}

TEST_F(Capi, AHeldBodyStopsAtItsAllowance) {
  RequestHandle request = get(env_.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin");
  const size_t mark = 256u << 10;
  ASSERT_EQ(sluice_request_set_allowance(request.get, mark, mark), SLUICE_OK);
  ResponseHandle response;
  ASSERT_EQ(sluice_client_fetch(client_.get, request.get, &response.get), SLUICE_OK);
  ASSERT_TRUE(test::eventually([&] { return stats().paused_receivers == 1; }))
      << "the receiver never paused; buffered " << sluice_response_buffered(response.get);
  EXPECT_LE(sluice_response_buffered(response.get), mark + kOneReceive);
  EXPECT_GE(sluice_response_buffered(response.get), mark / 2);
  std::string all = test::read_body(response.get);
  EXPECT_EQ(test::sha256_hex(all), env_.sha256_of("64m.bin"));
}

TEST_F(Capi, CancelFromAnotherThreadFailsTheBodyWithCancelled) {
  RequestHandle request = get(env_.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin");
  PendingHandle pending;
  ASSERT_EQ(sluice_client_send(client_.get, request.get, &pending.get), SLUICE_OK);
  ResponseHandle response;
  ASSERT_EQ(sluice_pending_wait(pending.get, &response.get), SLUICE_OK);
  sluice_response* again = nullptr;
  EXPECT_EQ(sluice_pending_wait(pending.get, &again), SLUICE_E_INVALID_ARGUMENT)
      << "a second wait must be refused";
  EXPECT_EQ(again, nullptr);
  std::thread([&] {
    EXPECT_EQ(sluice_pending_cancel(pending.get, "user left", 9), SLUICE_OK);
  }).join();
  char buffer[65536];
  sluice_code code = SLUICE_OK;
  size_t total = 0;
  for (;;) {
    size_t n = 0;
    code = sluice_response_read(response.get, buffer, sizeof buffer, &n);
    if (code != SLUICE_OK || n == 0) break;
    total += n;
  }
  EXPECT_EQ(code, SLUICE_E_CANCELLED) << describe(code);
  EXPECT_NE(std::string(sluice_last_error()).find("request cancelled: user left"),
            std::string::npos)
      << "the reason is not in the message: " << sluice_last_error();
  EXPECT_LT(total, 64u << 20) << "the whole body arrived: nothing was cancelled";
}

TEST_F(Capi, FailuresComeBackAsCodesWithMessages) {
  RequestHandle bad = get("ftp://example.org/file");
  ResponseHandle response;
  sluice_code code = sluice_client_fetch(client_.get, bad.get, &response.get);
  EXPECT_EQ(code, SLUICE_E_BAD_URL) << describe(code);
  EXPECT_STREQ(sluice_category_name(code), "usage");
  EXPECT_NE(std::string(sluice_last_error()), "");
  EXPECT_EQ(response.get, nullptr);

  // A port nobody listens on: bind one, then close it.
  std::string refused_url;
  {
    TestServer closed([](ServerConnection&) {});
    refused_url = closed.url("/x");
  }
  RequestHandle refused = get(refused_url);
  code = sluice_client_fetch(client_.get, refused.get, &response.get);
  EXPECT_EQ(code, SLUICE_E_CONNECT) << describe(code);
  EXPECT_NE(std::string(sluice_last_error()).find("127.0.0.1"), std::string::npos)
      << "the message does not name the address: " << sluice_last_error();
}

TEST_F(Capi, AStreamedRequestBodyArrivesWhole) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    conn.write(test::http_response(200, test::sha256_hex(request->body)));
  });
  sluice_body_writer* writer = nullptr;
  ASSERT_EQ(sluice_body_writer_new(64u << 10, &writer), SLUICE_OK);
  const std::string url = server.url("/upload");
  RequestHandle request;
  ASSERT_EQ(sluice_request_new("POST", 4, url.data(), url.size(), &request.get), SLUICE_OK);
  const std::string body = test::pseudo_random_bytes(3u << 20);
  ASSERT_EQ(sluice_request_set_body_writer(request.get, writer, static_cast<int64_t>(body.size())),
            SLUICE_OK);
  PendingHandle pending;
  ASSERT_EQ(sluice_client_send(client_.get, request.get, &pending.get), SLUICE_OK);
  for (size_t at = 0; at < body.size(); at += 100000) {
    const size_t n = std::min<size_t>(100000, body.size() - at);
    const sluice_code code = sluice_body_writer_write(writer, body.data() + at, n);
    ASSERT_EQ(code, SLUICE_OK) << describe(code);
  }
  ASSERT_EQ(sluice_body_writer_close(writer), SLUICE_OK);
  sluice_body_writer_free(writer);
  ResponseHandle response;
  const sluice_code code = sluice_pending_wait(pending.get, &response.get);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_EQ(test::read_body(response.get), test::sha256_hex(body));
}

// A form built through the C API: the server gets multipart/form-data whose
// boundary is the one in Content-Type, the field, and the file's bytes whole.
TEST_F(Capi, AFormSendsItsFieldAndStreamsItsFile) {
  TestServer server([](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    conn.write(test::http_response(
        200,
        std::string(request->headers.get("content-type").value_or("none")) + "\n" + request->body));
  });
  const std::string payload = test::pseudo_random_bytes(700000, 5);
  const std::string path = ::testing::TempDir() + "/sluice_capi_form.bin";
  { std::ofstream(path, std::ios::binary) << payload; }
  const std::string url = server.url("/form");
  RequestHandle request;
  ASSERT_EQ(sluice_request_new("POST", 4, url.data(), url.size(), &request.get), SLUICE_OK);
  ASSERT_EQ(sluice_request_add_form_field(request.get, "title", 5, "hello", 5), SLUICE_OK);
  ASSERT_EQ(sluice_request_add_form_file(request.get, "upload", 6, path.data(), path.size(),
                                         "x.bin", 5, nullptr, 0),
            SLUICE_OK);
  ResponseHandle response;
  const sluice_code code = sluice_client_fetch(client_.get, request.get, &response.get);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  const std::string echoed = test::read_body(response.get);
  const std::string type = echoed.substr(0, echoed.find('\n'));
  const std::string body = echoed.substr(echoed.find('\n') + 1);
  const std::string prefix = "multipart/form-data; boundary=";
  ASSERT_EQ(type.rfind(prefix, 0), 0u) << type;
  const std::string boundary = type.substr(prefix.size());
  const std::string expected =
      "--" + boundary + "\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n" +
      "--" + boundary +
      "\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"x.bin\"\r\n" +
      "Content-Type: application/octet-stream\r\n\r\n" + payload + "\r\n--" + boundary + "--\r\n";
  EXPECT_TRUE(body == expected) << "the form arrived changed (" << body.size()
                                << " bytes, expected " << expected.size() << ")";
  std::remove(path.c_str());
}

// Host dispatch through the C API: a C event loop (here poll()) drives every
// callback on its own thread.
class CapiHostDispatch : public Capi {
 protected:
  void SetUp() override {
    sluice_client_options* options = nullptr;
    ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
    ASSERT_EQ(sluice_client_options_set_host_dispatch(options, 1), SLUICE_OK);
    const sluice_code made = sluice_client_new(options, &client_.get);
    sluice_client_options_free(options);
    ASSERT_EQ(made, SLUICE_OK) << describe(made);
    ASSERT_GE(sluice_client_dispatch_fd(client_.get), 0);
  }

  template <class Done>
  bool run_loop(Done done) {
    return test::run_dispatch(client_.get, done);
  }
};

// What the C callbacks below fill in, through their user_data.
struct Outcome {
  std::thread::id thread;
  bool answered = false;
  sluice_code code = SLUICE_OK;
  std::string message;
  sluice_response* response = nullptr;
  std::string body;
  bool hold = false;
  bool ended = false;
  sluice_code end_code = SLUICE_OK;
};

void on_response(void* user_data, sluice_code code, sluice_response* response) {
  auto* outcome = static_cast<Outcome*>(user_data);
  outcome->thread = std::this_thread::get_id();
  outcome->answered = true;
  outcome->code = code;
  outcome->message = sluice_last_error();
  outcome->response = response;
}

int on_data(void* user_data, const uint8_t* data, size_t len) {
  auto* outcome = static_cast<Outcome*>(user_data);
  outcome->body.append(reinterpret_cast<const char*>(data), len);
  return outcome->hold ? 0 : 1;
}

void on_end(void* user_data, sluice_code code) {
  auto* outcome = static_cast<Outcome*>(user_data);
  outcome->ended = true;
  outcome->end_code = code;
}

TEST_F(CapiHostDispatch, CallbacksRunInDispatchAndAPausedBodyHoldsAtItsAllowance) {
  test::TestEnv env;
  const std::string url = env.get("SLUICE_NGINX_HTTP_URL") + "/64m.bin";
  RequestHandle request = get(url);
  const size_t mark = 256u << 10;
  ASSERT_EQ(sluice_request_set_allowance(request.get, mark, mark), SLUICE_OK);
  Outcome outcome;
  PendingHandle pending;
  ASSERT_EQ(sluice_client_send_cb(client_.get, request.get, on_response, &outcome, &pending.get),
            SLUICE_OK);
  sluice_response* refused = nullptr;
  EXPECT_EQ(sluice_pending_wait(pending.get, &refused), SLUICE_E_INVALID_ARGUMENT);
  ASSERT_TRUE(run_loop([&] { return outcome.answered; }));
  EXPECT_EQ(outcome.thread, std::this_thread::get_id());
  ASSERT_EQ(outcome.code, SLUICE_OK) << outcome.message;
  ResponseHandle response{outcome.response};
  EXPECT_EQ(sluice_response_status(response.get), 200);

  outcome.hold = true;  // the first piece pauses delivery
  ASSERT_EQ(sluice_response_on_data(response.get, on_data, on_end, &outcome), SLUICE_OK);
  char buffer[16];
  size_t n = 0;
  EXPECT_EQ(sluice_response_read(response.get, buffer, sizeof buffer, &n),
            SLUICE_E_INVALID_ARGUMENT)
      << "a body given to callbacks was read as well";
  ASSERT_TRUE(run_loop([&] { return !outcome.body.empty(); }));
  ASSERT_TRUE(test::eventually([&] { return stats().paused_receivers == 1; }))
      << "the paused callback did not hold the stream";
  EXPECT_LE(sluice_response_buffered(response.get), mark + kOneReceive);
  outcome.hold = false;
  ASSERT_EQ(sluice_response_resume(response.get), SLUICE_OK);
  ASSERT_TRUE(run_loop([&] { return outcome.ended; }));
  EXPECT_EQ(outcome.end_code, SLUICE_OK) << describe(outcome.end_code);
  EXPECT_EQ(test::sha256_hex(outcome.body), env.sha256_of("64m.bin"));
}

TEST_F(CapiHostDispatch, AFailedRequestGivesItsCallbackTheCodeAndMessage) {
  RequestHandle request = get("http://[::1:bad/");
  Outcome outcome;
  ASSERT_EQ(sluice_client_send_cb(client_.get, request.get, on_response, &outcome, nullptr),
            SLUICE_OK);
  ASSERT_TRUE(run_loop([&] { return outcome.answered; }));
  EXPECT_EQ(outcome.code, SLUICE_E_BAD_URL);
  EXPECT_EQ(outcome.response, nullptr);
  EXPECT_NE(outcome.message, "") << "no message during the callback";
}

void on_writable(void* user_data) { ++*static_cast<int*>(user_data); }

TEST_F(CapiHostDispatch, AWriterSaysWhenItMayWriteThroughDispatch) {
  // The server reads nothing of the body until the client's writer has filled (the
  // socket buffers and then the writer's queue), so the client must wait for its
  // writable callback, which only dispatch runs.
  std::promise<void> writer_full;
  std::shared_future<void> may_read = writer_full.get_future().share();
  TestServer server([may_read](ServerConnection& conn) {
    auto head = conn.read_request_head();
    if (!head) return;
    may_read.wait();
    std::string body;
    while (body.find("0\r\n\r\n") == std::string::npos) {  // chunked, to the last chunk
      const std::string more = conn.read_some(1u << 16);
      if (more.empty()) return;
      body += more;
    }
    conn.write(test::http_response(200, "received"));
  });
  sluice_body_writer* writer = nullptr;
  ASSERT_EQ(sluice_body_writer_new(1u << 16, &writer), SLUICE_OK);
  const std::string url = server.url("/upload");
  RequestHandle request;
  ASSERT_EQ(sluice_request_new("PUT", 3, url.data(), url.size(), &request.get), SLUICE_OK);
  ASSERT_EQ(sluice_request_set_body_writer(request.get, writer, -1), SLUICE_OK);
  Outcome outcome;
  ASSERT_EQ(sluice_client_send_cb(client_.get, request.get, on_response, &outcome, nullptr),
            SLUICE_OK);
  const std::string piece(1u << 16, 'y');
  std::size_t written = 0;
  sluice_code code = SLUICE_OK;
  while ((code = sluice_body_writer_write_timeout(writer, piece.data(), piece.size(), 0)) ==
         SLUICE_OK) {
    written += piece.size();
    ASSERT_LT(written, 1u << 30) << "a gigabyte went into a server that reads nothing";
  }
  ASSERT_EQ(code, SLUICE_WOULD_BLOCK) << describe(code);
  int writable = 0;
  ASSERT_EQ(sluice_body_writer_when_writable(writer, on_writable, &writable), SLUICE_OK);
  writer_full.set_value();
  ASSERT_TRUE(run_loop([&] { return writable > 0; })) << "the writable callback never came";
  EXPECT_EQ(sluice_body_writer_write(writer, piece.data(), piece.size()), SLUICE_OK);
  ASSERT_EQ(sluice_body_writer_close(writer), SLUICE_OK);
  sluice_body_writer_free(writer);
  ASSERT_TRUE(run_loop([&] { return outcome.answered; }));
  ASSERT_EQ(outcome.code, SLUICE_OK) << outcome.message;
  ResponseHandle response{outcome.response};
  ASSERT_EQ(sluice_response_on_data(response.get, on_data, on_end, &outcome), SLUICE_OK);
  ASSERT_TRUE(run_loop([&] { return outcome.ended; }));
  EXPECT_EQ(outcome.body, "received");
}

}  // namespace
}  // namespace sluice
