// Request::timeouts over every version (versions.hpp). A reader holding its body for
// longer than the idle timeout is our wait, not the server's silence: no failure. The
// total timeout ends the exchange with category timeout even while the reader holds.
// The server's silence does end it by the idle timeout, before the head and in the
// body: the real servers cannot be told to stall, so the path to them is held
// (versions_path.hpp: a TCP relay for h1, h1 over TLS, h2 and h2c, the UDP fault
// proxy for h3), which the client cannot tell from a stalled server.
#include <gtest/gtest.h>

#include "integration/versions.hpp"
#include "integration/versions_path.hpp"
#include "sluice/sluice.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::HeldPath;
using test::Need;
using test::read_until_end;
using test::ReadOutcome;
using test::wait_until;

constexpr std::uint64_t k64MiB = 64u << 20;

class VersionsTimeouts : public test::VersionsTest {
 protected:
  void expect_next_request_works(Client& client, const std::string& url) {
    auto next = client.fetch(request_to(url));
    ASSERT_TRUE(next.ok()) << next.error().describe();
    expect_file(next->body, "small.txt");
  }
};

// The hold is the HTTP thread's time: its clock freezes once the body is paused and
// moves as the test says, so the idle timer checks the held stream three times and
// more, however loaded the machine.
TEST_P(VersionsTimeouts, ReaderHoldingLongerThanTheIdleTimeoutDoesNotFail) {
  test::FreezableClock clock;
  auto client = make_client_on(clock);
  Request request = request_for(Need::files, "/1m.bin");
  request.timeouts.idle = 300ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  ASSERT_TRUE(wait_until(client, [&] { return client.stats().paused_receivers == 1; }))
      << "the body never reached its mark";
  // The reader holds for three idle timeouts and more: the server may not send, so
  // its silence is not counted.
  clock.freeze();
  for (auto held = 0ms; held < 1s; held += 100ms) {
    ASSERT_TRUE(test::advance(clock, client, 100ms)) << "the HTTP thread is stuck";
    ASSERT_EQ(client.stats().in_flight, 1u)
        << "the held exchange ended after " << (held + 100ms).count() << " ms of holding";
  }
  ASSERT_TRUE(test::thaw(clock, client));
  expect_file(response->body, "1m.bin");
}

TEST_P(VersionsTimeouts, TotalTimeoutEndsAHeldExchangeWithCategoryTimeout) {
  auto client = make_client();
  Request request = request_for(Need::files, "/1m.bin");
  request.timeouts.total = 500ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  // Not a byte is read: the exchange ends on its own when the total timeout fires.
  ASSERT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the total timeout never ended the exchange";
  const ReadOutcome read = read_until_end(response->body);
  ASSERT_TRUE(read.error.has_value())
      << "a body cut by the total timeout ended as a success of " << read.bytes << " bytes";
  EXPECT_LT(read.bytes, 1u << 20);
  EXPECT_EQ(read.error->category(), ErrorCategory::timeout) << read.error->describe();
  EXPECT_EQ(read.error->message(), "transfer did not complete within 500 ms (total timeout)");

  expect_next_request_works(client, base_url(Need::files) + "/small.txt");
}

TEST_P(VersionsTimeouts, ServerSilentBeforeTheHeadEndsByTheIdleTimeout) {
  HeldPath path(wire(), base_url(Need::files));
  auto client = make_client();
  auto warm = client.fetch(request_to(path.url("/small.txt")));  // the connection is up
  ASSERT_TRUE(warm.ok()) << warm.error().describe();
  expect_file(warm->body, "small.txt");

  path.hold();
  Request request = request_to(path.url("/1m.bin"));
  request.timeouts.idle = 300ms;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok()) << "a response arrived through a held path";
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().describe();
  EXPECT_EQ(response.error().message().rfind("idle timeout: no response from ", 0), 0u)
      << response.error().message();

  path.release();
  expect_next_request_works(client, path.url("/small.txt"));
}

TEST_P(VersionsTimeouts, ServerSilentInTheBodyEndsByTheIdleTimeout) {
  HeldPath path(wire(), base_url(Need::files));
  auto client = make_client();
  Request request = request_to(path.url("/64m.bin"));
  request.timeouts.idle = 300ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().describe();
  const ReadOutcome first = read_until_end(response->body, 1u << 20);
  ASSERT_FALSE(first.error.has_value()) << first.error->describe();

  path.hold();  // what is already on its way still comes; then nothing
  const ReadOutcome rest = read_until_end(response->body);
  ASSERT_TRUE(rest.error.has_value())
      << "a stalled body ended as a success of " << first.bytes + rest.bytes << " bytes";
  EXPECT_LT(first.bytes + rest.bytes, k64MiB);
  EXPECT_EQ(rest.error->category(), ErrorCategory::timeout) << rest.error->describe();
  EXPECT_EQ(rest.error->message().rfind("idle timeout: no data from ", 0), 0u)
      << rest.error->message();

  path.release();
  expect_next_request_works(client, path.url("/small.txt"));
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsTimeouts, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
