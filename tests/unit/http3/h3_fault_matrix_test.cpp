// HTTP/3 fault-matrix rows at the session, against the in-memory H3TestPeer: a
// RESET_STREAM in the middle of a response's header section, the connection dying
// mid-body, a RESET_STREAM storm, and a GOAWAY storm. Each checks the error's
// category and message and that a cut response never completes. (The end-to-end
// rows over real QUIC are in tests/integration/fault_matrix_h3_test.cpp.)
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "http3/h3_session.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h3_test_peer.hpp"

namespace sluice {
namespace {

using test::RecordingSink;

class FaultMatrixH3Session : public ::testing::Test, protected test::H3ClientHarness {};

TEST_F(FaultMatrixH3Session, ResetStreamMidHeadersFailsTheStreamWithoutAHead) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get("/cut-head"), sink);
  pump();
  // A HEADERS frame announcing a 10-byte field section; only its first 3 bytes
  // arrive: the prefix (no dynamic table) and ":status 200" (static index 25).
  peer.send_raw(stream_id,
                test::quic_varint(0x01) + test::quic_varint(10) + std::string("\x00\x00\xd9", 3));
  pump();
  EXPECT_FALSE(sink.error.has_value()) << "half a header section is no error yet";
  peer.reset(stream_id, NGHTTP3_H3_INTERNAL_ERROR);
  pump();
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_FALSE(sink.head.has_value());
  EXPECT_FALSE(sink.completed);
  EXPECT_EQ(sink.error->category(), ErrorCategory::protocol);
  EXPECT_EQ(sink.error->message(), "HTTP/3: stream 0 reset by server (H3_INTERNAL_ERROR)");
  EXPECT_TRUE(pump_errors.empty()) << "a stream reset is not a connection error";
}

TEST_F(FaultMatrixH3Session, ConnectionDyingMidBodyFailsTheReaderAfterItsBytes) {
  RecordingSink sink;
  const std::int64_t stream_id = submit(get("/cut-body"), sink);
  pump();
  peer.respond(stream_id, 200, {{"content-length", "5000"}});
  peer.send_body(stream_id, std::string(1000, 'b'), false);
  pump();
  ASSERT_EQ(sink.body.size(), 1000u);
  const std::string why =
      "QUIC: nothing from example.test:443 for 30000 ms (idle timeout); connection closed";
  peer.close_connection(Error(ErrorCategory::timeout, why));
  ASSERT_TRUE(sink.error.has_value());
  EXPECT_FALSE(sink.completed);
  EXPECT_EQ(sink.body.size(), 1000u);
  EXPECT_EQ(sink.error->category(), ErrorCategory::timeout);
  EXPECT_EQ(sink.error->message(), why);
  EXPECT_EQ(sink.events_after_end, 0);
}

TEST_F(FaultMatrixH3Session, ResetStormFailsEachResetStreamAloneAndSparesItsSiblings) {
  constexpr int kStreams = 20;
  std::vector<std::unique_ptr<RecordingSink>> sinks;
  std::vector<std::int64_t> ids;
  for (int i = 0; i < kStreams; ++i) {
    sinks.push_back(std::make_unique<RecordingSink>());
    ids.push_back(submit(get("/s" + std::to_string(i)), *sinks.back()));
  }
  pump();
  for (int i = 0; i < kStreams; ++i) {
    peer.respond(ids[i], 200);
    peer.send_body(ids[i], i % 2 == 0 ? std::string(300, 'r') : "whole " + std::to_string(i),
                   i % 2 != 0);
  }
  pump();
  for (int i = 0; i < kStreams; i += 2) peer.reset(ids[i], NGHTTP3_H3_INTERNAL_ERROR);
  pump();
  for (int i = 0; i < kStreams; ++i) {
    const RecordingSink& sink = *sinks[i];
    if (i % 2 != 0) {
      EXPECT_TRUE(sink.completed) << i;
      EXPECT_EQ(sink.body, "whole " + std::to_string(i));
      continue;
    }
    ASSERT_TRUE(sink.error.has_value()) << i;
    EXPECT_FALSE(sink.completed) << i;
    EXPECT_EQ(sink.body.size(), 300u) << i;
    EXPECT_EQ(sink.error->message(),
              "HTTP/3: stream " + std::to_string(ids[i]) + " reset by server (H3_INTERNAL_ERROR)");
  }
  EXPECT_TRUE(pump_errors.empty());
  EXPECT_EQ(session.open_streams(), 0u);
}

// Many GOAWAYs, each with the same or a lower id (RFC 9114 5.2 allows both): the
// streams below the lowest finish, the ones above fail as unprocessed.
TEST_F(FaultMatrixH3Session, GoawayStormLetsTheKeptStreamFinish) {
  RecordingSink kept;
  RecordingSink second;
  RecordingSink third;
  const std::int64_t kept_id = submit(get("/kept"), kept);
  const std::int64_t second_id = submit(get("/2"), second);
  const std::int64_t third_id = submit(get("/3"), third);
  pump();
  for (int i = 0; i < 200; ++i) peer.goaway(third_id);
  for (int i = 0; i < 200; ++i) peer.goaway(second_id);
  pump();
  EXPECT_TRUE(pump_errors.empty()) << pump_errors.front().message();
  for (RecordingSink* refused : {&second, &third}) {
    ASSERT_TRUE(refused->error.has_value());
    EXPECT_TRUE(refused->unprocessed);
    EXPECT_EQ(refused->error->category(), ErrorCategory::protocol);
    EXPECT_NE(refused->error->message().find("GOAWAY"), std::string::npos)
        << refused->error->message();
  }
  EXPECT_FALSE(kept.error.has_value());
  peer.respond(kept_id, 200);
  peer.send_body(kept_id, "kept and finished", true);
  pump();
  EXPECT_TRUE(kept.completed);
  EXPECT_EQ(kept.body, "kept and finished");
  EXPECT_TRUE(session.finished());
}

}  // namespace
}  // namespace sluice
