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
class H2SessionTest : public ::testing::Test {
 protected:
  explicit H2SessionTest(H2PeerOptions options = {})
      : trace_([this](std::string_view line) { lines_.emplace_back(line); }),
        peer_(std::move(options)),
        session_([this] { ++output_ready_; }, trace_, 1) {}

  static ExchangeRequest get(std::string target = "/") {
    ExchangeRequest request;
    request.method = "GET";
    request.scheme = "https";
    request.authority = "example.test";
    request.target = std::move(target);
    return request;
  }

  static ExchangeRequest post(RequestBodySource& body) {
    ExchangeRequest request = get("/upload");
    request.method = "POST";
    request.body = &body;
    return request;
  }

  std::int32_t submit(ExchangeRequest request, ExchangeSink& sink) {
    auto stream_id = session_.submit(request, sink);
    EXPECT_TRUE(stream_id.ok()) << (stream_id.ok() ? "" : stream_id.error().message());
    return stream_id.ok() ? *stream_id : 0;
  }

  void pump() {
    auto error = test::pump(session_, peer_);
    if (error) pump_errors_.push_back(*error);
    EXPECT_EQ(peer_.error(), "");
  }

  bool traced(const std::string& part) const {
    for (const auto& line : lines_) {
      if (contains(line, part)) return true;
    }
    return false;
  }

  std::vector<std::string> lines_;
  Trace trace_;
  H2TestPeer peer_;
  H2Session session_;
  int output_ready_ = 0;
  std::vector<Error> pump_errors_;
};

TEST_F(H2SessionTest, GetDeliversHeadBodyAndTrailers) {
  RecordingSink sink;
  ExchangeRequest request = get("/path?q=1");
  request.headers = {{"Accept", "text/plain"}, {"Connection", "keep-alive"}};
  const std::int32_t stream_id = submit(std::move(request), sink);
  pump();

  const auto* received = peer_.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "GET");
  EXPECT_EQ(received->headers.get(":scheme"), "https");
  EXPECT_EQ(received->headers.get(":authority"), "example.test");
  EXPECT_EQ(received->headers.get(":path"), "/path?q=1");
  EXPECT_EQ(received->headers.get("accept"), "text/plain");
  EXPECT_FALSE(received->headers.contains("connection"));
  EXPECT_TRUE(received->ended);

  peer_.respond(stream_id, 200, {{"x-answer", "42"}});
  peer_.send_body(stream_id, "hello, ", false);
  peer_.send_body(stream_id, "world", false);
  peer_.send_trailers(stream_id, {{"x-checksum", "abc"}});
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
  EXPECT_EQ(session_.open_streams(), 0u);
  EXPECT_TRUE(traced("c1 s1 h2: GET /path?q=1"));
  EXPECT_TRUE(traced("c1 s1 h2: response 200"));
}

TEST_F(H2SessionTest, ResponseWithoutBodyCompletes) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer_.respond(stream_id, 204, {}, true);
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
  peer_.send_interim(stream_id, 103);
  pump();
  EXPECT_FALSE(sink.head.has_value());
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, "final", true);
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
  ASSERT_EQ(peer_.request_ids().size(), static_cast<std::size_t>(kStreams));
  for (int i = 0; i < kStreams; ++i) peer_.respond(ids[i], 200);
  // Three rounds of pieces, every stream a piece per round.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kStreams; ++i) {
      peer_.send_body(ids[i], pattern(10 * kKiB + i, static_cast<char>('a' + round)), round == 2);
    }
    pump();
  }
  for (int i = 0; i < kStreams; ++i) {
    const std::string expected =
        pattern(10 * kKiB + i, 'a') + pattern(10 * kKiB + i, 'b') + pattern(10 * kKiB + i, 'c');
    EXPECT_TRUE(sinks[i]->body == expected) << "stream " << ids[i];
    EXPECT_TRUE(sinks[i]->completed);
  }
  EXPECT_EQ(session_.open_streams(), 0u);
}

TEST_F(H2SessionTest, HeldStreamReceivesAtMostItsMarkWhileASiblingCompletes) {
  RecordingSink held;
  held.hold();
  RecordingSink sibling;
  const std::int32_t held_id = submit(get("/held"), held);
  const std::int32_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  const std::string held_body = pattern(1 * kMiB, 'h');
  const std::string sibling_body = pattern(4 * kMiB, 's');
  peer_.respond(held_id, 200);
  peer_.respond(sibling_id, 200);
  peer_.send_body(held_id, held_body, true);
  peer_.send_body(sibling_id, sibling_body, true);
  pump();

  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body.size(), sibling_body.size());
  EXPECT_EQ(held.body.size(), 256 * kKiB);  // exactly its mark
  EXPECT_EQ(peer_.remote_window(held_id), 0);
  EXPECT_GT(peer_.unsent_body(held_id), 0u);
  EXPECT_FALSE(held.wants_body());
  EXPECT_TRUE(traced("c1 s1 h2: paused"));

  // The consumer takes everything it holds, a piece at a time, and posts a resume
  // when it falls below half its mark.
  for (int round = 0; round < 1000 && !held.completed; ++round) {
    if (held.take(64 * kKiB)) session_.resume_stream(held_id);
    pump();
  }
  EXPECT_TRUE(held.completed);
  EXPECT_EQ(held.body.size(), held_body.size());
  EXPECT_TRUE(held.body == held_body);
  EXPECT_TRUE(traced("c1 s1 h2: resumed"));
  EXPECT_TRUE(traced("c1 s1 h2: window +"));
}

// A consumer that keeps up partly while bytes arrive (a quarter of them) and then
// reads slowly: it stays below its mark, so the staging buffer never turns Paused and
// never posts a resume. The window must not stay closed on it.
TEST_F(H2SessionTest, SlowReaderBelowItsMarkNeverStalls) {
  RecordingSink slow;
  slow.hold();
  const std::int32_t stream_id = submit(get("/slow"), slow);
  pump();
  std::size_t most_held = 0;
  slow.after_body = [&] {
    most_held = std::max(most_held, slow.held_bytes());
    const std::size_t taken = slow.body.size() - slow.held_bytes();
    if (slow.take(slow.body.size() / 4 - std::min(taken, slow.body.size() / 4))) {
      session_.resume_stream(stream_id);
    }
  };
  const std::string body = pattern(2 * kMiB, 'q');
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, body, true);
  for (int round = 0; round < 4000 && !slow.completed; ++round) {
    pump();
    if (slow.take(8 * kKiB)) session_.resume_stream(stream_id);
  }
  EXPECT_TRUE(slow.completed) << "stalled at " << slow.body.size() << " bytes, holding "
                              << slow.held_bytes();
  EXPECT_EQ(slow.body.size(), body.size());
  EXPECT_TRUE(slow.body == body);
  EXPECT_LE(most_held, 256 * kKiB + 16 * kKiB);  // the mark plus one frame
}

// Takes a third of what it holds after every chunk: a steady slow reader.
TEST_F(H2SessionTest, SteadySlowReaderCompletes) {
  RecordingSink slow;
  slow.hold();
  const std::int32_t stream_id = submit(get("/steady"), slow);
  pump();
  slow.after_body = [&] {
    if (slow.take(slow.held_bytes() / 3)) session_.resume_stream(stream_id);
  };
  const std::string body = pattern(2 * kMiB, 'r');
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, body, true);
  for (int round = 0; round < 4000 && !slow.completed; ++round) {
    pump();
    if (slow.take(8 * kKiB)) session_.resume_stream(stream_id);
  }
  EXPECT_TRUE(slow.completed) << "stalled at " << slow.body.size() << " bytes";
  EXPECT_EQ(slow.body.size(), body.size());
  EXPECT_TRUE(slow.body == body);
}

TEST_F(H2SessionTest, LargerMarkOpensALargerStreamWindow) {
  RecordingSink held(1 * kMiB);
  held.hold();
  ExchangeRequest request = get("/big");
  request.mark = 1 * kMiB;
  const std::int32_t stream_id = submit(std::move(request), held);
  pump();
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, pattern(3 * kMiB), true);
  pump();
  EXPECT_EQ(held.body.size(), 1 * kMiB);
  EXPECT_EQ(peer_.remote_window(stream_id), 0);
}

TEST_F(H2SessionTest, PaddingIsNotDeliveredAsBody) {
  H2PeerOptions options;
  options.data_padding = 200;
  H2TestPeer padded(options);
  H2Session session([] {}, trace_, 2);
  RecordingSink sink;
  ExchangeRequest request = get();
  auto stream_id = session.submit(request, sink);
  ASSERT_TRUE(stream_id.ok());
  EXPECT_FALSE(test::pump(session, padded).has_value());
  const std::string body = pattern(600 * kKiB, 'p');
  padded.respond(*stream_id, 200);
  padded.send_body(*stream_id, body, true);
  EXPECT_FALSE(test::pump(session, padded).has_value());
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body.size(), body.size());
  EXPECT_TRUE(sink.body == body);
}

TEST_F(H2SessionTest, ResetFromServerNamesTheCode) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, "partial", false);
  pump();
  peer_.reset(stream_id, NGHTTP2_REFUSED_STREAM);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(sink.error->message(), "HTTP/2: stream 1 reset by server (REFUSED_STREAM)");
  EXPECT_FALSE(sink.completed);
  EXPECT_TRUE(traced("RST_STREAM received (REFUSED_STREAM)"));
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
  peer_.goaway(id3);
  pump();
  EXPECT_EQ(session_.available_streams(), 0u);
  ASSERT_TRUE(third.error.has_value());
  EXPECT_TRUE(starts_with(third.error->message(), "HTTP/2: GOAWAY")) << third.error->message();
  EXPECT_TRUE(contains(third.error->message(), "retry on a new connection"));
  EXPECT_EQ(third.error->category(), ErrorCategory::protocol);

  peer_.respond(id1, 200);
  peer_.send_body(id1, "one", true);
  peer_.respond(id3, 200);
  peer_.send_body(id3, "three", true);
  pump();
  EXPECT_TRUE(first.completed);
  EXPECT_EQ(first.body, "one");
  EXPECT_TRUE(second.completed);
  EXPECT_EQ(second.body, "three");
  EXPECT_TRUE(session_.finished());

  RecordingSink late;
  ExchangeRequest request = get();
  auto refused = session_.submit(request, late);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(starts_with(refused.error().message(), "HTTP/2: GOAWAY"));
}

TEST_F(H2SessionTest, GoawayFailsRequestsNotYetSent) {
  RecordingSink sent;
  const std::int32_t id1 = submit(get("/1"), sent);
  pump();
  peer_.goaway(id1);
  // Submitted before the GOAWAY is read: its HEADERS never leave.
  RecordingSink queued;
  submit(get("/queued"), queued);
  pump();
  ASSERT_TRUE(queued.error.has_value());
  EXPECT_TRUE(starts_with(queued.error->message(), "HTTP/2: GOAWAY")) << queued.error->message();
  EXPECT_FALSE(sent.error.has_value());
}

TEST_F(H2SessionTest, PeerIgnoringTheWindowGetsAFlowControlError) {
  RecordingSink held;
  held.hold();
  RecordingSink sibling;
  const std::int32_t held_id = submit(get("/held"), held);
  const std::int32_t sibling_id = submit(get("/sibling"), sibling);
  pump();
  peer_.respond(held_id, 200);
  peer_.respond(sibling_id, 200);
  pump();
  // 17 frames of 16 KiB: one frame past the 256 KiB stream window, which nobody
  // gave back.
  std::string frames;
  const std::string piece = pattern(16 * kKiB, 'x');
  for (int i = 0; i < 17; ++i) frames += test::data_frame(held_id, piece, false);
  peer_.send_raw(frames);
  pump();
  ASSERT_TRUE(held.error.has_value());
  EXPECT_TRUE(contains(held.error->message(), "flow-control window")) << held.error->message();
  EXPECT_TRUE(contains(held.error->message(), "FLOW_CONTROL_ERROR"));
  ASSERT_NE(peer_.request(held_id), nullptr);
  EXPECT_EQ(peer_.request(held_id)->reset_code, NGHTTP2_FLOW_CONTROL_ERROR);

  peer_.send_body(sibling_id, "still fine", true);
  pump();
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body, "still fine");
}

TEST_F(H2SessionTest, HeaderBlockOverTheRequestLimitFails) {
  RecordingSink sink;
  ExchangeRequest request = get();
  request.max_header_bytes = 8 * kKiB;
  const std::int32_t stream_id = submit(std::move(request), sink);
  pump();
  Headers big;
  for (int i = 0; i < 20; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  peer_.respond(stream_id, 200, big);
  peer_.send_body(stream_id, "body", true);
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
  H2TestPeer generous(options);
  H2Session session([] {}, trace_, 2);
  RecordingSink sink;
  RecordingSink sibling;
  ExchangeRequest request = get();
  auto stream_id = session.submit(request, sink);
  auto sibling_id = session.submit(request, sibling);
  ASSERT_TRUE(stream_id.ok() && sibling_id.ok());
  test::pump(session, generous);
  Headers big;
  // About 270 KiB as HTTP/2 counts it: over 256 KiB, still few enough frames.
  for (int i = 0; i < 250; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  generous.respond(*stream_id, 200, big);
  generous.respond(*sibling_id, 200);
  generous.send_body(*sibling_id, "ok", true);
  test::pump(session, generous);
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large) << sink.error->message();
  EXPECT_TRUE(sibling.completed);
}

TEST_F(H2SessionTest, HeaderBlockInTooManyFramesClosesTheConnection) {
  H2PeerOptions options;
  options.max_send_header_block = 8 * kMiB;
  H2TestPeer flooding(options);
  H2Session session([] {}, trace_, 2);
  RecordingSink sink;
  ExchangeRequest request = get();
  auto stream_id = session.submit(request, sink);
  ASSERT_TRUE(stream_id.ok());
  test::pump(session, flooding);
  Headers big;
  for (int i = 0; i < 1000; ++i) big.add("x-filler-" + std::to_string(i), pattern(1 * kKiB));
  flooding.respond(*stream_id, 200, big);
  auto error = test::pump(session, flooding);
  ASSERT_TRUE(error.has_value());
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->category(), ErrorCategory::too_large);
  EXPECT_TRUE(contains(sink.error->message(), "too many CONTINUATION frames"))
      << sink.error->message();
  EXPECT_TRUE(session.finished());
}

TEST_F(H2SessionTest, ContentLengthMismatchIsAnError) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  pump();
  peer_.respond(stream_id, 200, {{"content-length", "10"}});
  peer_.send_body(stream_id, "12345", true);
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
  peer_.respond(stream_id, 200, {{"bad name", "x"}});
  peer_.send_body(stream_id, "body", true);
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
  peer_.respond(cancelled_id, 200);
  peer_.respond(sibling_id, 200);
  peer_.send_body(cancelled_id, pattern(100 * kKiB), false);
  peer_.send_body(sibling_id, pattern(50 * kKiB), false);
  pump();
  session_.cancel_stream(cancelled_id);
  peer_.send_body(sibling_id, pattern(50 * kKiB), true);
  pump();
  const auto* request = peer_.request(cancelled_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->reset_code, NGHTTP2_CANCEL);
  EXPECT_FALSE(cancelled.completed);
  EXPECT_FALSE(cancelled.error.has_value());
  EXPECT_TRUE(sibling.completed);
  EXPECT_EQ(sibling.body.size(), 100 * kKiB);
  EXPECT_EQ(session_.open_streams(), 0u);
}

TEST_F(H2SessionTest, CancelFromInsideOnBodyStopsEvents) {
  RecordingSink sink;
  const std::int32_t stream_id = submit(get(), sink);
  sink.after_body = [&] { session_.cancel_stream(stream_id); };
  pump();
  peer_.respond(stream_id, 200);
  peer_.send_body(stream_id, pattern(200 * kKiB), true);
  pump();
  EXPECT_FALSE(sink.body.empty());
  EXPECT_LT(sink.body.size(), 200 * kKiB);
  EXPECT_FALSE(sink.completed);
  EXPECT_FALSE(sink.error.has_value());
  EXPECT_EQ(peer_.request(stream_id)->reset_code, NGHTTP2_CANCEL);
}

TEST_F(H2SessionTest, DataForCancelledStreamsStillReturnsConnectionWindow) {
  // 80 streams of 256 KiB, each cancelled after its first bytes: 20 MiB in flight
  // for cancelled streams, beyond the 16 MiB connection window.
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  for (int i = 0; i < 80; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    RecordingSink& sink = *sinks.back();
    const std::int32_t stream_id = submit(get("/c" + std::to_string(i)), sink);
    sink.after_body = [this, stream_id] { session_.cancel_stream(stream_id); };
  }
  pump();
  for (std::int32_t stream_id : peer_.request_ids()) {
    peer_.respond(stream_id, 200);
    peer_.send_body(stream_id, pattern(256 * kKiB), true);
  }
  pump();
  RecordingSink last;
  const std::int32_t last_id = submit(get("/last"), last);
  pump();
  peer_.respond(last_id, 200);
  peer_.send_body(last_id, pattern(1 * kMiB), true);
  pump();
  EXPECT_TRUE(last.completed);
  EXPECT_EQ(last.body.size(), 1 * kMiB);
}

TEST_F(H2SessionTest, DeferredRequestBodyResumesWhenTheSourceHasData) {
  ScriptedBody body(10);
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  pump();
  const auto* request = peer_.request(stream_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->headers.get("content-length"), "10");
  EXPECT_EQ(request->body, "");
  EXPECT_FALSE(request->ended);

  body.provide("hello", false);
  EXPECT_EQ(output_ready_, 1);
  pump();
  EXPECT_EQ(request->body, "hello");
  EXPECT_FALSE(request->ended);

  body.provide("world", true);
  pump();
  EXPECT_EQ(request->body, "helloworld");
  EXPECT_TRUE(request->ended);
  EXPECT_EQ(body.taken(), 10u);

  peer_.respond(stream_id, 201, {}, true);
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
  const auto* request = peer_.request(stream_id);
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
  EXPECT_EQ(peer_.request(stream_id)->reset_code, NGHTTP2_INTERNAL_ERROR);
}

TEST_F(H2SessionTest, ResponseBeforeTheBodyEndsCancelsTheUpload) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  body.provide("start", false);
  pump();
  peer_.respond(stream_id, 413, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.head->status, 413);
  body.provide("more", true);  // the stale waker must do nothing
  pump();
  EXPECT_EQ(peer_.request(stream_id)->reset_code, NGHTTP2_CANCEL);
  EXPECT_EQ(sink.events_after_end, 0);
}

TEST_F(H2SessionTest, AvailableStreamsFollowsTheServerLimit) {
  EXPECT_EQ(session_.available_streams(), 100u);  // assumed before SETTINGS
  H2TestPeer strict({.settings = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 2}}});
  H2Session session([] {}, trace_, 2);
  test::pump(session, strict);
  EXPECT_EQ(session.available_streams(), 2u);
  RecordingSink sink;
  ExchangeRequest request = get();
  ASSERT_TRUE(session.submit(request, sink).ok());
  EXPECT_EQ(session.available_streams(), 1u);
}

TEST_F(H2SessionTest, PingIsAnswered) {
  pump();
  ASSERT_TRUE(session_.send_ping().ok());
  EXPECT_TRUE(session_.ping_outstanding());
  pump();
  EXPECT_FALSE(session_.ping_outstanding());
  EXPECT_EQ(peer_.pings_received(), 1);
}

TEST_F(H2SessionTest, ConnectionErrorFailsEveryStream) {
  RecordingSink first;
  RecordingSink second;
  submit(get("/1"), first);
  submit(get("/2"), second);
  pump();
  peer_.send_raw(test::data_frame(0, "nope", false));  // DATA on stream 0
  pump();
  ASSERT_TRUE(first.error.has_value());
  ASSERT_TRUE(second.error.has_value());
  EXPECT_TRUE(contains(first.error->message(), "PROTOCOL_ERROR")) << first.error->message();
  EXPECT_TRUE(session_.finished());
  EXPECT_EQ(session_.available_streams(), 0u);
}

TEST_F(H2SessionTest, FailAllReportsTheErrorOnce) {
  RecordingSink sink;
  submit(get(), sink);
  pump();
  session_.fail_all(Error(ErrorCategory::timeout, "HTTP/2: gone"));
  session_.fail_all(Error(ErrorCategory::timeout, "HTTP/2: gone again"));
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.error->message(), "HTTP/2: gone");
  EXPECT_EQ(sink.events_after_end, 0);
  EXPECT_EQ(session_.available_streams(), 0u);
}

// The server's SETTINGS_INITIAL_WINDOW_SIZE of 1 lets one byte through per
// WINDOW_UPDATE; the body still goes up whole.
class H2TinyWindowTest : public H2SessionTest {
 protected:
  H2TinyWindowTest()
      : H2SessionTest(H2PeerOptions{.settings = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1}}}) {}
};

TEST_F(H2TinyWindowTest, TinyPeerWindowStillUploadsTheBody) {
  const std::string payload = pattern(100 * kKiB, 'u');
  ScriptedBody body(payload.size());
  body.provide(payload, true);
  RecordingSink sink;
  const std::int32_t stream_id = submit(post(body), sink);
  pump();
  const auto* request = peer_.request(stream_id);
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->body.size(), payload.size());
  EXPECT_TRUE(request->body == payload);
  EXPECT_TRUE(request->ended);
  peer_.respond(stream_id, 200, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
}

}  // namespace
}  // namespace sluice
