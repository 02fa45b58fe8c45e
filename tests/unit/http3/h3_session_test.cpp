// What only H3Session does: the client cancels the request streams a GOAWAY left
// unprocessed and shuts a cancelled stream down inside cancel_stream, nghttp3's
// checks of response fields, MAX_STREAMS, and no requests before the handshake. The
// scenarios it shares with H2Session run over both in
// tests/unit/mux/multiplexed_sessions_test.cpp.

#include "http3/h3_session.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::RecordingSink;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A client session and an in-memory HTTP/3 server, wired by pump().
class H3SessionTest : public ::testing::Test, protected test::H3ClientHarness {
 protected:
  explicit H3SessionTest(H3PeerOptions options = {}) : H3ClientHarness(options) {}
};

// RFC 9114 5.2: the streams at and above the GOAWAY's id were not processed; the
// client cancels them instead of waiting for the server to.
TEST_F(H3SessionTest, GoawayCancelsTheStreamsItLeftUnprocessed) {
  RecordingSink kept;
  RecordingSink at;
  RecordingSink above;
  const std::int64_t kept_id = submit(get("/1"), kept);
  const std::int64_t at_id = submit(get("/2"), at);
  const std::int64_t above_id = submit(get("/3"), above);
  pump();
  peer.goaway(at_id);
  pump();
  ASSERT_TRUE(at.unprocessed);
  ASSERT_TRUE(above.unprocessed);
  EXPECT_EQ(peer.client_reset(at_id), NGHTTP3_H3_REQUEST_CANCELLED);
  EXPECT_EQ(peer.client_reset(above_id), NGHTTP3_H3_REQUEST_CANCELLED);
  EXPECT_EQ(peer.client_reset(kept_id), std::nullopt);
  EXPECT_TRUE(traced("c1 h3: GOAWAY received: streams from 4 were not processed"));
}

// The QUIC stream is shut down inside cancel_stream, before any pump.
TEST_F(H3SessionTest, CancelShutsTheStreamDownAtOnce) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200);
  pump();
  session.cancel_stream(stream_id);
  EXPECT_EQ(peer.client_reset(stream_id), NGHTTP3_H3_REQUEST_CANCELLED);
  EXPECT_EQ(session.open_streams(), 0u);
}

// nghttp3 lowercases the names a server sends, so the broken field is one HTTP/3
// forbids outright.
TEST_F(H3SessionTest, InvalidResponseHeaderFailsTheStream) {
  RecordingSink sink;
  RecordingSink sibling;
  const std::int64_t stream_id = submit(get(), sink);
  const std::int64_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  peer.respond(stream_id, 200, {{"transfer-encoding", "chunked"}});
  peer.send_body(stream_id, "body", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(),
            "HTTP/3: malformed response header block from server on stream 0 (H3_MESSAGE_ERROR); "
            "the stream was reset");
  EXPECT_FALSE(sink.head.has_value());
  EXPECT_EQ(peer.client_reset(stream_id), NGHTTP3_H3_MESSAGE_ERROR);
  EXPECT_TRUE(peer.closed(stream_id));
  peer.respond(sibling_id, 200, {}, true);
  pump();
  EXPECT_TRUE(sibling.completed);
  EXPECT_TRUE(pump_errors.empty());
}

TEST_F(H3SessionTest, RequestPseudoHeaderInAResponseFailsTheStream) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200, {{":path", "/not-in-a-response"}}, true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(contains(sink.error->message(), "malformed response header block"))
      << sink.error->message();
  EXPECT_FALSE(sink.completed);
}

TEST_F(H3SessionTest, StreamLimitIsTheAvailableCount) {
  H3ClientHarness limited(H3PeerOptions{.max_bidi_streams = 2});
  EXPECT_EQ(limited.session.available_streams(), 2u);
  RecordingSink one;
  RecordingSink two;
  RecordingSink three;
  limited.submit(get("/1"), one);
  limited.submit(get("/2"), two);
  EXPECT_EQ(limited.session.available_streams(), 0u);
  ExchangeRequest request = get("/3");
  EXPECT_FALSE(limited.session.submit(request, three).ok());
  const int changes_before = limited.changes;
  limited.peer.raise_stream_limit(1);
  limited.pump();
  EXPECT_EQ(limited.session.available_streams(), 1u);
  EXPECT_GT(limited.changes, changes_before);
}

TEST(H3SessionSetupTest, SubmitBeforeTheHandshakeFails) {
  Trace trace;
  test::ManualClock clock;
  H3Session session(trace, 7, clock);
  RecordingSink sink;
  ExchangeRequest request = test::H3ClientHarness::get();
  auto submitted = session.submit(request, sink);
  ASSERT_FALSE(submitted.ok());
  EXPECT_TRUE(contains(submitted.error().message(), "handshake")) << submitted.error().message();
  EXPECT_EQ(session.available_streams(), 0u);
  EXPECT_FALSE(sink.error.has_value());
}

}  // namespace
}  // namespace sluice
