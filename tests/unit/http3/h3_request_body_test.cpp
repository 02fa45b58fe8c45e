// What only H3Session does with a request body: nghttp3 sends from copies kept until
// the server acknowledges them, a wake from inside peek, STOP_SENDING. Bodies that
// wait for their source, fail, fall short or meet an early response run over HTTP/2
// and HTTP/3 in tests/unit/mux/multiplexed_sessions_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "core/byte_queue.hpp"
#include "http3/h3_session.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"
#include "support/test_body.hpp"

namespace sluice {
namespace {

using test::H3PeerOptions;
using test::pattern;
using test::RecordingSink;
using test::ScriptedBody;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Owned bytes that free themselves once the transport took the last byte, as the
// library's owned-body source does (the release rule).
class OwnedBody final : public RequestBodySource {
 public:
  explicit OwnedBody(std::string bytes) : bytes_(std::move(bytes)), length_(bytes_.size()) {}
  std::optional<std::uint64_t> length() const override { return length_; }
  SourceChunk peek(std::size_t max) override {
    if (offset_ == length_) return {SourceChunk::State::end, {}, {}};
    const auto rest = as_bytes(bytes_).subspan(offset_);
    return {SourceChunk::State::data, rest.first(std::min(max, rest.size())), {}};
  }
  void consume(std::size_t n) override {
    offset_ += n;
    if (offset_ == length_) {
      std::string().swap(bytes_);
      released_ = true;
    }
  }
  void set_waker(std::function<void()>) override {}
  bool rewind() override { return false; }
  std::size_t held_bytes() const override { return released_ ? 0 : bytes_.capacity(); }
  std::size_t taken() const { return offset_; }

 private:
  std::string bytes_;
  bool released_ = false;
  std::size_t length_;
  std::size_t offset_ = 0;
};

// A producer whose first peek finds nothing but wakes the transport from inside
// peek (a write landing in between); its second peek has everything.
class WakesInsidePeek final : public RequestBodySource {
 public:
  std::optional<std::uint64_t> length() const override { return std::nullopt; }
  SourceChunk peek(std::size_t max) override {
    if (++peeks_ == 1) {
      if (waker_) waker_();
      return {};
    }
    if (sent_) return {SourceChunk::State::end, {}, {}};
    return {SourceChunk::State::data,
            as_bytes(std::string_view(text_)).first(std::min(max, text_.size())),
            {}};
  }
  void consume(std::size_t n) override { sent_ = n == text_.size(); }
  void set_waker(std::function<void()> wake) override { waker_ = std::move(wake); }
  bool rewind() override { return false; }
  std::size_t held_bytes() const override { return 0; }

 private:
  std::string text_ = "arrived during peek";
  std::function<void()> waker_;
  int peeks_ = 0;
  bool sent_ = false;
};

class H3RequestBodyTest : public ::testing::Test, protected test::H3ClientHarness {
 protected:
  explicit H3RequestBodyTest(H3PeerOptions options = {}) : H3ClientHarness(options) {}
};

TEST_F(H3RequestBodyTest, PostSendsAnOwnedBodyWithItsLength) {
  OwnedBody body("name=value&more=yes");
  RecordingSink sink;
  const std::int64_t stream_id = submit(post(body), sink);
  pump();
  const auto* received = peer.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->headers.get(":method"), "POST");
  EXPECT_EQ(received->headers.get("content-length"), "19");
  EXPECT_EQ(received->body, "name=value&more=yes");
  EXPECT_TRUE(received->ended);
  peer.respond(stream_id, 201, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(session.unacked_body_bytes(), 0u);
  EXPECT_TRUE(peer.closed(stream_id));
}

TEST_F(H3RequestBodyTest, WakeInsidePeekIsNotLost) {
  WakesInsidePeek body;
  RecordingSink sink;
  const std::int64_t stream_id = submit(post(body), sink);
  pump();
  const auto* received = peer.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_EQ(received->body, "arrived during peek");
  EXPECT_TRUE(received->ended);
}

// nghttp3 sends from our copies until the server acknowledges them. They are bounded
// by the server's stream window while it does not read, held while it does not
// acknowledge, and freed as acknowledgements arrive; the owned body itself is freed
// as soon as its last byte was copied.
TEST_F(H3RequestBodyTest, BodyLargerThanTheWindowFlowsAsAcksArrive) {
  const std::string text = pattern(1 * kMiB, 'u');
  OwnedBody body(text);
  RecordingSink sink;
  peer.hold_reading(true);
  peer.hold_acks(true);
  const std::int64_t stream_id = submit(post(body), sink);
  pump();
  // The server's 64 KiB window: the client copied at most that plus one 32 KiB piece.
  EXPECT_LE(body.taken(), 96 * kKiB);
  EXPECT_GT(body.taken(), 0u);
  EXPECT_LE(session.unacked_body_bytes(), 96 * kKiB);
  EXPECT_GT(peer.unacked(stream_id), 60 * kKiB);

  peer.hold_reading(false);  // credit flows; acknowledgements still held
  pump();
  const auto* received = peer.request(stream_id);
  ASSERT_NE(received, nullptr);
  EXPECT_TRUE(received->body == text);
  EXPECT_TRUE(received->ended);
  EXPECT_EQ(body.held_bytes(), 0u);  // the owned copy went with its last byte
  EXPECT_EQ(session.unacked_body_bytes(), text.size());

  peer.hold_acks(false);
  pump();
  EXPECT_EQ(session.unacked_body_bytes(), 0u);
  EXPECT_GT(session.release_scratch(), 0u);  // emptied blocks kept for reuse
  peer.respond(stream_id, 200, {}, true);
  pump();
  EXPECT_TRUE(sink.completed);
}

// RFC 9114 section 4.1: a server may answer before reading the whole request and
// stop the upload with H3_NO_ERROR; the response still counts.
TEST_F(H3RequestBodyTest, StopSendingWithNoErrorKeepsTheResponse) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int64_t stream_id = submit(post(body), sink);
  body.provide("start of a long upload", false);
  pump();
  peer.stop_sending(stream_id, NGHTTP3_H3_NO_ERROR);
  pump();
  EXPECT_FALSE(sink.error.has_value());
  const int peeks = body.peeks();
  body.provide(" which is no longer read", false);
  pump();
  EXPECT_EQ(body.peeks(), peeks);
  peer.respond(stream_id, 200);
  peer.send_body(stream_id, "answered early", true);
  pump();
  EXPECT_TRUE(sink.completed);
  EXPECT_EQ(sink.body, "answered early");
  EXPECT_TRUE(peer.closed(stream_id));
}

TEST_F(H3RequestBodyTest, StopSendingWithRejectedIsUnprocessed) {
  ScriptedBody body;
  RecordingSink sink;
  const std::int64_t stream_id = submit(post(body), sink);
  pump();
  peer.stop_sending(stream_id, NGHTTP3_H3_REQUEST_REJECTED);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_TRUE(sink.unprocessed);
  EXPECT_TRUE(contains(sink.error->message(), "stopped reading the request on stream 0"))
      << sink.error->message();
  EXPECT_TRUE(contains(sink.error->message(), "H3_REQUEST_REJECTED"));
}

}  // namespace
}  // namespace sluice
