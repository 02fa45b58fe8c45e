// Lent request bodies through the C API (sluice_request_set_body_lent): the bytes
// arrive whole without being copied into the library, and `release` runs once, when
// nothing needs them: with host dispatch inside sluice_client_dispatch() on the host's
// thread, after the last byte went out for a large body (before the response), when
// the exchange ends for a small one (so a redirect can send it again).
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>

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

// What `release` saw: how often it ran, and on which thread.
struct Released {
  std::atomic<int> count{0};
  std::thread::id thread;
};

void on_release(void* user_data) {
  auto* released = static_cast<Released*>(user_data);
  released->thread = std::this_thread::get_id();
  released->count.fetch_add(1);
}

struct Answer {
  bool answered = false;
  sluice_code code = SLUICE_OK;
  std::string message;
  sluice_response* response = nullptr;
};

void on_response(void* user_data, sluice_code code, sluice_response* response) {
  auto* answer = static_cast<Answer*>(user_data);
  answer->answered = true;
  answer->code = code;
  answer->message = sluice_last_error();
  answer->response = response;
}

RequestHandle post(const std::string& url) {
  RequestHandle request;
  EXPECT_EQ(sluice_request_new("POST", 4, url.data(), url.size(), &request.get), SLUICE_OK);
  return request;
}

class CapiLentBody : public ::testing::Test {
 protected:
  void make_client(bool host_dispatch) {
    sluice_client_options* options = nullptr;
    ASSERT_EQ(sluice_client_options_new(&options), SLUICE_OK);
    ASSERT_EQ(sluice_client_options_set_host_dispatch(options, host_dispatch ? 1 : 0), SLUICE_OK);
    const sluice_code made = sluice_client_new(options, &client_.get);
    sluice_client_options_free(options);
    ASSERT_EQ(made, SLUICE_OK) << describe(made);
  }

  template <class Done>
  bool run_loop(Done done) {
    return test::run_dispatch(client_.get, done);
  }

  ClientHandle client_;
};

// 2 MiB is over the default release threshold (512 KiB): the bytes go back once the
// server took the last one, while it still holds its answer.
TEST_F(CapiLentBody, ALargeBodyIsReleasedInDispatchOnceSentBeforeTheResponse) {
  make_client(true);
  std::promise<void> may_answer;
  std::shared_future<void> answer_now = may_answer.get_future().share();
  TestServer server([answer_now](ServerConnection& conn) {
    auto request = conn.read_request();
    if (!request) return;
    answer_now.wait();
    conn.write(test::http_response(200, test::sha256_hex(request->body)));
  });
  const std::string body = test::pseudo_random_bytes(2u << 20);
  Released released;
  Answer answer;
  {
    RequestHandle request = post(server.url("/lent"));
    ASSERT_EQ(
        sluice_request_set_body_lent(request.get, body.data(), body.size(), on_release, &released),
        SLUICE_OK);
    ASSERT_EQ(sluice_client_send_cb(client_.get, request.get, on_response, &answer, nullptr),
              SLUICE_OK);
  }  // the handle's own hold goes with it
  EXPECT_EQ(released.count.load(), 0) << "released before the bytes went out";
  ASSERT_TRUE(run_loop([&] { return released.count.load() > 0; }));
  EXPECT_EQ(released.thread, std::this_thread::get_id()) << "release ran outside dispatch";
  EXPECT_FALSE(answer.answered);
  may_answer.set_value();
  ASSERT_TRUE(run_loop([&] { return answer.answered; }));
  ASSERT_EQ(answer.code, SLUICE_OK) << answer.message;
  ResponseHandle response{answer.response};
  EXPECT_EQ(test::read_body(response.get), test::sha256_hex(body));
  EXPECT_EQ(released.count.load(), 1);
}

// A small body stays lent for the whole exchange, so a 307 sends it again; it goes
// back once the exchange ended and the handle was freed.
TEST_F(CapiLentBody, ASmallBodyFollowsARedirectAndIsReleasedOnceAfterwards) {
  make_client(false);
  TestServer server([](ServerConnection& conn) {
    for (;;) {
      auto request = conn.read_request();
      if (!request) return;
      if (request->target == "/first") {
        conn.write(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n");
      } else {
        conn.write(test::http_response(200, request->method + " " + request->body));
      }
    }
  });
  const std::string body = "lent, not given";
  Released released;
  RequestHandle request = post(server.url("/first"));
  ASSERT_EQ(sluice_request_set_redirects(request.get, SLUICE_REDIRECT_FOLLOW, 5), SLUICE_OK);
  ASSERT_EQ(
      sluice_request_set_body_lent(request.get, body.data(), body.size(), on_release, &released),
      SLUICE_OK);
  PendingHandle pending;
  ASSERT_EQ(sluice_client_send(client_.get, request.get, &pending.get), SLUICE_OK);
  ResponseHandle response;
  const sluice_code code = sluice_pending_wait(pending.get, &response.get);
  ASSERT_EQ(code, SLUICE_OK) << describe(code);
  EXPECT_EQ(test::read_body(response.get), "POST " + body);
  EXPECT_EQ(released.count.load(), 0) << "the request handle still holds the bytes";
  sluice_request_free(request.get);
  request.get = nullptr;
  ASSERT_TRUE(test::eventually([&] { return released.count.load() > 0; }));
  EXPECT_EQ(released.count.load(), 1);
}

// A large body is let go once sent, so a 307 cannot send it again; with
// SLUICE_REDIRECT_KEEP_BODY it stays lent until the exchange ends and the 307 sends
// it whole.
TEST_F(CapiLentBody, ALargeBodyFollowsA307OnlyWhenKeptForResend) {
  make_client(false);
  TestServer server([](ServerConnection& conn) {
    for (;;) {
      auto request = conn.read_request();
      if (!request) return;
      if (request->target == "/first") {
        conn.write(
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n");
      } else {
        conn.write(test::http_response(200, test::sha256_hex(request->body)));
      }
    }
  });
  const std::string body(1 << 20, 'k');  // over the 512 KiB release threshold
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "kept for resend" : "released once sent");
    Released released;
    RequestHandle request = post(server.url("/first"));
    ASSERT_EQ(sluice_request_set_redirects(request.get, SLUICE_REDIRECT_FOLLOW, 5), SLUICE_OK);
    ASSERT_EQ(sluice_request_set_redirect_rules(request.get, keep ? SLUICE_REDIRECT_KEEP_BODY : 0,
                                                nullptr, 0),
              SLUICE_OK);
    ASSERT_EQ(
        sluice_request_set_body_lent(request.get, body.data(), body.size(), on_release, &released),
        SLUICE_OK);
    PendingHandle pending;
    ASSERT_EQ(sluice_client_send(client_.get, request.get, &pending.get), SLUICE_OK);
    ResponseHandle response;
    const sluice_code code = sluice_pending_wait(pending.get, &response.get);
    if (keep) {
      ASSERT_EQ(code, SLUICE_OK) << describe(code);
      EXPECT_EQ(test::read_body(response.get), test::sha256_hex(body));
    } else {
      EXPECT_EQ(code, SLUICE_E_USAGE) << describe(code);
      EXPECT_NE(std::string(sluice_last_error()).find("cannot resend"), std::string::npos)
          << sluice_last_error();
    }
    sluice_request_free(request.get);
    request.get = nullptr;
    ASSERT_TRUE(test::eventually([&] { return released.count.load() > 0; }));
    EXPECT_EQ(released.count.load(), 1);
  }
}

TEST_F(CapiLentBody, AnotherBodyReleasesTheLentOneAtOnceAndBadArgumentsLendNothing) {
  RequestHandle request = post("http://127.0.0.1:1/");
  const char bytes[] = "abc";
  Released released;
  EXPECT_EQ(sluice_request_set_body_lent(request.get, nullptr, 3, on_release, &released),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(sluice_request_set_body_lent(nullptr, bytes, 3, on_release, &released),
            SLUICE_E_INVALID_ARGUMENT);
  EXPECT_EQ(released.count.load(), 0) << "a refused call ran release";
  ASSERT_EQ(sluice_request_set_body_lent(request.get, bytes, 3, on_release, &released), SLUICE_OK);
  ASSERT_EQ(sluice_request_set_body_bytes(request.get, "xyz", 3), SLUICE_OK);
  EXPECT_EQ(released.count.load(), 1);
  EXPECT_EQ(released.thread, std::this_thread::get_id());
  // NULL release: bytes that outlive everything.
  EXPECT_EQ(sluice_request_set_body_lent(request.get, bytes, 3, nullptr, nullptr), SLUICE_OK);
}

}  // namespace
}  // namespace sluice
