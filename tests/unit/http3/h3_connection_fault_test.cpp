#include <gtest/gtest.h>

#include <string>

#include "http3/h3_session.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::RecordingSink;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What ends a whole HTTP/3 connection, and what must not.
class H3ConnectionFaultTest : public ::testing::Test, protected test::H3ClientHarness {};

TEST_F(H3ConnectionFaultTest, FrameNotAllowedOnARequestStreamClosesTheConnection) {
  RecordingSink sink;
  RecordingSink sibling;
  const std::int64_t stream_id = submit(get(), sink);
  submit(get("/sibling"), sibling);
  pump();
  peer.send_raw(stream_id, test::h3_frame(0x04, ""));  // SETTINGS on a request stream
  pump();
  ASSERT_EQ(pump_errors.size(), 1u);
  EXPECT_EQ(pump_errors[0].message(),
            "HTTP/3: the server sent a frame where HTTP/3 does not allow it "
            "(H3_FRAME_UNEXPECTED); the connection was closed");
  EXPECT_EQ(pump_errors[0].code(), ErrorCode::http3_failed);  // curl's 95
  for (RecordingSink* each : {&sink, &sibling}) {
    ASSERT_TRUE(each->error.has_value());
    EXPECT_EQ(each->error->message(), pump_errors[0].message());
  }
  EXPECT_EQ(session.close_error_code(), NGHTTP3_H3_FRAME_UNEXPECTED);
  EXPECT_TRUE(peer.connection_closed());
  EXPECT_EQ(session.available_streams(), 0u);
}

TEST_F(H3ConnectionFaultTest, ConnectionCloseFailsEveryExchange) {
  RecordingSink one;
  RecordingSink two;
  submit(get("/1"), one);
  submit(get("/2"), two);
  pump();
  peer.close_connection(Error(ErrorCategory::timeout, "QUIC: idle timeout"));
  for (RecordingSink* each : {&one, &two}) {
    ASSERT_TRUE(each->error.has_value());
    EXPECT_EQ(each->error->message(), "QUIC: idle timeout");
  }
  EXPECT_EQ(session.open_streams(), 0u);
  EXPECT_TRUE(session.finished());
  RecordingSink after;
  ExchangeRequest request = get();
  EXPECT_FALSE(session.submit(request, after).ok());
}

// Closing a critical stream arrives in a call that cannot return an error
// (on_stream_closed); the next next_output reports it so the transport closes.
TEST_F(H3ConnectionFaultTest, ClosedControlStreamSurfacesThroughTheNextOutput) {
  RecordingSink sink;
  submit(get(), sink);
  pump();
  session.on_stream_closed(test::H3TestPeer::kControlStream, std::nullopt);
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(),
            "HTTP/3: the server closed its control or QPACK stream "
            "(H3_CLOSED_CRITICAL_STREAM); the connection was closed");
  pump();
  ASSERT_EQ(pump_errors.size(), 1u);
  EXPECT_EQ(pump_errors[0].message(), sink.error->message());
  EXPECT_EQ(session.close_error_code(), NGHTTP3_H3_CLOSED_CRITICAL_STREAM);
}

// RFC 9114 sections 6.2 and 7.2.8: unknown stream types and reserved frame types are
// ignored, and their bytes credited.
TEST_F(H3ConnectionFaultTest, UnknownStreamsAndFramesAreIgnored) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.send_raw(15, test::quic_varint(0x21) + "grease stream payload");
  peer.send_raw(test::H3TestPeer::kControlStream, test::h3_frame(0x21, "reserved"));
  peer.respond(stream_id, 200);
  pump();
  peer.send_raw(stream_id, test::h3_frame(0x2a + 0x1f, "reserved on a request stream"));
  peer.send_body(stream_id, "after grease", true);
  pump();
  EXPECT_TRUE(pump_errors.empty());
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "after grease");
  EXPECT_EQ(peer.delivered(15), peer.credited(15));
  // All but the body: the reserved frame was framing, credited at once; the body
  // waits (a prompt reader's credit goes back once half the window is used).
  EXPECT_EQ(peer.delivered(stream_id) - peer.credited(stream_id), sink.body.size());
}

// A GOAWAY with the largest id is a shutdown notice: nothing in flight is refused,
// nothing new starts.
TEST_F(H3ConnectionFaultTest, ShutdownNoticeLetsStreamsFinish) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.goaway(static_cast<std::int64_t>(NGHTTP3_SHUTDOWN_NOTICE_STREAM_ID));
  pump();
  EXPECT_TRUE(session.goaway_received());
  EXPECT_EQ(session.available_streams(), 0u);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_FALSE(session.finished());
  peer.respond(stream_id, 200, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_TRUE(session.finished());
  EXPECT_TRUE(traced("c1 h3: GOAWAY received: the server is shutting down"));
}

TEST_F(H3ConnectionFaultTest, GoawayWithAHigherIdThanBeforeClosesTheConnection) {
  RecordingSink sink;
  submit(get(), sink);
  pump();
  peer.goaway(4);
  pump();
  peer.goaway(8);
  pump();
  ASSERT_EQ(pump_errors.size(), 1u);
  EXPECT_TRUE(contains(pump_errors[0].message(), "H3_ID_ERROR")) << pump_errors[0].message();
  ASSERT_TRUE(sink.error.has_value());
}

TEST_F(H3ConnectionFaultTest, FailAllEndsEveryExchangeAndTakesNoMore) {
  RecordingSink one;
  RecordingSink two;
  submit(get("/1"), one);
  submit(get("/2"), two);
  pump();
  const int changes_before = changes;
  session.fail_all(Error(ErrorCategory::cancelled, "the client is shutting down"));
  EXPECT_EQ(one.error->message(), "the client is shutting down");
  EXPECT_EQ(two.error->message(), "the client is shutting down");
  EXPECT_EQ(session.available_streams(), 0u);
  EXPECT_TRUE(session.finished());
  EXPECT_EQ(changes, changes_before + 1);  // once, after the call
}

}  // namespace
}  // namespace sluice
