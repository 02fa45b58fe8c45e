// What the seam between the client and the protocols promises where a sink or a
// connection keeps the defaults: an unprocessed request and refused early data reach
// on_error unless the sink tells them apart, a sink that says nothing about credit
// wants the transport's usual behaviour, and a connection that is not its own
// handshake reports no certificate verdict and no close reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "connection/connection.hpp"
#include "connection/exchange.hpp"

namespace sluice {
namespace {

// Keeps every default; records the errors it is told.
class PlainSink final : public ExchangeSink {
 public:
  std::vector<std::string> errors;
  void on_response_head(ReceivedHead) override {}
  void on_body(std::span<const std::byte>) override {}
  void on_trailers(Headers) override {}
  void on_complete() override {}
  void on_error(Error error) override { errors.push_back(error.message()); }
  bool wants_body() const override { return true; }
  std::size_t held_bytes() const override { return 0; }
};

TEST(ExchangeSinkDefaults, UnprocessedAndRefusedEarlyDataEndAsErrorsUnlessTheSinkSaysOtherwise) {
  PlainSink sink;
  sink.on_unprocessed(Error(ErrorCategory::protocol, "refused stream"));
  sink.on_early_data_refused(Error(ErrorCategory::protocol, "0-RTT refused"));
  EXPECT_EQ(sink.errors, (std::vector<std::string>{"refused stream", "0-RTT refused"}));
}

TEST(ExchangeSinkDefaults, ASinkThatSaysNothingOfCreditTakesWhateverComes) {
  PlainSink sink;
  EXPECT_TRUE(sink.may_extend_window());
  EXPECT_EQ(sink.body_room(), SIZE_MAX);
  EXPECT_TRUE(sink.body_space(4096).empty());  // no memory of its own: received as usual
  sink.report_taken_after(100);                // no report wanted: nothing happens
  sink.on_allowance(1 << 20);
  EXPECT_TRUE(sink.errors.empty());
}

// A connection made by a connector (TCP, TLS): its maker knows the handshake.
class MadeConnection final : public Connection {
 public:
  Error closed_with{ErrorCategory::io, "open"};
  HttpVersion version() const noexcept override { return HttpVersion::http1_1; }
  std::size_t available_streams() const noexcept override { return 1; }
  bool idle() const noexcept override { return true; }
  bool was_reused() const noexcept override { return false; }
  bool is_closed() const noexcept override { return false; }
  ExchangeId start(ExchangeRequest, ExchangeSink&) override { return 0; }
  void resume(ExchangeId) override {}
  void cancel(ExchangeId) override {}
  std::size_t release_scratch(std::chrono::steady_clock::time_point) override { return 0; }
  std::size_t scratch_bytes() const noexcept override { return 0; }
  void close(Error error) override { closed_with = std::move(error); }
  std::uint64_t id() const noexcept override { return 9; }
};

TEST(ConnectionDefaults, AConnectionNotItsOwnHandshakeReportsNoVerdictAndAbandonIsClose) {
  MadeConnection conn;
  EXPECT_EQ(conn.handshake_verify_result(), 0);
  EXPECT_FALSE(conn.handshake_tls_info().has_value());
  EXPECT_FALSE(conn.close_reason().has_value());
  EXPECT_FALSE(conn.draining());
  EXPECT_FALSE(conn.early());
  EXPECT_FALSE(conn.served_before_refusal().has_value());
  conn.abandon(Error(ErrorCategory::cancelled, "given up"));
  EXPECT_EQ(conn.closed_with.message(), "given up");
}

}  // namespace
}  // namespace sluice
