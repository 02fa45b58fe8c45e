#include "http2/h2_session.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "support/h2_test_peer.hpp"

namespace sluice {
namespace {

using test::H2PeerOptions;
using test::H2TestPeer;
using test::RecordingSink;
using test::ScriptedBody;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

std::string pattern(std::size_t size, char seed = 'a') {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>(seed + i % 23);
  return text;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A client session and an in-memory server, wired by pump().
class H2SessionTest : public ::testing::Test, protected test::H2ClientHarness {
 protected:
  explicit H2SessionTest(H2PeerOptions options = {}) : H2ClientHarness(std::move(options)) {}
};

TEST_F(H2SessionTest, GetDeliversHeadBodyAndTrailers) {
  RecordingSink sink;
  ExchangeRequest request = get("/path?q=1");
  request.headers = {{"Accept", "text/plain"}, {"Connection", "keep-alive"}};
  const std::int32_t stream_id = submit(std::move(request), sink);
  pump();

  const auto* received = peer.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "GET");
  EXPECT_EQ(received->headers.get(":scheme"), "https");
  EXPECT_EQ(received->headers.get(":authority"), "example.test");
  EXPECT_EQ(received->headers.get(":path"), "/path?q=1");
  EXPECT_EQ(received->headers.get("accept"), "text/plain");
  EXPECT_FALSE(received->headers.contains("connection"));
  EXPECT_TRUE(received->ended);

  peer.respond(stream_id, 200, {{"x-answer", "42"}});
  peer.send_body(stream_id, "hello, ", false);
  peer.send_body(stream_id, "world", false);
  peer.send_trailers(stream_id, {{"x-checksum", "abc"}});
  pump();

  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 200);
  EXPECT_EQ(sink.head->headers.get("x-answer"), "42");
  EXPECT_EQ(sink.body, "hello, world");
  ASSERT_TRUE(sink.trailers.has_value());
  EXPECT_EQ(sink.trailers->get("x-checksum"), "abc");
  EXPECT_TRUE(sink.completed);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(session.open_streams(), 0u);
  EXPECT_TRUE(traced("c1 s1 h2: GET /path?q=1"));
  EXPECT_TRUE(traced("c1 s1 h2: response 200"));
}

TEST_F(H2SessionTest, ResponseWithoutBodyCompletes) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 204, {}, true);
  pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 204);
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "");
}

TEST_F(H2SessionTest, InterimResponsesAreSkipped) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.send_interim(stream_id, 103);
  pump();
  EXPECT_FALSE(sink.head.has_value());
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "final", true);
  pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 200);
  EXPECT_EQ(sink.body, "final");
  EXPECT_TRUE(sink.completed);
}

TEST_F(H2SessionTest, ManyConcurrentStreamsInterleave) {
  constexpr int kStreams = 24;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<std::int32_t> ids;
  for (int i = 0; i < kStreams; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    ids.push_back(submit(get("/item/" + std::to_string(i)), *sinks.back()));
  }
  pump();
  ASSERT_EQ(peer.request_ids().size(), static_cast<std::size_t>(kStreams));
  for (int i = 0; i < kStreams; ++i) peer.respond(ids[i], 200);
  // Three rounds of pieces, every stream a piece per round.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kStreams; ++i) {
      peer.send_body(ids[i], pattern(10 * kKiB + i, static_cast<char>('a' + round)), round == 2);
    }
    pump();
  }
  for (int i = 0; i < kStreams; ++i) {
    const std::string expected =
        pattern(10 * kKiB + i, 'a') + pattern(10 * kKiB + i, 'b') + pattern(10 * kKiB + i, 'c');
    EXPECT_TRUE(sinks[i]->body == expected) << "stream " << ids[i];
    EXPECT_TRUE(sinks[i]->completed);
  }
  EXPECT_EQ(session.open_streams(), 0u);
}

TEST_F(H2SessionTest, ResetFromServerNamesTheCode) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "partial", false);
  pump();
  peer.reset(stream_id, NGHTTP2_REFUSED_STREAM);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(sink.error->message(), "HTTP/2: stream 1 reset by server (REFUSED_STREAM)");
  EXPECT_TRUE(sink.unprocessed) << "REFUSED_STREAM means the server did not process it";
  EXPECT_FALSE(sink.completed);
  EXPECT_TRUE(traced("RST_STREAM received (REFUSED_STREAM)"));
}

TEST_F(H2SessionTest, ResetOtherThanRefusedMayHaveBeenProcessed) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.reset(stream_id, NGHTTP2_INTERNAL_ERROR);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "HTTP/2: stream 1 reset by server (INTERNAL_ERROR)");
  EXPECT_FALSE(sink.unprocessed) << "only REFUSED_STREAM and GOAWAY promise no processing";
}

TEST_F(H2SessionTest, GoawayFailsStreamsAboveLastAndLetsLowerOnesComplete) {
  RecordingSink first;
  RecordingSink second;
  RecordingSink third;
  const std::int32_t id1 = submit(get("/1"), first);
  const std::int32_t id3 = submit(get("/3"), second);
  const std::int32_t id5 = submit(get("/5"), third);
  pump();
  ASSERT_EQ(id5, 5);
  peer.goaway(id3);
  pump();
  EXPECT_EQ(session.available_streams(), 0u);
  ASSERT_TRUE(third.error.has_value());
  EXPECT_TRUE(starts_with(third.error->message(), "HTTP/2: GOAWAY")) << third.error->message();
  EXPECT_TRUE(contains(third.error->message(), "it was not processed: safe to send again"));
  EXPECT_EQ(third.error->category(), ErrorCategory::protocol);
  EXPECT_TRUE(third.unprocessed);

  peer.respond(id1, 200);
  peer.send_body(id1, "one", true);
  peer.respond(id3, 200);
  peer.send_body(id3, "three", true);
  pump();
  EXPECT_TRUE(first.completed);
  EXPECT_EQ(first.body, "one");
  EXPECT_FALSE(first.unprocessed);
  EXPECT_TRUE(second.completed);
  EXPECT_EQ(second.body, "three");
  EXPECT_TRUE(session.finished());

  RecordingSink late;
  ExchangeRequest request = get();
  auto refused = session.submit(request, late);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(starts_with(refused.error().message(), "HTTP/2: GOAWAY"));
}

TEST_F(H2SessionTest, GoawayFailsRequestsNotYetSent) {
  RecordingSink sent;
  const std::int32_t id1 = submit(get("/1"), sent);
  pump();
  peer.goaway(id1);
  // Submitted before the GOAWAY is read: its HEADERS never leave.
  RecordingSink queued;
  submit(get("/queued"), queued);
  pump();
  ASSERT_TRUE(queued.error.has_value());
  EXPECT_TRUE(starts_with(queued.error->message(), "HTTP/2: GOAWAY")) << queued.error->message();
  EXPECT_TRUE(queued.unprocessed);
  EXPECT_FALSE(sent.error.has_value());
}

TEST_F(H2SessionTest, HeaderBlockOverTheRequestLimitFails) {
  RecordingSink sink;
  ExchangeRequest request = get();
  request.max_header_bytes = 8 * kKiB;
  const std::int32_t stream_id = submit(std::move(request), sink);
  pump();
  Headers big;
  for (int i = 0; i < 20; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  peer.respond(stream_id, 200, big);
  peer.send_body(stream_id, "body", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large);
  EXPECT_TRUE(contains(sink.error->message(), "exceeds the limit of 8192 bytes"))
      << sink.error->message();
  EXPECT_FALSE(sink.head.has_value());
}

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

TEST_F(H2SessionTest, ContentLengthMismatchIsAnError) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200, {{"content-length", "10"}});
  peer.send_body(stream_id, "12345", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_FALSE(sink.completed);
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_TRUE(contains(sink.error->message(), "does not match its content-length"))
      << sink.error->message();
  EXPECT_TRUE(contains(sink.error->message(), "10 bytes declared, 5 received"));
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

TEST_F(H2SessionTest, CancelSendsRstCancelAndTheSiblingContinues) {
  RecordingSink cancelled;
  RecordingSink sibling;
  const std::int32_t cancelled_id = submit(get("/a"), cancelled);
  const std::int32_t sibling_id = submit(get("/b"), sibling);
  pump();
  peer.respond(cancelled_id, 200);
  peer.respond(sibling_id, 200);
  peer.send_body(cancelled_id, pattern(100 * kKiB), false);
  peer.send_body(sibling_id, pattern(50 * kKiB), false);
  pump();
  session.cancel_stream(cancelled_id);
  peer.send_body(sibling_id, pattern(50 * kKiB), true);
  pump();
  const auto* request = peer.request(cancelled_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->reset_code, NGHTTP2_CANCEL);
  EXPECT_FALSE(cancelled.completed);
  EXPECT_FALSE(cancelled.error.has_value());
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body.size(), 100 * kKiB);
  EXPECT_EQ(session.open_streams(), 0u);
}

TEST_F(H2SessionTest, CancelFromInsideOnBodyStopsEvents) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  sink.after_body = [&] { session.cancel_stream(stream_id); };
  pump();
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, pattern(200 * kKiB), true);
  pump();
  EXPECT_FALSE(sink.body.empty());
  EXPECT_LT(sink.body.size(), 200 * kKiB);
  EXPECT_FALSE(sink.completed);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_EQ(peer.request(stream_id)->reset_code, NGHTTP2_CANCEL);
}

TEST_F(H2SessionTest, DeferredRequestBodyResumesWhenTheSourceHasData) {
  ScriptedBody body(10);
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  pump();
  const auto* request = peer.request(stream_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->headers.get("content-length"), "10");
  EXPECT_EQ(request->body, "");
  EXPECT_FALSE(request->ended);

  body.provide("hello", false);
  EXPECT_EQ(output_ready, 1);
  pump();
  EXPECT_EQ(request->body, "hello");
  EXPECT_FALSE(request->ended);

  body.provide("world", true);
  pump();
  EXPECT_EQ(request->body, "helloworld");
  EXPECT_TRUE(request->ended);
  EXPECT_EQ(body.taken(), 10u);

  peer.respond(stream_id, 201, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.head->status, 201);
}

TEST_F(H2SessionTest, StreamedRequestBodyEndsWithoutContentLength) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  body.provide(pattern(100 * kKiB), false);
  pump();
  body.provide("tail", true);
  pump();
  const auto* request = peer.request(stream_id);
  ASSERT_NE(request, nullptr);
  EXPECT_FALSE(request->headers.contains("content-length"));
  EXPECT_TRUE(request->body == pattern(100 * kKiB) + "tail");
  EXPECT_TRUE(request->ended);
}

TEST_F(H2SessionTest, FailingRequestBodyResetsTheStreamWithItsError) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  body.provide("some", false);
  pump();
  body.fail(Error(ErrorCategory::io, "upload file: read failed: Input/output error"));
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "upload file: read failed: Input/output error");
  EXPECT_EQ(peer.request(stream_id)->reset_code, NGHTTP2_INTERNAL_ERROR);
}

TEST_F(H2SessionTest, ResponseBeforeTheBodyEndsCancelsTheUpload) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  body.provide("start", false);
  pump();
  peer.respond(stream_id, 413, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.head->status, 413);
  body.provide("more", true);  // the stale waker must do nothing
  pump();
  EXPECT_EQ(peer.request(stream_id)->reset_code, NGHTTP2_CANCEL);
  EXPECT_EQ(sink.events_after_end, 0);
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

TEST_F(H2SessionTest, FailAllReportsTheErrorOnce) {
  RecordingSink sink;
  submit(get(), sink);
  pump();
  session.fail_all(Error(ErrorCategory::timeout, "HTTP/2: gone"));
  session.fail_all(Error(ErrorCategory::timeout, "HTTP/2: gone again"));
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "HTTP/2: gone");
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(session.available_streams(), 0u);
}

// The server's SETTINGS_INITIAL_WINDOW_SIZE of 1 lets one byte through per
// WINDOW_UPDATE; the body still goes up whole.
}  // namespace
}  // namespace sluice
