// HTTP/3's own flow control, as the fake QUIC transport counts it: credit in half-
// window steps, a small mark from the first byte, framing credited at once, QPACK
// blocked streams, a malformed read. How a reader's mark holds a stream, the same in
// HTTP/2, runs over both in tests/unit/mux/multiplexed_sessions_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "http3/h3_session.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::pattern;
using test::RecordingSink;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

// Flow control is the backpressure: stream credit follows what each consumer took.
// The peer counts the credit the client returned per stream; it also fails the test
// (peer.error()) if the client ever credits more than it received.
class H3FlowControlTest : public ::testing::Test, protected test::H3ClientHarness {
 protected:
  explicit H3FlowControlTest(H3PeerOptions options = {}) : H3ClientHarness(options) {}

  // The manual clock never moves, so a prompt reader's allowance would grow each
  // step (and its credit would go as growth): credit tests fix it at 256 KiB.
  static ExchangeRequest fixed(ExchangeRequest request) {
    request.allowance = BodyAllowance{256 * kKiB, 256 * kKiB};
    return request;
  }

  int credit_lines(const std::string& stream) const {
    return static_cast<int>(std::count_if(lines.begin(), lines.end(), [&](const std::string& line) {
      return line.find("c1 " + stream + " h3: credit +") != std::string::npos;
    }));
  }
};

// A prompt reader holds nothing: credit goes back in steps of about half the window,
// not once per packet.
TEST_F(H3FlowControlTest, PromptReaderIsCreditedInHalfWindowSteps) {
  RecordingSink prompt;
  const std::int64_t stream_id = submit(fixed(get("/prompt")), prompt);
  pump();
  const std::string body = pattern(2 * kMiB, 'p');
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, body, true);
  pump();
  EXPECT_TRUE(prompt.completed);
  EXPECT_TRUE(prompt.body == body);
  const int steps = credit_lines("s0");
  EXPECT_GE(steps, 2 * static_cast<int>(kMiB / (256 * kKiB)) - 1);
  EXPECT_LE(steps, 2 * static_cast<int>(kMiB / (128 * kKiB)) + 2);
  EXPECT_LT(peer.delivered(stream_id) - peer.credited(stream_id), 128 * kKiB);
}

// A mark below the transport's initial stream window holds from the first byte.
TEST_F(H3FlowControlTest, SmallMarkHoldsFromTheFirstByte) {
  RecordingSink held(16 * kKiB);
  held.hold();
  ExchangeRequest request = get("/small");
  request.allowance = {16 * kKiB, 16 * kKiB};
  const std::int64_t stream_id = submit(std::move(request), held);
  pump();
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, pattern(200 * kKiB), true);
  pump();
  EXPECT_EQ(held.body.size(), 16 * kKiB);
  EXPECT_EQ(peer.delivered(stream_id) - peer.credited(stream_id), 16 * kKiB);
}

// Framing is credited at once even on a held stream: headers and trailers never
// count against the consumer's mark.
TEST_F(H3FlowControlTest, HeadersAndTrailersAreCreditedAtOnce) {
  RecordingSink held;
  held.hold();
  const std::int64_t stream_id = submit(get(), held);
  pump();
  Headers fields;
  for (int i = 0; i < 16; ++i) fields.add("x-field-" + std::to_string(i), pattern(512));
  peer.respond(stream_id, 200, fields);
  peer.send_body(stream_id, "body", false);
  peer.send_trailers(stream_id, fields);
  pump();
  EXPECT_TRUE(held.completed);
  EXPECT_EQ(held.body, "body");
  EXPECT_EQ(peer.delivered(stream_id) - peer.credited(stream_id), 4u);
}

// Body bytes that arrive for a stream whose exchange already failed go nowhere and
// are credited at once, so the server is never stuck on them.
TEST_F(H3FlowControlTest, BytesOfAFailedExchangeAreCreditedAtOnce) {
  RecordingSink sink;
  sink.hold();
  ExchangeRequest request = get();
  request.max_header_bytes = 1024;
  const std::int64_t stream_id = submit(std::move(request), sink);
  pump();
  peer.respond(stream_id, 200, {{"x-big", pattern(2048)}});
  peer.send_body(stream_id, pattern(64 * kKiB), true);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_EQ(sink.body, "");
  EXPECT_EQ(peer.delivered(stream_id), peer.credited(stream_id));
  EXPECT_TRUE(peer.closed(stream_id));
}

// The server's encoder may use the dynamic table we allow; a response whose head
// depends on encoder-stream instructions still arriving waits for them (QPACK
// blocked) and is decoded, and credited, once they come.
TEST_F(H3FlowControlTest, DynamicTableHeadersDecodeAcrossStreams) {
  RecordingSink first;
  RecordingSink second;
  const std::int64_t first_id = submit(get("/1"), first);
  const std::int64_t second_id = submit(get("/2"), second);
  pump();
  // nghttp3's encoder indexes known field names (not custom ones).
  const Headers fields{{"content-type", "application/x-sluice-test"}, {"server", "h3-test-peer"}};
  peer.respond(first_id, 200, fields, true);
  peer.respond(second_id, 200, fields, true);
  pump();
  ASSERT_TRUE(first.head.has_value());
  ASSERT_TRUE(second.head.has_value());
  EXPECT_EQ(first.head->headers.get("content-type"), "application/x-sluice-test");
  EXPECT_EQ(second.head->headers.get("server"), "h3-test-peer");
  EXPECT_TRUE(first.completed);
  EXPECT_TRUE(second.completed);
  EXPECT_EQ(peer.delivered(first_id), peer.credited(first_id));
  EXPECT_EQ(peer.delivered(second_id), peer.credited(second_id));
}

// An HTTP/3 DATA frame written by hand: type 0x00, then a 4-byte varint length.
std::string data_frame(const std::string& payload) {
  const auto length = static_cast<std::uint32_t>(payload.size());
  std::string frame{'\x00', static_cast<char>(0x80 | (length >> 24)),
                    static_cast<char>((length >> 16) & 0xff),
                    static_cast<char>((length >> 8) & 0xff), static_cast<char>(length & 0xff)};
  return frame + payload;
}

// Found by fuzz_h3: one read carries a body that a prompt consumer takes (and the
// session credits at once, more than half the window being used), then a DATA frame
// past the content-length, which nghttp3 reports by failing the whole read. The
// session must not credit the taken bytes a second time as part of that read: the
// peer fails the test (peer.error()) when credit passes what was delivered.
class H3FlowControlOneReadTest : public H3FlowControlTest {
 protected:
  H3FlowControlOneReadTest() : H3FlowControlTest(H3PeerOptions{.packet = 1 * kMiB}) {}
};

TEST_F(H3FlowControlOneReadTest, MalformedBodyAfterCreditedBytesIsNotCreditedTwice) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(fixed(get("/overrun")), sink);
  pump();
  peer.respond(stream_id, 200, {{"content-length", "140000"}});
  pump();
  ASSERT_TRUE(sink.head.has_value());
  peer.send_raw(stream_id, data_frame(pattern(140000)) + data_frame("overrun"));
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(sink.error->message().find("does not match its content-length") != std::string::npos)
      << sink.error->message();
  EXPECT_EQ(sink.body.size(), 140000u);
  EXPECT_TRUE(traced("c1 s0 h3: credit +140000")) << "the body was not credited in the read";
  EXPECT_LE(peer.credited(stream_id), peer.delivered(stream_id));
  EXPECT_EQ(peer.error(), "");
}

}  // namespace
}  // namespace sluice
