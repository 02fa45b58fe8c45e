// What H2Session and H3Session do alike, written once: one typed test over HTTP/2
// (H2Session against the in-memory nghttp2 server) and HTTP/3 (H3Session against the
// in-memory nghttp3 server and fake QUIC transport), through the H2Side and H3Side
// adapters of support/session_sides.hpp. A scenario belongs here when both protocols
// promise the same behaviour through the exchange seam (connection/exchange.hpp): what a sink
// hears, what the server receives, which stream a failure ends and whether it is safe
// to retry, and how a reader's mark holds a stream (mux/stream_credit.hpp). Where the
// wire differs (error codes, the stream a GOAWAY names, the message prefix) the side
// says it. What only one protocol has (frames, SETTINGS, PING, padding, CONTINUATION,
// QPACK, STOP_SENDING, acknowledgements, nghttp2's or nghttp3's own error texts) stays
// in tests/unit/http2 and tests/unit/http3.
//
// It lives in tests/unit/mux, beside stream_credit_sessions_test.cpp, as the contract
// lives in src/mux: what the two protocols' sessions share. Filed under http2/ or
// http3/, one protocol's folder would hold the other's tests. No clock moves: every
// pump moves bytes until nothing moves.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/session_sides.hpp"

namespace sluice {
namespace {

using test::pattern;
using test::RecordingSink;
using test::ScriptedBody;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kMark = 256 * kKiB;  // RecordingSink's and ExchangeRequest's default
// The manual clock never moves, so every reader looks prompt and its allowance would
// grow each step: tests of credit and holding fix the allowance at the mark instead.
ExchangeRequest fixed(ExchangeRequest request) {
  request.allowance = BodyAllowance{kMark, kMark};
  return request;
}

template <class Side>
class MultiplexedSessions : public ::testing::Test {
 protected:
  // "HTTP/2: " + what: the message of the session's own errors.
  static std::string message(const std::string& what) {
    return std::string(Side::kProtocol) + ": " + what;
  }
  static std::string stream_name(std::int64_t id) { return "stream " + std::to_string(id); }
};

using Sides = ::testing::Types<test::H2Side, test::H3Side>;
TYPED_TEST_SUITE(MultiplexedSessions, Sides, test::SideName);

// --- Exchanges -----------------------------------------------------------------

TYPED_TEST(MultiplexedSessions, AGetDeliversHeadBodyAndTrailers) {
  TypeParam side;
  RecordingSink sink;
  ExchangeRequest request = side.get("/path?q=1");
  request.headers = {{"Accept", "text/plain"}, {"Connection", "keep-alive"}, {"TE", "trailers"}};
  const std::int64_t id = side.submit(std::move(request), sink);
  side.pump();

  const auto* received = side.request(id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "GET");
  EXPECT_EQ(received->headers.get(":scheme"), "https");
  EXPECT_EQ(received->headers.get(":authority"), "example.test");
  EXPECT_EQ(received->headers.get(":path"), "/path?q=1");
  EXPECT_EQ(received->headers.get("accept"), "text/plain");
  EXPECT_EQ(received->headers.get("te"), "trailers");
  EXPECT_FALSE(received->headers.contains("connection"));
  EXPECT_TRUE(received->ended);
  EXPECT_FALSE(side.closed(id));  // open until the response ends

  side.respond(id, 200, {{"x-answer", "42"}});
  side.send_body(id, "hello, ", false);
  side.pump();
  side.send_body(id, "world", false);
  side.send_trailers(id, {{"x-checksum", "abc"}});
  side.pump();

  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 200);
  EXPECT_EQ(sink.head->headers.get("x-answer"), "42");
  EXPECT_EQ(sink.body, "hello, world");
  ASSERT_TRUE(sink.trailers.has_value());
  EXPECT_EQ(sink.trailers->get("x-checksum"), "abc");
  EXPECT_TRUE(sink.completed);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(side.session().open_streams(), 0u);
  EXPECT_EQ(side.session().streams_ended(), 1u);
  EXPECT_TRUE(side.closed(id));
  EXPECT_TRUE(side.traced(side.tag(id) + "GET /path?q=1"));
  EXPECT_TRUE(side.traced(side.tag(id) + "response 200"));
  EXPECT_FALSE(side.failed());
}

TYPED_TEST(MultiplexedSessions, AResponseWithoutABodyCompletes) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond(id, 204, {}, true);
  side.pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 204);
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "");
}

TYPED_TEST(MultiplexedSessions, InterimResponsesAreSkipped) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  side.send_interim(id, 103);
  side.pump();
  EXPECT_FALSE(sink.head.has_value());
  EXPECT_TRUE(side.traced(side.tag(id) + "interim response 103"));
  side.respond(id, 200);
  side.send_body(id, "final", true);
  side.pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 200);
  EXPECT_EQ(sink.body, "final");
  EXPECT_TRUE(sink.completed);
}

TYPED_TEST(MultiplexedSessions, ManyConcurrentStreamsInterleave) {
  constexpr int kStreams = 24;
  TypeParam side;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < kStreams; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    ids.push_back(side.submit(side.get("/item/" + std::to_string(i)), *sinks.back()));
  }
  EXPECT_EQ(side.session().open_streams(), static_cast<std::size_t>(kStreams));
  side.pump();
  ASSERT_EQ(side.requests_received(), static_cast<std::size_t>(kStreams));
  for (int i = 0; i < kStreams; ++i) side.respond(ids[i], 200);
  // Three rounds of pieces, every stream a piece per round.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kStreams; ++i) {
      side.send_body(ids[i], pattern(10 * kKiB + i, static_cast<char>('a' + round)), round == 2);
    }
    side.pump();
  }
  for (int i = 0; i < kStreams; ++i) {
    const std::string expected =
        pattern(10 * kKiB + i, 'a') + pattern(10 * kKiB + i, 'b') + pattern(10 * kKiB + i, 'c');
    EXPECT_TRUE(sinks[i]->body == expected) << "stream " << ids[i];
    EXPECT_TRUE(sinks[i]->completed);
    EXPECT_TRUE(side.closed(ids[i]));
  }
  EXPECT_EQ(side.session().open_streams(), 0u);
}

TYPED_TEST(MultiplexedSessions, ASubmitFromInsideAnEventIsSentAfterwards) {
  TypeParam side;
  RecordingSink first;
  RecordingSink second;
  std::int64_t second_id = -1;
  first.on_end = [&] { second_id = side.submit(side.get("/next"), second); };
  const std::int64_t first_id = side.submit(side.get("/first"), first);
  side.pump();
  side.respond(first_id, 200, {}, true);
  side.pump();
  ASSERT_TRUE(first.completed);
  ASSERT_EQ(second_id, first_id + TypeParam::kStreamIdStep);
  const auto* received = side.request(second_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":path"), "/next");
  side.respond(second_id, 200, {}, true);
  side.pump();
  EXPECT_TRUE(second.completed);
}

// --- The server ends a stream --------------------------------------------------

TYPED_TEST(MultiplexedSessions, AResetByTheServerFailsTheStreamNamingTheCode) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond(id, 200);
  side.send_body(id, "partial", false);
  side.pump();
  side.reset(id, TypeParam::kInternal);
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), this->message(this->stream_name(id) + " reset by server (" +
                                                 std::string(TypeParam::kInternal.name) + ")"));
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_FALSE(sink.unprocessed) << "only a refusal and GOAWAY promise no processing";
  EXPECT_EQ(sink.body, "partial");
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_TRUE(side.closed(id));
  EXPECT_EQ(side.session().open_streams(), 0u);
}

// REFUSED_STREAM (RFC 9113 8.7) and H3_REQUEST_REJECTED (RFC 9114 4.1.1) say the
// server did not process the request: safe to send again.
TYPED_TEST(MultiplexedSessions, ARefusedStreamIsUnprocessed) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  side.reset(id, TypeParam::kRefused);
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(sink.unprocessed);
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(sink.error->message(), this->message(this->stream_name(id) + " reset by server (" +
                                                 std::string(TypeParam::kRefused.name) + ")"));
  EXPECT_FALSE(sink.completed);
  EXPECT_TRUE(side.closed(id));
  EXPECT_TRUE(side.traced(side.tag(id) + std::string(TypeParam::kResetFrame) + " received (" +
                          std::string(TypeParam::kRefused.name) + ")"));
}

TYPED_TEST(MultiplexedSessions, GoawayFailsTheStreamsAfterItAsUnprocessedAndFinishesTheOthers) {
  TypeParam side;
  RecordingSink kept[2];
  RecordingSink dropped[2];
  const std::int64_t kept_ids[2] = {side.submit(side.get("/1"), kept[0]),
                                    side.submit(side.get("/2"), kept[1])};
  const std::int64_t dropped_ids[2] = {side.submit(side.get("/3"), dropped[0]),
                                       side.submit(side.get("/4"), dropped[1])};
  side.pump();
  EXPECT_FALSE(side.session().served_before_refusal().has_value());
  side.goaway_after(kept_ids[1]);
  side.pump();
  EXPECT_TRUE(side.session().goaway_received());
  EXPECT_EQ(side.session().available_streams(), 0u);
  // How many the server took before refusing: the pool learns the origin's
  // per-connection request limit from it.
  EXPECT_EQ(side.session().served_before_refusal(), std::optional<std::size_t>(2));
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(dropped[i].error.has_value());
    EXPECT_TRUE(dropped[i].unprocessed);
    EXPECT_EQ(dropped[i].error->category(), ErrorCategory::protocol);
    EXPECT_EQ(dropped[i].error->message(),
              this->message("GOAWAY: server sent GOAWAY before processing the request on " +
                            this->stream_name(dropped_ids[i]) +
                            " (it was not processed: safe to send again)"));
    EXPECT_FALSE(kept[i].error.has_value());
  }

  RecordingSink late;
  ExchangeRequest request = side.get("/late");
  auto refused = side.session().submit(request, late);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.error().message().starts_with(this->message("GOAWAY")))
      << refused.error().message();
  EXPECT_FALSE(late.error.has_value());  // the caller reports a refused submit

  for (int i = 0; i < 2; ++i) {
    side.respond(kept_ids[i], 200);
    side.send_body(kept_ids[i], "still served " + std::to_string(i), true);
  }
  side.pump();
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(kept[i].completed);
    EXPECT_EQ(kept[i].body, "still served " + std::to_string(i));
    EXPECT_FALSE(kept[i].unprocessed);
  }
  EXPECT_TRUE(side.session().finished());
}

// A GOAWAY that keeps every stream sent (a graceful restart) refuses nothing, and
// so says nothing about how many requests the server takes on a connection.
TYPED_TEST(MultiplexedSessions, GoawayKeepingEveryStreamSaysNothingAboutALimit) {
  TypeParam side;
  RecordingSink kept;
  const std::int64_t kept_id = side.submit(side.get("/1"), kept);
  side.pump();
  side.goaway_after(kept_id);
  side.pump();
  EXPECT_TRUE(side.session().goaway_received());
  EXPECT_FALSE(kept.error.has_value());
  EXPECT_FALSE(side.session().served_before_refusal().has_value());
}

// Submitted after the server sent GOAWAY and before the client read it: the request
// crosses the GOAWAY, the server ignores it, and it fails as safe to retry.
TYPED_TEST(MultiplexedSessions, GoawayFailsARequestSubmittedBeforeItWasRead) {
  TypeParam side;
  RecordingSink sent;
  const std::int64_t id = side.open(sent);
  side.pump();
  side.goaway_after(id);
  RecordingSink crossing;
  side.submit(side.get("/crossing"), crossing);
  side.pump();
  ASSERT_TRUE(crossing.error.has_value());
  EXPECT_TRUE(crossing.error->message().starts_with(this->message("GOAWAY")))
      << crossing.error->message();
  EXPECT_TRUE(crossing.unprocessed);
  EXPECT_FALSE(sent.error.has_value());
}

TYPED_TEST(MultiplexedSessions, AHeaderBlockOverTheRequestLimitFailsOnlyThatStream) {
  TypeParam side;
  RecordingSink sink;
  ExchangeRequest request = side.get();
  request.max_header_bytes = 16 * kKiB;
  const std::int64_t id = side.submit(std::move(request), sink);
  side.pump();
  Headers huge;
  for (int i = 0; i < 8; ++i) huge.add("x-filler-" + std::to_string(i), pattern(4 * kKiB));
  side.respond(id, 200, huge);
  side.send_body(id, "body", true);
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large);
  EXPECT_EQ(sink.error->message(), this->message("response header block from server exceeds the "
                                                 "limit of 16384 bytes (max_header_bytes)"));
  EXPECT_FALSE(sink.head.has_value());
  EXPECT_FALSE(side.failed());
  EXPECT_EQ(side.client_reset(id), TypeParam::kTooLarge.value);

  // The connection goes on: its header compression stayed in step.
  RecordingSink next;
  const std::int64_t next_id = side.submit(side.get("/next"), next);
  side.pump();
  side.respond(next_id, 200, {{"x-after", "yes"}}, true);
  side.pump();
  ASSERT_TRUE(next.head.has_value());
  EXPECT_EQ(next.head->headers.get("x-after"), "yes");
  EXPECT_TRUE(next.completed);
}

TYPED_TEST(MultiplexedSessions, ABodyShortOfItsContentLengthFailsOnlyThatStream) {
  TypeParam side;
  RecordingSink short_body;
  RecordingSink sibling;
  const std::int64_t short_id = side.submit(side.get("/short"), short_body);
  const std::int64_t sibling_id = side.submit(side.get("/sibling"), sibling);
  side.pump();
  side.respond(short_id, 200, {{"content-length", "10"}});
  side.send_body(short_id, "12345", true);
  side.pump();
  ASSERT_TRUE(short_body.error.has_value());
  EXPECT_FALSE(short_body.completed);
  EXPECT_EQ(short_body.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(short_body.error->message(),
            this->message("response body on " + this->stream_name(short_id) +
                          " does not match its content-length (10 bytes declared, 5 received "
                          "before the server ended or overran it); the stream was reset"));
  EXPECT_EQ(side.client_reset(short_id), TypeParam::kMalformed.value);

  side.respond(sibling_id, 200);
  side.send_body(sibling_id, "fine", true);
  side.pump();
  EXPECT_TRUE(sibling.completed);
  EXPECT_FALSE(side.failed());
}

TYPED_TEST(MultiplexedSessions, ABodyLongerThanItsContentLengthFails) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  side.respond(id, 200, {{"content-length", "3"}});
  side.send_body(id, "too long", true);
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(sink.error->message().starts_with(
      this->message("response body on " + this->stream_name(id) +
                    " does not match its content-length (3 bytes declared, ")))
      << sink.error->message();
  EXPECT_FALSE(sink.completed);
}

// --- The client ends a stream --------------------------------------------------

TYPED_TEST(MultiplexedSessions, CancelResetsOnlyThatStreamAndTheSiblingContinues) {
  TypeParam side;
  RecordingSink cancelled;
  RecordingSink sibling;
  const std::int64_t cancelled_id = side.submit(side.get("/cancel"), cancelled);
  const std::int64_t sibling_id = side.submit(side.get("/sibling"), sibling);
  side.pump();
  side.respond(cancelled_id, 200);
  side.respond(sibling_id, 200);
  side.send_body(cancelled_id, pattern(100 * kKiB), false);
  side.send_body(sibling_id, pattern(50 * kKiB), false);
  side.pump();

  ASSERT_EQ(side.session().open_streams(), 2u);
  const std::string before_cancel = cancelled.body;
  side.cancel(cancelled_id);
  EXPECT_EQ(side.session().open_streams(), 1u);  // the exchange ended at once
  side.send_body(sibling_id, pattern(50 * kKiB), true);
  side.pump();

  EXPECT_EQ(side.client_reset(cancelled_id), TypeParam::kCancel.value);
  EXPECT_FALSE(cancelled.error.has_value());
  EXPECT_FALSE(cancelled.completed);
  EXPECT_EQ(cancelled.events_after_end, 0);
  EXPECT_TRUE(cancelled.body == before_cancel) << "body after the cancel";
  EXPECT_TRUE(sibling.completed);
  EXPECT_TRUE(sibling.body == pattern(50 * kKiB) + pattern(50 * kKiB));
  EXPECT_TRUE(side.closed(cancelled_id));
  EXPECT_EQ(side.session().open_streams(), 0u);
  EXPECT_FALSE(side.failed());
}

TYPED_TEST(MultiplexedSessions, CancelFromInsideTheBodyEventStopsAllEvents) {
  TypeParam side;
  RecordingSink sink;
  const std::int64_t id = side.open(sink);
  side.pump();
  sink.after_body = [&] { side.cancel(id); };
  side.respond(id, 200);
  side.send_body(id, pattern(200 * kKiB), true);
  side.pump();
  // The first piece's body bytes (a DATA frame, a packet).
  EXPECT_GT(sink.body.size(), 0u);
  EXPECT_LE(sink.body.size(), 16 * kKiB);
  EXPECT_EQ(sink.body, pattern(200 * kKiB).substr(0, sink.body.size()));
  EXPECT_FALSE(sink.completed);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(side.client_reset(id), TypeParam::kCancel.value);
  EXPECT_TRUE(side.closed(id));
  EXPECT_FALSE(side.failed());
}

TYPED_TEST(MultiplexedSessions, FailAllReportsTheErrorOnce) {
  TypeParam side;
  RecordingSink sink;
  side.open(sink);
  side.pump();
  side.session().fail_all(Error(ErrorCategory::timeout, "gone"));
  side.session().fail_all(Error(ErrorCategory::timeout, "gone again"));
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "gone");
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(side.session().available_streams(), 0u);
}

// --- Request bodies ------------------------------------------------------------

TYPED_TEST(MultiplexedSessions, ARequestBodyOfKnownLengthGoesAsItsSourceProvidesIt) {
  TypeParam side;
  ScriptedBody body(10);
  RecordingSink sink;
  const std::int64_t id = side.submit(side.post(body), sink);
  side.pump();
  const auto* received = side.request(id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "POST");
  EXPECT_EQ(received->headers.get("content-length"), "10");
  EXPECT_TRUE(received->head_received);
  EXPECT_EQ(received->body, "");
  EXPECT_FALSE(received->ended);

  const int writes_before = side.writes_requested();
  body.provide("hello", false);
  EXPECT_EQ(side.writes_requested(), writes_before + 1);  // the waker asked for a write
  side.pump();
  EXPECT_EQ(received->body, "hello");
  EXPECT_FALSE(received->ended);

  body.provide("world", true);
  side.pump();
  EXPECT_EQ(received->body, "helloworld");
  EXPECT_TRUE(received->ended);
  EXPECT_EQ(body.taken(), 10u);

  side.respond(id, 201, {}, true);
  side.pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.head->status, 201);
}

TYPED_TEST(MultiplexedSessions, AStreamedRequestBodyWaitsForItsSourceAndEndsWithoutALength) {
  TypeParam side;
  ScriptedBody body;  // no length
  RecordingSink sink;
  const std::int64_t id = side.submit(side.post(body), sink);
  side.pump();
  const auto* received = side.request(id);
  ASSERT_NE(received, nullptr);
  EXPECT_TRUE(received->head_received);
  EXPECT_FALSE(received->headers.contains("content-length"));
  EXPECT_EQ(received->body, "");
  EXPECT_FALSE(received->ended);

  const int writes_before = side.writes_requested();
  const int peeks_before = body.peeks();
  body.provide("first part, ", false);
  EXPECT_EQ(side.writes_requested(), writes_before + 1);  // the waker asked for a write
  side.pump();
  EXPECT_EQ(received->body, "first part, ");
  EXPECT_FALSE(received->ended);
  side.pump();
  EXPECT_LE(body.peeks(), peeks_before + 3);  // waiting is no busy loop

  body.provide(pattern(100 * kKiB), false);
  side.pump();
  body.provide("tail", true);
  side.pump();
  EXPECT_TRUE(received->body == "first part, " + pattern(100 * kKiB) + "tail");
  EXPECT_TRUE(received->ended);
  side.respond(id, 200, {}, true);
  side.pump();
  EXPECT_TRUE(sink.completed);
}

TYPED_TEST(MultiplexedSessions, AFailingRequestBodyResetsTheStreamWithItsError) {
  TypeParam side;
  ScriptedBody body;
  RecordingSink sink;
  const std::int64_t id = side.submit(side.post(body), sink);
  side.pump();
  body.provide("some", false);
  side.pump();
  body.fail(Error(ErrorCategory::io, "upload file: read failed: Input/output error"));
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "upload file: read failed: Input/output error");
  EXPECT_EQ(side.client_reset(id), TypeParam::kBodyFailed.value);
  EXPECT_TRUE(side.closed(id));
  EXPECT_EQ(side.session().open_streams(), 0u);
}

TYPED_TEST(MultiplexedSessions, ARequestBodyShortOfItsLengthFails) {
  TypeParam side;
  ScriptedBody body(10);
  RecordingSink sink;
  side.submit(side.post(body), sink);
  body.provide("short", true);
  side.pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), this->message("the request body ended after 5 of its 10 bytes"));
}

TYPED_TEST(MultiplexedSessions, AResponseBeforeTheBodyEndsStopsTheUpload) {
  TypeParam side;
  ScriptedBody body;
  RecordingSink sink;
  const std::int64_t id = side.submit(side.post(body), sink);
  body.provide("partial upload", false);
  side.pump();
  side.respond(id, 413, {}, true);
  side.pump();
  ASSERT_TRUE(sink.head.has_value());
  EXPECT_EQ(sink.head->status, 413);
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(side.client_reset(id), TypeParam::kCancel.value);
  const int peeks = body.peeks();
  body.provide("more that nobody reads", true);  // the stale waker is harmless
  side.pump();
  EXPECT_EQ(body.peeks(), peeks);
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_TRUE(side.closed(id));
}

// --- A reader's mark holds its stream ------------------------------------------

TYPED_TEST(MultiplexedSessions, AHeldStreamStaysAtItsMarkWhileASiblingCompletes) {
  TypeParam side;
  RecordingSink held;
  held.hold();
  RecordingSink sibling;
  const std::int64_t held_id = side.submit(fixed(side.get("/held")), held);
  const std::int64_t sibling_id = side.submit(side.get("/sibling"), sibling);
  side.pump();
  EXPECT_EQ(side.server_room(held_id), kMark);
  const std::string held_body = pattern(1 * kMiB, 'h');
  const std::string sibling_body = pattern(4 * kMiB, 's');
  side.respond(held_id, 200);
  side.respond(sibling_id, 200);
  side.send_body(held_id, held_body, true);
  side.send_body(sibling_id, sibling_body, true);
  side.pump();

  EXPECT_TRUE(sibling.completed);
  EXPECT_TRUE(sibling.body == sibling_body);
  EXPECT_EQ(held.body.size(), kMark);  // exactly its mark
  EXPECT_EQ(side.server_room(held_id), 0u);
  EXPECT_FALSE(held.wants_body());
  EXPECT_EQ(side.trace_count(side.credit_trace(held_id)), 0);
  EXPECT_TRUE(side.traced(side.tag(held_id) + "paused"));

  // The consumer takes everything it holds, a piece at a time, and posts a resume
  // when it falls below half its mark.
  for (int round = 0; round < 1000 && !held.completed; ++round) {
    if (held.take(64 * kKiB)) side.resume(held_id);
    side.pump();
  }
  EXPECT_TRUE(held.completed);
  EXPECT_TRUE(held.body == held_body);
  EXPECT_TRUE(side.traced(side.tag(held_id) + "resumed"));
  EXPECT_GT(side.trace_count(side.credit_trace(held_id)), 0);
}

// A consumer that keeps up partly while bytes arrive (a quarter of them) and then
// reads slowly: it stays below its mark, so the staging buffer never turns Paused and
// never posts a resume. The stream must not stay without window.
TYPED_TEST(MultiplexedSessions, ASlowReaderBelowItsMarkNeverStalls) {
  TypeParam side;
  RecordingSink slow;
  slow.hold();
  const std::int64_t id = side.submit(fixed(side.get("/slow")), slow);
  side.pump();
  std::size_t most_held = 0;
  slow.after_body = [&] {
    most_held = std::max(most_held, slow.held_bytes());
    const std::size_t taken = slow.body.size() - slow.held_bytes();
    if (slow.take(slow.body.size() / 4 - std::min(taken, slow.body.size() / 4))) side.resume(id);
  };
  const std::string body = pattern(2 * kMiB, 'q');
  side.respond(id, 200);
  side.send_body(id, body, true);
  for (int round = 0; round < 4000 && !slow.completed; ++round) {
    side.pump();
    if (slow.take(8 * kKiB)) side.resume(id);
  }
  EXPECT_TRUE(slow.completed) << "stalled at " << slow.body.size() << " bytes, holding "
                              << slow.held_bytes();
  EXPECT_TRUE(slow.body == body);
  EXPECT_LE(most_held, kMark);  // never above the mark
}

// Takes a third of what it holds after every delivery: a steady slow reader.
TYPED_TEST(MultiplexedSessions, ASteadySlowReaderCompletes) {
  TypeParam side;
  RecordingSink slow;
  slow.hold();
  const std::int64_t id = side.submit(side.get("/steady"), slow);
  side.pump();
  slow.after_body = [&] {
    if (slow.take(slow.held_bytes() / 3)) side.resume(id);
  };
  const std::string body = pattern(2 * kMiB, 'r');
  side.respond(id, 200);
  side.send_body(id, body, true);
  for (int round = 0; round < 4000 && !slow.completed; ++round) {
    side.pump();
    if (slow.take(8 * kKiB)) side.resume(id);
  }
  EXPECT_TRUE(slow.completed) << "stalled at " << slow.body.size() << " bytes";
  EXPECT_TRUE(slow.body == body);
}

TYPED_TEST(MultiplexedSessions, ALargerMarkOpensALargerStreamWindow) {
  TypeParam side;
  RecordingSink held(1 * kMiB);
  held.hold();
  ExchangeRequest request = side.get("/big");
  request.allowance = {1 * kMiB, 1 * kMiB};
  const std::int64_t id = side.submit(std::move(request), held);
  side.pump();
  side.respond(id, 200);
  side.send_body(id, pattern(3 * kMiB), true);
  side.pump();
  EXPECT_EQ(held.body.size(), 1 * kMiB);
  EXPECT_EQ(side.server_room(id), 0u);
}

}  // namespace
}  // namespace sluice
