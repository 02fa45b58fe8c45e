// What only H2Session does: header blocks at nghttp2's own limits, nghttp2's text for
// an invalid field, SETTINGS_MAX_CONCURRENT_STREAMS, PING and connection errors. The
// scenarios it shares with H3Session run over both in
// tests/unit/mux/multiplexed_sessions_test.cpp.

#include "http2/h2_session.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/h2_test_peer.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using test::H2PeerOptions;
using test::pattern;
using test::RecordingSink;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A client session and an in-memory server, wired by pump().
class H2SessionTest : public ::testing::Test, protected test::H2ClientHarness {
 protected:
  explicit H2SessionTest(H2PeerOptions options = {}) : H2ClientHarness(std::move(options)) {}
};

TEST_F(H2SessionTest, HugeHeaderBlockFailsAtTheDefaultLimit) {
  H2PeerOptions options;
  options.max_send_header_block = 4 * kMiB;
  test::H2ClientHarness generous(options);
  RecordingSink sink;
  RecordingSink sibling;
  const std::int32_t stream_id = generous.submit(get(), sink);
  const std::int32_t sibling_id = generous.submit(get(), sibling);
  generous.pump();
  Headers big;
  // About 270 KiB as HTTP/2 counts it: over 256 KiB, still few enough frames.
  for (int i = 0; i < 250; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  generous.peer.respond(stream_id, 200, big);
  generous.peer.respond(sibling_id, 200);
  generous.peer.send_body(sibling_id, "ok", true);
  generous.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large) << sink.error->message();
  EXPECT_TRUE(sibling.completed);
}

TEST_F(H2SessionTest, HeaderBlockInTooManyFramesClosesTheConnection) {
  H2PeerOptions options;
  options.max_send_header_block = 8 * kMiB;
  test::H2ClientHarness flooding(options);
  RecordingSink sink;
  const std::int32_t stream_id = flooding.submit(get(), sink);
  flooding.pump();
  Headers big;
  for (int i = 0; i < 1000; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  flooding.peer.respond(stream_id, 200, big);
  flooding.pump();
  ASSERT_EQ(flooding.pump_errors.size(), 1u);
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large);
  EXPECT_TRUE(contains(sink.error->message(), "too many CONTINUATION frames"))
      << sink.error->message();
  EXPECT_TRUE(flooding.session.finished());
}

TEST_F(H2SessionTest, InvalidResponseHeaderFailsTheStream) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200, {{"bad name", "x"}});
  peer.send_body(stream_id, "body", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(contains(sink.error->message(), "invalid header field 'bad name'"))
      << sink.error->message();
}

TEST_F(H2SessionTest, AvailableStreamsFollowsTheServerLimit) {
  EXPECT_EQ(session.available_streams(), 100u);  // assumed before SETTINGS
  H2PeerOptions options;
  options.settings = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2}};
  test::H2ClientHarness strict(options);
  strict.pump();
  EXPECT_EQ(strict.session.available_streams(), 2u);
  RecordingSink sink;
  strict.submit(get(), sink);
  EXPECT_EQ(strict.session.available_streams(), 1u);
}

TEST_F(H2SessionTest, PingIsAnswered) {
  pump();
  // The session's own first PING measured the round trip already.
  EXPECT_EQ(peer.pings_received(), 1);
  ASSERT_TRUE(session.send_ping().ok());
  EXPECT_TRUE(session.ping_outstanding());
  pump();
  EXPECT_FALSE(session.ping_outstanding());
  EXPECT_EQ(peer.pings_received(), 2);
}

TEST_F(H2SessionTest, FirstPingMeasuresTheRoundTrip) {
  round_trip(std::chrono::milliseconds(40));  // SETTINGS and PING out, answers 40 ms later
  ASSERT_TRUE(session.rtt().known());
  EXPECT_EQ(session.rtt().min(), std::chrono::milliseconds(40));
  EXPECT_TRUE(traced("c1 h2: rtt 40.0 ms"));
}

TEST_F(H2SessionTest, ConnectionErrorFailsEveryStream) {
  RecordingSink first;
  RecordingSink second;
  submit(get("/1"), first);
  submit(get("/2"), second);
  pump();
  peer.send_raw(test::data_frame(0, "nope", false));  // DATA on stream 0
  pump();
  ASSERT_TRUE(first.error.has_value());
  ASSERT_TRUE(second.error.has_value());
  EXPECT_TRUE(contains(first.error->message(), "PROTOCOL_ERROR")) << first.error->message();
  EXPECT_TRUE(session.finished());
  EXPECT_EQ(session.available_streams(), 0u);
}

}  // namespace
}  // namespace sluice
