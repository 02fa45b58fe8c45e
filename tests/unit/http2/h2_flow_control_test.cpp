// HTTP/2's own flow control: the protocol's 64 KiB before our SETTINGS, padding, a
// server that ignores the window, the connection window, a one-byte window for
// uploads. How a reader's mark holds a stream, the same in HTTP/3, runs over both in
// tests/unit/mux/multiplexed_sessions_test.cpp.

#include "http2/h2_session.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/h2_test_peer.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using test::H2PeerOptions;
using test::pattern;
using test::RecordingSink;
using test::ScriptedBody;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Flow control is the backpressure: windows follow what each consumer took.
class H2FlowControlTest : public ::testing::Test, protected test::H2ClientHarness {
 protected:
  explicit H2FlowControlTest(H2PeerOptions options = {}) : H2ClientHarness(std::move(options)) {}
};

// A mark below the protocol's 64 KiB: the server may use the 64 KiB it was granted
// before our window reached it, but never more, and after that exactly the mark
// beyond what the reader took.
TEST_F(H2FlowControlTest, SmallMarkHoldsAfterTheFirst64KiB) {
  RecordingSink held(16 * kKiB);
  held.hold();
  ExchangeRequest request = get("/small");
  request.allowance = {16 * kKiB, 16 * kKiB};
  const std::int32_t stream_id = submit(std::move(request), held);
  pump();
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, pattern(1 * kMiB), true);
  pump();
  EXPECT_EQ(held.body.size(), 65535u);  // the protocol's initial window, granted first
  for (int round = 0; round < 200 && !held.completed; ++round) {
    if (held.take(SIZE_MAX)) session.resume_stream(stream_id);
    pump();
    EXPECT_LE(held.held_bytes(), 16 * kKiB) << "round " << round;
    EXPECT_LE(peer.remote_window(stream_id), static_cast<std::int32_t>(16 * kKiB));
  }
  EXPECT_TRUE(held.completed);
}

// Padding counts against the window: a reader that takes everything gets it all
// back, so a padded body of many windows never stalls.
TEST_F(H2FlowControlTest, PaddedBodyOfManyWindowsCompletesForAHoldingReader) {
  H2PeerOptions options;
  options.data_padding = 255;
  test::H2ClientHarness padded(options);
  RecordingSink sink;
  sink.hold();
  const std::int32_t stream_id = padded.submit(get(), sink);
  padded.pump();
  const std::string body = pattern(8 * kMiB, 'd');
  padded.peer.respond(stream_id, 200);
  padded.peer.send_body(stream_id, body, true);
  for (int round = 0; round < 1000 && !sink.completed; ++round) {
    padded.pump();
    if (sink.take(100 * kKiB)) padded.session.resume_stream(stream_id);
  }
  EXPECT_TRUE(padded.pump_errors.empty());
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(sink.body == body);
}

TEST_F(H2FlowControlTest, PaddingIsNotDeliveredAsBody) {
  H2PeerOptions options;
  options.data_padding = 200;
  test::H2ClientHarness padded(options);
  RecordingSink sink;
  const std::int32_t stream_id = padded.submit(get(), sink);
  padded.pump();
  const std::string body = pattern(600 * kKiB, 'p');
  padded.peer.respond(stream_id, 200);
  padded.peer.send_body(stream_id, body, true);
  padded.pump();
  EXPECT_TRUE(padded.pump_errors.empty());
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body.size(), body.size());
  EXPECT_TRUE(sink.body == body);
}

TEST_F(H2FlowControlTest, PeerIgnoringTheWindowGetsAFlowControlError) {
  RecordingSink held;
  held.hold();
  RecordingSink sibling;
  const std::int32_t held_id = submit(get("/held"), held);
  const std::int32_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  peer.respond(held_id, 200);
  peer.respond(sibling_id, 200);
  pump();
  // 17 frames of 16 KiB: one frame past the 256 KiB stream window, which nobody
  // gave back.
  std::string frames;
  const std::string piece = pattern(16 * kKiB, 'x');
  for (int i = 0; i < 17; ++i) frames += test::data_frame(held_id, piece, false);
  peer.send_raw(frames);
  pump();
  ASSERT_TRUE(held.error.has_value());
  EXPECT_TRUE(contains(held.error->message(), "flow-control window")) << held.error->message();
  EXPECT_TRUE(contains(held.error->message(), "FLOW_CONTROL_ERROR"));
  ASSERT_NE(peer.request(held_id), nullptr);
  EXPECT_EQ(peer.request(held_id)->reset_code, NGHTTP2_FLOW_CONTROL_ERROR);

  peer.send_body(sibling_id, "still fine", true);
  pump();
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body, "still fine");
}

TEST_F(H2FlowControlTest, DataForCancelledStreamsStillReturnsConnectionWindow) {
  // 80 streams of 256 KiB, each cancelled after its first bytes: 20 MiB in flight
  // for cancelled streams, beyond the 16 MiB connection window.
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  for (int i = 0; i < 80; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    RecordingSink& sink = *sinks.back();
    const std::int32_t stream_id = submit(get("/c" + std::to_string(i)), sink);
    sink.after_body = [this, stream_id] { session.cancel_stream(stream_id); };
  }
  pump();
  for (std::int32_t stream_id : peer.request_ids()) {
    peer.respond(stream_id, 200);
    peer.send_body(stream_id, pattern(256 * kKiB), true);
  }
  pump();
  RecordingSink last;
  const std::int32_t last_id = submit(get("/last"), last);
  pump();
  peer.respond(last_id, 200);
  peer.send_body(last_id, pattern(4 * kMiB), true);
  pump();
  EXPECT_TRUE(last.completed);
  EXPECT_EQ(last.body.size(), 4 * kMiB);
}

class H2TinyWindowTest : public H2FlowControlTest {
 protected:
  H2TinyWindowTest()
      : H2FlowControlTest(H2PeerOptions{.settings = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1}}}) {}
};

TEST_F(H2TinyWindowTest, TinyPeerWindowStillUploadsTheBody) {
  const std::string payload = pattern(100 * kKiB, 'u');
  ScriptedBody body(payload.size());
  body.provide(payload, true);
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  pump();
  const auto* request = peer.request(stream_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->body.size(), payload.size());
  EXPECT_TRUE(request->body == payload);
  EXPECT_TRUE(request->ended);
  peer.respond(stream_id, 200, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
}

}  // namespace
}  // namespace sluice
