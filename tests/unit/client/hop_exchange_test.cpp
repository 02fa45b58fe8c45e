// HopExchange: the id it keeps is the exchange now running for the hop, also when a
// start failed inside the connection and the fetch attached again before start()
// returned; resume and abandon reach only that exchange.
#include "client/fetch/hop_exchange.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace sluice {
namespace {

// A connection that records what is asked of it; `on_start` runs inside start().
class RecordingConnection final : public Connection {
 public:
  explicit RecordingConnection(ExchangeId next_id, bool reused = false)
      : next_id_(next_id), reused_(reused) {}
  std::function<void(ExchangeSink&)> on_start;
  std::vector<ExchangeId> resumed, cancelled;
  bool closed = false;

  ExchangeId start(ExchangeRequest, ExchangeSink& sink) override {
    if (on_start) on_start(sink);
    return next_id_;
  }
  void resume(ExchangeId id) override { resumed.push_back(id); }
  void cancel(ExchangeId id) override { cancelled.push_back(id); }
  HttpVersion version() const noexcept override { return HttpVersion::http2; }
  std::size_t available_streams() const noexcept override { return 1; }
  bool idle() const noexcept override { return false; }
  bool was_reused() const noexcept override { return reused_; }
  bool is_closed() const noexcept override { return closed; }
  std::size_t release_scratch(std::chrono::steady_clock::time_point) override { return 0; }
  std::size_t scratch_bytes() const noexcept override { return 0; }
  void close(Error) override { closed = true; }
  std::uint64_t id() const noexcept override { return 1; }

 private:
  ExchangeId next_id_;
  bool reused_;
};

class NullSink final : public ExchangeSink {
 public:
  void on_response_head(ReceivedHead) override {}
  void on_body(std::span<const std::byte>) override {}
  void on_trailers(Headers) override {}
  void on_complete() override {}
  void on_error(Error) override {}
  bool wants_body() const override { return true; }
  std::size_t held_bytes() const override { return 0; }
};

TEST(HopExchange, ResumeAndAbandonReachTheExchangeThatRuns) {
  HopExchange hop;
  NullSink sink;
  RecordingConnection conn(7, /*reused=*/true);
  EXPECT_FALSE(hop.running());
  hop.attach(conn);
  EXPECT_TRUE(hop.reused());
  hop.start({}, sink);
  hop.resume();
  EXPECT_EQ(conn.resumed, (std::vector<ExchangeId>{7}));
  hop.abandon();
  EXPECT_EQ(conn.cancelled, (std::vector<ExchangeId>{7}));
  EXPECT_FALSE(hop.running());
  hop.abandon();  // nothing runs: nothing more is cancelled
  hop.resume();
  EXPECT_EQ(conn.cancelled.size(), 1u);
  EXPECT_EQ(conn.resumed.size(), 1u);
}

// The first connection's start fails inside (its sink ends the exchange) and the
// fetch, from inside that report, attaches the second connection and starts there.
// The outer start() returns the first connection's id last: it must not replace the
// second exchange's.
TEST(HopExchange, AStartThatRetriedInsideKeepsTheRetrysIdNotItsOwn) {
  HopExchange hop;
  NullSink sink;
  RecordingConnection first(1), second(2);
  first.on_start = [&](ExchangeSink& s) {
    hop.ended();  // the sink heard the failure
    hop.attach(second);
    hop.start({}, s);
  };
  hop.attach(first);
  hop.start({}, sink);
  EXPECT_EQ(hop.connection(), &second);
  hop.abandon();
  EXPECT_TRUE(first.cancelled.empty());
  EXPECT_EQ(second.cancelled, (std::vector<ExchangeId>{2}));
}

TEST(HopExchange, AnEndedExchangeForgetsItsConnectionAndADeadOneIsSeen) {
  HopExchange hop;
  NullSink sink;
  RecordingConnection conn(3);
  hop.attach(conn);
  hop.start({}, sink);
  EXPECT_FALSE(hop.connection_died());
  conn.closed = true;
  EXPECT_TRUE(hop.connection_died());
  hop.ended();
  EXPECT_FALSE(hop.connection_died());
  EXPECT_EQ(hop.connection(), nullptr);
  hop.abandon();
  EXPECT_TRUE(conn.cancelled.empty());
}

}  // namespace
}  // namespace sluice
