// HTTP/2 fault-matrix rows that need exact control of when the client writes: a
// SETTINGS flood from a server that never reads the acknowledgements, compared
// with one that does, and a SETTINGS frame with more entries than sluice accepts.
// (The end-to-end rows are in tests/integration/fault_matrix_h2_test.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/byte_queue.hpp"
#include "http2/h2_session.hpp"
#include "support/h2_test_peer.hpp"

namespace sluice {
namespace {

using test::RecordingSink;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string empty_settings_frames(int count) {
  std::string frames;
  for (int i = 0; i < count; ++i) frames += test::settings_frame({});
  return frames;
}

class FaultMatrixH2Session : public ::testing::Test, protected test::H2ClientHarness {};

// Nothing is drained between the frames, as when the server does not read and the
// socket is full: the acknowledgements pile up inside nghttp2 until its bound.
TEST_F(FaultMatrixH2Session, FloodOfSettingsFromAServerThatDoesNotReadClosesTheConnection) {
  RecordingSink sink;
  submit(get("/flooded"), sink);
  pump();
  const std::string flood = empty_settings_frames(1500);
  auto fed = session.feed(as_bytes(flood));
  const std::string expected =
      "HTTP/2: server flooded the connection with frames that need answers (over 1000 SETTINGS "
      "or PING acknowledgements waiting to be sent); the connection was closed";
  ASSERT_FALSE(fed.ok()) << "1500 unsent SETTINGS acknowledgements were kept";
  EXPECT_EQ(fed.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(fed.error().message(), expected);
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), expected);
  EXPECT_FALSE(sink.completed);
  EXPECT_TRUE(session.finished());
}

// The same flood from a server that reads: each acknowledgement leaves, nothing
// accumulates, the stream stays open.
TEST_F(FaultMatrixH2Session, FloodOfSettingsFromAServerThatReadsIsAcknowledgedFrameByFrame) {
  RecordingSink sink;
  submit(get("/flooded"), sink);
  pump();
  std::size_t acks = 0;
  for (int round = 0; round < 30; ++round) {
    auto fed = session.feed(as_bytes(empty_settings_frames(100)));
    ASSERT_TRUE(fed.ok()) << fed.error().message();
    ByteQueue out;  // the server reads the ACKs (and drops them)
    ASSERT_TRUE(session.drain_output(out).ok());
    acks += out.size() / 9;  // an ACK is a bare 9-byte frame header
  }
  EXPECT_EQ(acks, 3000u);
  EXPECT_FALSE(sink.error.has_value()) << sink.error->message();
  EXPECT_TRUE(session.wants_read());
}

TEST_F(FaultMatrixH2Session, SettingsFrameWithMoreEntriesThanAcceptedClosesTheConnection) {
  RecordingSink sink;
  submit(get("/settings"), sink);
  pump();
  std::vector<nghttp2_settings_entry> entries(40, {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 10});
  peer.send_raw(test::settings_frame(entries));
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(sink.error->message(), "HTTP/2: ")) << sink.error->message();
  EXPECT_TRUE(contains(sink.error->message(), "SETTINGS")) << sink.error->message();
  EXPECT_TRUE(contains(sink.error->message(), "ENHANCE_YOUR_CALM")) << sink.error->message();
  EXPECT_TRUE(session.finished());
}

// SETTINGS, PING and GOAWAY belong on stream 0; sent on a stream they still end the
// whole connection, and the message says so (not "the stream was reset").
TEST_F(FaultMatrixH2Session, PingOnARequestStreamClosesTheConnectionSayingWhy) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get("/ping"), sink);
  pump();
  peer.send_raw(test::h2_frame(NGHTTP2_PING, 0, stream_id, std::string(8, '\0')));
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(sink.error->code(), ErrorCode::http2_framing);  // curl's 16
  EXPECT_EQ(sink.error->message(),
            "HTTP/2: server sent an invalid PING frame: sent on stream " +
                std::to_string(stream_id) +
                "; it must be on stream 0 (PROTOCOL_ERROR); the connection was closed");
  EXPECT_TRUE(session.finished());
}

// sluice turns server push off in its SETTINGS; a PUSH_PROMISE anyway ends the
// connection (RFC 9113 section 8.4).
TEST_F(FaultMatrixH2Session, PushPromiseAfterPushWasTurnedOffClosesTheConnection) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get("/push"), sink);
  pump();
  peer.respond(stream_id, 200);
  pump();
  // Promised stream 2, with an empty header block fragment.
  peer.send_raw(test::h2_frame(NGHTTP2_PUSH_PROMISE, NGHTTP2_FLAG_END_HEADERS, stream_id,
                               std::string("\x00\x00\x00\x02", 4)));
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(sink.error->message(), "PUSH_PROMISE frame: server push on stream " +
                                                  std::to_string(stream_id) +
                                                  ", which sluice turned off"))
      << sink.error->message();
  EXPECT_TRUE(contains(sink.error->message(), "the connection was closed"))
      << sink.error->message();
  EXPECT_FALSE(sink.completed);
  EXPECT_TRUE(session.finished());
}

}  // namespace
}  // namespace sluice
