// Cancelling at each stage over every version (versions.hpp): before the response head
// (cancel(), or dropping the PendingResponse), after the head, and in the body. The
// request or its body fails with category cancelled where the API says so, and the
// origin stays usable; a multiplexed connection survives its cancelled stream.
// "Before the head" is made certain, not raced: the path to the server is held
// (versions_path.hpp), so no head can arrive until the test releases it.
#include <gtest/gtest.h>

#include <optional>

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

class VersionsCancel : public test::VersionsTest {
 protected:
  // Unread, a body's allowance stays at its initial 64 KiB, so a 1 MiB body cannot
  // have arrived whole before the cancel: each cancel below lands mid-exchange.
  Client make_client() { return VersionsTest::make_client(ClientOptions{}); }

  // A connection through `path` that has carried one exchange and is pooled.
  void warm_up(Client& client, const HeldPath& path) {
    auto warm = client.fetch(request_to(path.url("/small.txt")));
    ASSERT_TRUE(warm.ok()) << warm.error().describe();
    expect_file(warm->body, "small.txt");
  }

  void expect_next_request_works(Client& client, const std::string& url) {
    auto next = client.fetch(request_to(url));
    ASSERT_TRUE(next.ok()) << next.error().describe();
    EXPECT_EQ(next->version, test::spoken_by(wire()));
    expect_file(next->body, "small.txt");
  }

  // Reads the rest of a cancelled body: what was staged, then the cancel.
  void expect_body_cancelled(BodyReader& body, std::uint64_t read_before) {
    const ReadOutcome rest = read_until_end(body);
    ASSERT_TRUE(rest.error.has_value())
        << "a cancelled body ended as a success of " << read_before + rest.bytes << " bytes";
    EXPECT_EQ(rest.error->category(), ErrorCategory::cancelled) << rest.error->describe();
    EXPECT_LT(read_before + rest.bytes, 1u << 20);
  }

  void expect_connection_kept(const Client& client) {
    if (test::multiplexes(wire())) {
      EXPECT_EQ(client.stats().connections, 1u) << "the cancelled stream took its connection along";
    }
  }
};

TEST_P(VersionsCancel, CancelBeforeTheHeadFailsTheRequestWithCancelled) {
  HeldPath path(wire(), base_url(Need::files));
  auto client = make_client();
  warm_up(client, path);

  path.hold();  // the server falls silent: no head can come
  PendingResponse pending = client.send(request_to(path.url("/1m.bin")));
  EXPECT_FALSE(pending.wait_for(100ms).has_value()) << "a head arrived through a held path";
  pending.cancel("the page was closed");
  auto response = pending.wait();
  ASSERT_FALSE(response.ok()) << "a cancelled request got its response";
  EXPECT_EQ(response.error().category(), ErrorCategory::cancelled) << response.error().describe();
  EXPECT_EQ(response.error().message(), "request cancelled: the page was closed");
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));

  path.release();
  expect_next_request_works(client, path.url("/small.txt"));
  expect_connection_kept(client);
}

TEST_P(VersionsCancel, DroppingThePendingResponseBeforeTheHeadCancelsTheRequest) {
  HeldPath path(wire(), base_url(Need::files));
  auto client = make_client();
  warm_up(client, path);

  path.hold();
  {
    PendingResponse pending = client.send(request_to(path.url("/1m.bin")));
    EXPECT_FALSE(pending.wait_for(100ms).has_value()) << "a head arrived through a held path";
  }  // nobody can take the response now
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }))
      << "the abandoned request stayed in flight";

  path.release();
  expect_next_request_works(client, path.url("/small.txt"));
  expect_connection_kept(client);
}

TEST_P(VersionsCancel, CancelAfterTheHeadFailsTheBodyWithCancelled) {
  auto client = make_client();
  PendingResponse pending = client.send(request_for(Need::files, "/1m.bin"));
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().describe();
  EXPECT_EQ(response->version, test::spoken_by(wire()));
  pending.cancel();
  expect_body_cancelled(response->body, 0);
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));
  EXPECT_EQ(client.stats().staged_bytes, 0u);

  expect_next_request_works(client, base_url(Need::files) + "/small.txt");
  expect_connection_kept(client);
}

TEST_P(VersionsCancel, CancelInTheBodyFailsTheRestWithCancelled) {
  auto client = make_client();
  PendingResponse pending = client.send(request_for(Need::files, "/1m.bin"));
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().describe();
  const ReadOutcome first = read_until_end(response->body, 300 * 1024);
  ASSERT_FALSE(first.error.has_value()) << first.error->describe();
  ASSERT_EQ(first.bytes, 300u * 1024);
  pending.cancel();
  expect_body_cancelled(response->body, first.bytes);
  EXPECT_TRUE(wait_until(client, [&] { return client.stats().in_flight == 0; }));

  expect_next_request_works(client, base_url(Need::files) + "/small.txt");
  expect_connection_kept(client);
}

// Destroying the whole Response (its reader with it) in the body is the other way to
// give up; VersionsDrop covers it. Cancelling twice, or after the end, changes nothing.
TEST_P(VersionsCancel, CancelAfterTheBodyEndedChangesNothing) {
  auto client = make_client();
  PendingResponse pending = client.send(request_for(Need::files, "/small.txt"));
  auto response = pending.wait();
  ASSERT_TRUE(response.ok()) << response.error().describe();
  expect_file(response->body, "small.txt");
  pending.cancel();
  pending.cancel();
  auto again = response->body.read_all();
  ASSERT_TRUE(again.ok()) << again.error().describe();
  EXPECT_EQ(*again, "");
  expect_next_request_works(client, base_url(Need::files) + "/small.txt");
  EXPECT_EQ(client.stats().connections, 1u);
}

INSTANTIATE_TEST_SUITE_P(Versions, VersionsCancel, ::testing::ValuesIn(test::all_wires()),
                         test::wire_test_name);

}  // namespace
}  // namespace sluice
