// Response::timing measures the HTTP thread's clock between events: on a manual clock
// that only the test moves, each step is exactly the time the test let pass between
// the events that bound it, and steps with no time between them coincide.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <utility>

#include "sluice/sluice.hpp"
#include "support/client_on_clock.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

// Opens a gate once, also when an assertion returns early (the server thread must end).
struct Gate {
  std::promise<void> promise;
  std::shared_future<void> opened = promise.get_future().share();
  bool open_ = false;
  void open() {
    if (!std::exchange(open_, true)) promise.set_value();
  }
  ~Gate() { open(); }
};

TEST(ClientTiming, EachStepIsTheTimeThatPassedBetweenItsEvents) {
  Gate request_seen, send_head, send_rest;
  TestServer server([&](ServerConnection& conn) {
    if (!conn.read_request()) return;
    request_seen.open();
    send_head.opened.wait();
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234");
    send_rest.opened.wait();
    conn.write("56789");
  });
  test::ManualClock clock;
  auto client = test::client_on(clock).value();
  PendingResponse pending = client.send(Request::get(server.url("/")));
  ASSERT_EQ(request_seen.opened.wait_for(30s), std::future_status::ready);
  ASSERT_TRUE(test::advance(clock, client, 250ms));  // the server "thinks" for 250 ms
  send_head.open();
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_TRUE(test::advance(clock, client, 40ms));  // the body's rest comes 40 ms later
  send_rest.open();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().describe();
  EXPECT_EQ(*body, "0123456789");

  const ResponseTiming& t = response->timing;
  // Nothing moved the clock from the start to the request: those steps coincide.
  EXPECT_EQ(t.fetch_start, t.start);
  EXPECT_EQ(t.dns_start, t.start);
  EXPECT_EQ(t.connect_end, t.start);
  EXPECT_EQ(t.request_start, t.start);
  EXPECT_FALSE(t.tls_start.has_value()) << "plain http has no TLS step";
  EXPECT_EQ(t.response_start - t.request_start, 250ms);
  ASSERT_TRUE(response->body.ended_at().has_value());
  EXPECT_EQ(*response->body.ended_at() - t.response_start, 40ms);
}

TEST(ClientTiming, AFailedBodyEndsWhenTheHttpThreadSawItFail) {
  Gate request_seen, cut;
  TestServer server([&](ServerConnection& conn) {
    if (!conn.read_request()) return;
    conn.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234");
    request_seen.open();
    cut.opened.wait();  // then the connection closes five bytes short
  });
  test::ManualClock clock;
  auto client = test::client_on(clock).value();
  auto response = client.fetch(Request::get(server.url("/")));
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_EQ(request_seen.opened.wait_for(30s), std::future_status::ready);
  EXPECT_FALSE(response->body.ended_at().has_value()) << "a body under way has an end time";
  ASSERT_TRUE(test::advance(clock, client, 15ms));
  cut.open();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a body cut short read as a success";
  ASSERT_TRUE(response->body.ended_at().has_value());
  EXPECT_EQ(*response->body.ended_at() - response->timing.response_start, 15ms);
}

}  // namespace
}  // namespace sluice
