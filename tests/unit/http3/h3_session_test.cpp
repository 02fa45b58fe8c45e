#include "http3/h3_session.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::RecordingSink;

constexpr std::size_t kKiB = 1024;

std::string pattern(std::size_t size, char seed = 'a') {
  std::string text(size, '\0');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>(seed + i % 23);
  return text;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A client session and an in-memory HTTP/3 server, wired by pump().
class H3SessionTest : public ::testing::Test, protected test::H3ClientHarness {
 protected:
  explicit H3SessionTest(H3PeerOptions options = {}) : H3ClientHarness(options) {}
};

TEST_F(H3SessionTest, GetDeliversHeadBodyAndTrailers) {
  RecordingSink sink;
  ExchangeRequest request = get("/path?q=1");
  request.headers = {{"Accept", "text/plain"}, {"Connection", "keep-alive"}, {"TE", "trailers"}};
  const std::int64_t stream_id = submit(std::move(request), sink);
  pump();

  const auto* received = peer.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "GET");
  EXPECT_EQ(received->headers.get(":scheme"), "https");
  EXPECT_EQ(received->headers.get(":authority"), "example.test");
  EXPECT_EQ(received->headers.get(":path"), "/path?q=1");
  EXPECT_EQ(received->headers.get("accept"), "text/plain");
  EXPECT_EQ(received->headers.get("te"), "trailers");
  EXPECT_FALSE(received->headers.contains("connection"));
  EXPECT_TRUE(received->ended);

  peer.respond(stream_id, 200, {{"x-answer", "42"}});
  peer.send_body(stream_id, "hello, ", false);
  pump();
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
  EXPECT_EQ(session.streams_ended(), 1u);
  EXPECT_TRUE(peer.closed(stream_id));
  EXPECT_TRUE(traced("c1 s0 h3: GET /path?q=1"));
  EXPECT_TRUE(traced("c1 s0 h3: response 200"));
  EXPECT_TRUE(pump_errors.empty());
}

TEST_F(H3SessionTest, ResponseWithoutBodyCompletes) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 204, {}, true);
  pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 204);
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "");
}

TEST_F(H3SessionTest, InterimResponsesAreSkipped) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.send_interim(stream_id, 103);
  pump();
  EXPECT_FALSE(sink.head.has_value());
  EXPECT_TRUE(traced("c1 s0 h3: interim response 103"));
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "final", true);
  pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 200);
  EXPECT_EQ(sink.body, "final");
  EXPECT_TRUE(sink.completed);
}

TEST_F(H3SessionTest, ManyConcurrentStreamsInterleave) {
  constexpr int kStreams = 24;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < kStreams; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    ids.push_back(submit(get("/item/" + std::to_string(i)), *sinks.back()));
  }
  EXPECT_EQ(session.open_streams(), static_cast<std::size_t>(kStreams));
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
    EXPECT_TRUE(peer.closed(ids[i]));
  }
  EXPECT_EQ(session.open_streams(), 0u);
}

TEST_F(H3SessionTest, ResetFromServerNamesTheCode) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "partial", false);
  pump();
  peer.reset(stream_id, NGHTTP3_H3_INTERNAL_ERROR);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "HTTP/3: stream 0 reset by server (H3_INTERNAL_ERROR)");
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_FALSE(sink.unprocessed);
  EXPECT_EQ(sink.body, "partial");
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_TRUE(peer.closed(stream_id));
  EXPECT_EQ(session.open_streams(), 0u);
}

TEST_F(H3SessionTest, RequestRejectedIsUnprocessed) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.refuse(stream_id);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(sink.unprocessed);
  EXPECT_EQ(sink.error->message(), "HTTP/3: stream 0 reset by server (H3_REQUEST_REJECTED)");
  EXPECT_TRUE(peer.closed(stream_id));
}

TEST_F(H3SessionTest, GoawayFailsLaterStreamsAsUnprocessedAndFinishesEarlierOnes) {
  RecordingSink first;
  RecordingSink second;
  RecordingSink third;
  const std::int64_t first_id = submit(get("/1"), first);
  const std::int64_t second_id = submit(get("/2"), second);
  const std::int64_t third_id = submit(get("/3"), third);
  pump();
  peer.goaway(second_id);  // streams 4 and 8 were not processed
  pump();
  EXPECT_TRUE(session.goaway_received());
  EXPECT_EQ(session.available_streams(), 0u);
  for (RecordingSink* sink : {&second, &third}) {
    ASSERT_TRUE(sink->error.has_value());
    EXPECT_TRUE(sink->unprocessed);
    EXPECT_TRUE(contains(sink->error->message(), "GOAWAY")) << sink->error->message();
    EXPECT_TRUE(contains(sink->error->message(), "safe to send again"));
  }
  EXPECT_TRUE(contains(second.error->message(), "stream 4"));
  EXPECT_EQ(peer.client_reset(third_id), NGHTTP3_H3_REQUEST_CANCELLED);
  EXPECT_FALSE(first.error.has_value());

  RecordingSink late;
  ExchangeRequest request = get("/late");
  auto refused = session.submit(request, late);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(contains(refused.error().message(), "GOAWAY"));
  EXPECT_FALSE(late.error.has_value());  // the caller reports a refused submit

  peer.respond(first_id, 200);
  peer.send_body(first_id, "still served", true);
  pump();
  EXPECT_TRUE(first.completed);
  EXPECT_EQ(first.body, "still served");
  EXPECT_TRUE(session.finished());
  EXPECT_TRUE(traced("c1 h3: GOAWAY received: streams from 4 were not processed"));
}

TEST_F(H3SessionTest, CancelResetsTheStreamAndTheSiblingContinues) {
  RecordingSink cancelled;
  RecordingSink sibling;
  const std::int64_t cancelled_id = submit(get("/cancel"), cancelled);
  const std::int64_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  peer.respond(cancelled_id, 200);
  peer.respond(sibling_id, 200);
  peer.send_body(cancelled_id, "some", false);
  peer.send_body(sibling_id, "first ", false);
  pump();

  ASSERT_EQ(session.open_streams(), 2u);
  session.cancel_stream(cancelled_id);
  EXPECT_EQ(session.open_streams(), 1u);  // the exchange ended at once
  EXPECT_EQ(peer.client_reset(cancelled_id), NGHTTP3_H3_REQUEST_CANCELLED);
  peer.send_body(sibling_id, "second", true);
  pump();

  EXPECT_FALSE(cancelled.error.has_value());
  EXPECT_FALSE(cancelled.completed);
  EXPECT_EQ(cancelled.events_after_end, 0);
  EXPECT_EQ(cancelled.body, "some");
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body, "first second");
  EXPECT_TRUE(peer.closed(cancelled_id));
  EXPECT_EQ(session.open_streams(), 0u);
  EXPECT_TRUE(pump_errors.empty());
}

TEST_F(H3SessionTest, CancelFromInsideTheBodyEventStopsAllEvents) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  sink.after_body = [&] { session.cancel_stream(stream_id); };
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, pattern(100 * kKiB), true);
  pump();
  // The first packet's body bytes (it also carried the head and frame headers).
  EXPECT_GT(sink.body.size(), 0u);
  EXPECT_LT(sink.body.size(), 16 * kKiB);
  EXPECT_EQ(sink.body, pattern(100 * kKiB).substr(0, sink.body.size()));
  EXPECT_FALSE(sink.completed);
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(peer.client_reset(stream_id), NGHTTP3_H3_REQUEST_CANCELLED);
  EXPECT_TRUE(peer.closed(stream_id));
  EXPECT_TRUE(pump_errors.empty());
}

TEST_F(H3SessionTest, SubmitFromInsideAnEventIsSentAfterwards) {
  RecordingSink first;
  RecordingSink second;
  std::int64_t second_id = -1;
  first.on_end = [&] { second_id = submit(get("/next"), second); };
  const std::int64_t first_id = submit(get("/first"), first);
  pump();
  peer.respond(first_id, 200, {}, true);
  pump();
  ASSERT_TRUE(first.completed);
  ASSERT_EQ(second_id, 4);
  const auto* received = peer.request(second_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":path"), "/next");
  peer.respond(second_id, 200, {}, true);
  pump();
  EXPECT_TRUE(second.completed);
}

TEST_F(H3SessionTest, ContentLengthMismatchFailsOnlyThatStream) {
  RecordingSink short_body;
  RecordingSink sibling;
  const std::int64_t short_id = submit(get("/short"), short_body);
  const std::int64_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  peer.respond(short_id, 200, {{"content-length", "10"}});
  peer.send_body(short_id, "12345", true);
  pump();
  ASSERT_TRUE(short_body.error.has_value());
  EXPECT_EQ(short_body.error->message(),
            "HTTP/3: response body on stream 0 does not match its content-length (10 bytes "
            "declared, 5 received before the server ended or overran it); the stream was reset");
  EXPECT_EQ(peer.client_reset(short_id), NGHTTP3_H3_MESSAGE_ERROR);

  peer.respond(sibling_id, 200);
  peer.send_body(sibling_id, "fine", true);
  pump();
  EXPECT_TRUE(sibling.completed);
  EXPECT_TRUE(pump_errors.empty());
}

TEST_F(H3SessionTest, BodyLongerThanContentLengthFails) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get(), sink);
  pump();
  peer.respond(stream_id, 200, {{"content-length", "3"}});
  peer.send_body(stream_id, "too long", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(contains(sink.error->message(), "does not match its content-length (3 bytes declared"))
      << sink.error->message();
  EXPECT_FALSE(sink.completed);
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

TEST_F(H3SessionTest, HeaderBlockOverTheLimitFailsClearly) {
  RecordingSink sink;
  ExchangeRequest request = get();
  request.max_header_bytes = 16 * kKiB;
  const std::int64_t stream_id = submit(std::move(request), sink);
  pump();
  Headers huge;
  for (int i = 0; i < 8; ++i) huge.add("x-filler-" + std::to_string(i), pattern(4 * kKiB));
  peer.respond(stream_id, 200, huge);
  peer.send_body(stream_id, "body", true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large);
  EXPECT_EQ(sink.error->message(),
            "HTTP/3: response header block from server exceeds the limit of 16384 bytes "
            "(max_header_bytes)");
  EXPECT_EQ(peer.client_reset(stream_id), NGHTTP3_H3_EXCESSIVE_LOAD);
  EXPECT_TRUE(pump_errors.empty());

  // The connection is fine: QPACK stayed in step.
  RecordingSink next;
  const std::int64_t next_id = submit(get("/next"), next);
  pump();
  peer.respond(next_id, 200, {{"x-after", "yes"}}, true);
  pump();
  ASSERT_TRUE(next.head.has_value());
  EXPECT_EQ(next.head->headers.get("x-after"), "yes");
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
