// StreamTable without a library: the hooks record what a session would hand to
// nghttp2 or nghttp3, the sinks are the recording consumers the session suites use,
// and time moves only when a test moves it.
#include "mux/stream_table.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/h2_test_peer.hpp"
#include "support/manual_clock.hpp"

namespace sluice {
namespace {

using std::chrono::milliseconds;

constexpr std::uint64_t kKiB = 1024;

struct TableStream : MuxStream {
  TableStream(std::int64_t id, ExchangeSink& exchange_sink, const ExchangeRequest& request,
              const WindowPolicy& policy)
      : MuxStream(exchange_sink, request, policy), stream_id(id) {}
  std::int64_t stream_id;
};

struct Announced {
  std::int64_t stream_id;
  CreditGrant grant;
};

class RecordingHooks final : public StreamHooks<TableStream> {
 public:
  bool can_credit(const TableStream&) const override { return open; }
  std::chrono::nanoseconds path_rtt() const override { return {}; }
  void announce_credit(TableStream& stream, const CreditGrant& grant, std::uint64_t) override {
    announced.push_back({stream.stream_id, grant});
  }

  bool open = true;
  std::vector<Announced> announced;
};

class StreamTableTest : public ::testing::Test {
 protected:
  StreamTableTest() : trace([this](std::string_view line) { lines.emplace_back(line); }) {
    request.allowance = BodyAllowance{64 * kKiB, 64 * kKiB};  // no growth to reason about
  }

  TableStream& add(std::int64_t id, test::RecordingSink& sink) {
    return table.add(id, sink, request, policy);
  }
  void deliver(std::int64_t id, std::size_t n) {
    const std::string bytes(n, 'x');
    table.deliver_body(*table.live(id), std::as_bytes(std::span(bytes)), clock.now());
  }
  bool traced(std::string_view part) const {
    for (const std::string& line : lines) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }

  std::vector<std::string> lines;
  Trace trace;
  test::ManualClock clock;
  WindowPolicy policy;
  ExchangeRequest request;
  RecordingHooks hooks;
  StreamTable<TableStream> table{hooks, TraceScope(trace, 7, "hx")};
};

TEST_F(StreamTableTest, BodyReachesTheSinkAndCreditGoesBackAtHalfTheWindow) {
  test::RecordingSink sink;
  add(1, sink);
  deliver(1, 20 * kKiB);
  EXPECT_EQ(sink.body.size(), 20 * kKiB);
  EXPECT_TRUE(hooks.announced.empty());  // under half of 64 KiB
  clock.advance(milliseconds(4));
  deliver(1, 12 * kKiB);
  ASSERT_EQ(hooks.announced.size(), 1u);
  EXPECT_EQ(hooks.announced[0].stream_id, 1);
  EXPECT_EQ(hooks.announced[0].grant.bytes, 32 * kKiB);
  EXPECT_EQ(table.find(1)->credit.credited(), 32 * kKiB);
}

TEST_F(StreamTableTest, NothingIsEvaluatedWhileTheSessionCannotCreditAndAResumeCatchesUp) {
  test::RecordingSink sink;
  add(1, sink);
  hooks.open = false;
  deliver(1, 40 * kKiB);
  EXPECT_TRUE(hooks.announced.empty());
  EXPECT_EQ(table.find(1)->credit.credited(), 0u);
  hooks.open = true;
  table.resume(1, clock.now());
  ASSERT_EQ(hooks.announced.size(), 1u);
  EXPECT_EQ(hooks.announced[0].grant.bytes, 40 * kKiB);
}

TEST_F(StreamTableTest, AQuietStreamIsCreditedWhenItsDeadlinePasses) {
  test::RecordingSink sink;
  add(3, sink);
  deliver(3, 10 * kKiB);
  EXPECT_TRUE(hooks.announced.empty());
  const std::optional<TimePoint> due = table.next_deadline();
  ASSERT_TRUE(due.has_value());
  EXPECT_GT(*due, clock.now());
  table.on_timer(clock.now());  // not yet
  EXPECT_TRUE(hooks.announced.empty());
  clock.advance(*due - clock.now());
  table.on_timer(clock.now());
  ASSERT_EQ(hooks.announced.size(), 1u);
  EXPECT_EQ(hooks.announced[0].stream_id, 3);
  EXPECT_EQ(hooks.announced[0].grant.bytes, 10 * kKiB);
  EXPECT_FALSE(table.next_deadline().has_value());  // nothing owed any more
}

TEST_F(StreamTableTest, AReaderThatFallsBehindPausesItsStreamAndTheTraceSaysSo) {
  test::RecordingSink sink(16 * kKiB);
  sink.hold();
  add(5, sink);
  deliver(5, 16 * kKiB);
  EXPECT_TRUE(table.find(5)->credit.paused());
  EXPECT_TRUE(traced("c7 s5 hx: paused: the reader is its allowance behind (16384 bytes held)"));
  EXPECT_FALSE(table.receiving_since(clock.now()));
  EXPECT_TRUE(sink.take(16 * kKiB));
  table.resume(5, clock.now());
  EXPECT_FALSE(table.find(5)->credit.paused());
  EXPECT_TRUE(traced("c7 s5 hx: resumed: the reader caught up"));
  ASSERT_EQ(hooks.announced.size(), 1u);
  EXPECT_EQ(hooks.announced[0].grant.bytes, 16 * kKiB);
}

TEST_F(StreamTableTest, AnEndedExchangeKeepsItsRecordButLeavesTheCreditWork) {
  test::RecordingSink first;
  test::RecordingSink second;
  add(1, first);
  add(5, second);
  EXPECT_EQ(table.live_windows(), 128 * kKiB);
  table.find(1)->sink = nullptr;  // as HTTP/3 does until the QUIC stream closes
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.live(1), nullptr);
  EXPECT_NE(table.find(1), nullptr);
  EXPECT_EQ(table.live_windows(), 64 * kKiB);
  table.resume(1, clock.now());
  EXPECT_TRUE(hooks.announced.empty());
}

TEST_F(StreamTableTest, ASinkMayEndItsOwnStreamFromInsideTheBodyEvent) {
  test::RecordingSink sink;
  add(9, sink);
  sink.after_body = [this] { table.erase(9); };
  deliver(9, 40 * kKiB);
  EXPECT_EQ(sink.body.size(), 40 * kKiB);
  EXPECT_EQ(table.find(9), nullptr);
  EXPECT_TRUE(hooks.announced.empty());
  EXPECT_FALSE(table.next_deadline().has_value());
}

}  // namespace
}  // namespace sluice
