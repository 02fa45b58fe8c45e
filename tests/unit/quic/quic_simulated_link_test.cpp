// QuicCodec and H3Session over a simulated link on a manual clock, against our own
// QUIC + HTTP/3 server (ngtcp2 and nghttp3 on the other side too): delay, loss and
// reordering as a real path has them, with seconds of retransmission timers and
// timeouts passing in no real time and the same way every run.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "http3/h3_session.hpp"
#include "quic/quic_codec.hpp"
#include "support/h2_test_peer.hpp"
#include "support/manual_clock.hpp"
#include "support/quic_test_server.hpp"
#include "support/simulated_link.hpp"
#include "support/test_body.hpp"
#include "support/test_certs.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::LinkProfile;
using test::QuicTestResponse;
using test::RecordingSink;

SocketAddress address(std::uint16_t port) { return *SocketAddress::from_ip("127.0.0.1", port); }

// The server as the link sees it.
class ServerOnLink final : public test::LinkServer {
 public:
  explicit ServerOnLink(test::QuicTestServer& server) : server_(server) {}
  void receive(std::span<const std::uint8_t> datagram, TimePoint now) override {
    server_.receive(datagram, now);
  }
  std::vector<std::vector<std::uint8_t>> send(TimePoint now) override { return server_.send(now); }
  std::optional<TimePoint> next_expiry() const override { return server_.next_expiry(); }
  void on_expiry(TimePoint now) override { server_.on_expiry(now); }

 private:
  test::QuicTestServer& server_;
};

class QuicSimulatedLinkTest : public ::testing::Test {
 protected:
  // The link and the server's answers; then connect() makes the client.
  void SetUp() override {}

  void connect(LinkProfile profile, test::QuicTestHandler handler = {}, QuicOptions options = {}) {
    link_ = std::make_unique<test::SimulatedLink>(clock_, std::move(profile));
    test::QuicTestServerOptions server_options;
    server_options.cert_file = test::test_certs().server_cert;
    server_options.key_file = test::test_certs().server_key;
    server_options.server_address = address(4433);
    server_options.client_address = address(50000);
    server_options.handler = std::move(handler);
    server_ = std::make_unique<test::QuicTestServer>(std::move(server_options));
    on_link_ = std::make_unique<ServerOnLink>(*server_);

    options.remote = address(4433);
    options.host = "localhost";
    options.ca_file = test::test_certs().ca_file;
    auto codec = QuicCodec::create(std::move(options), {address(50000), address(4433)}, *link_,
                                   session_, trace_, 1);
    ASSERT_TRUE(codec) << codec.error().message();
    codec_ = std::move(codec).value();
    link_->attach(*codec_, *on_link_);
    started_ = clock_.now();
  }

  bool handshake() {
    return link_->run_until([&] { return session_.ready() || codec_->is_closed(); }) &&
           session_.ready();
  }

  std::int64_t get(RecordingSink& sink, std::string target = "/") {
    ExchangeRequest request;
    request.method = "GET";
    request.scheme = "https";
    request.authority = "localhost";
    request.target = std::move(target);
    // RecordingSink holds at 256 KiB: the allowance is fixed there, as the sink knows
    // no other (it ignores on_allowance).
    request.allowance = BodyAllowance{256 * 1024, 256 * 1024};
    auto submitted = session_.submit(request, sink);
    EXPECT_TRUE(submitted) << submitted.error().message();
    codec_->request_write();
    return submitted ? *submitted : -1;
  }

  bool finished(const RecordingSink& sink) const { return sink.completed || sink.error; }
  std::chrono::milliseconds elapsed() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - started_);
  }

  test::ManualClock clock_;
  std::vector<std::string> lines_;
  Trace trace_{[this](std::string_view line) { lines_.emplace_back(line); }};
  H3Session session_{trace_, 1, clock_};
  std::unique_ptr<test::SimulatedLink> link_;
  std::unique_ptr<test::QuicTestServer> server_;
  std::unique_ptr<ServerOnLink> on_link_;
  std::unique_ptr<QuicCodec> codec_;  // before the link and server it points to go
  TimePoint started_;
};

LinkProfile delay(std::chrono::milliseconds one_way) {
  LinkProfile profile;
  profile.one_way_delay = one_way;
  return profile;
}

test::QuicTestHandler generated(std::uint64_t size) {
  return [size](const test::QuicTestRequest&) { return QuicTestResponse::generated(size); };
}

// A 1-RTT handshake and a request take two round trips of simulated time: the
// delay is real to both stacks.
TEST_F(QuicSimulatedLinkTest, AGetTakesTwoRoundTripsOfSimulatedTime) {
  connect(delay(25ms), [](const test::QuicTestRequest& request) {
    return QuicTestResponse::text("hello " + request.path());
  });
  ASSERT_TRUE(handshake());
  EXPECT_GE(elapsed(), 50ms);
  RecordingSink sink;
  get(sink, "/there");
  ASSERT_TRUE(link_->run_until([&] { return finished(sink); }));
  ASSERT_TRUE(sink.completed) << sink.error->message();
  EXPECT_EQ(sink.body, "hello /there");
  EXPECT_GE(elapsed(), 100ms);
  EXPECT_LT(elapsed(), 200ms);
  EXPECT_EQ(link_->lost(), 0u);
}

// 0-RTT: one connection over its own link to its own server (which issues tickets
// that allow early data), sharing the client's TLS context, so the second one
// resumes. The GET is submitted as soon as the session takes requests: before the
// first packet leaves when early data is possible, else after the handshake.
struct EarlyDataRound {
  std::chrono::milliseconds request_seen_after{0};  // by the server's handler
  std::chrono::milliseconds answered_after{0};
  bool server_accepted_early_data = false;
  std::string body;
};

EarlyDataRound get_over_new_connection(test::ManualClock& clock,
                                       std::shared_ptr<const QuicTlsContext> context) {
  EarlyDataRound round;
  Trace trace;
  test::SimulatedLink link(clock, delay(25ms));
  test::QuicTestServerOptions server_options;
  server_options.cert_file = test::test_certs().server_cert;
  server_options.key_file = test::test_certs().server_key;
  server_options.server_address = address(4433);
  server_options.client_address = address(50000);
  server_options.session_tickets = true;
  server_options.accept_early_data = true;
  const TimePoint started = clock.now();
  server_options.handler = [&](const test::QuicTestRequest& request) {
    round.request_seen_after =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started);
    return QuicTestResponse::text("hello " + request.path());
  };
  test::QuicTestServer server(std::move(server_options));
  ServerOnLink on_link(server);
  H3Session session(trace, 1, clock);
  QuicOptions options;
  options.remote = address(4433);
  options.host = "localhost";
  options.tls_context = std::move(context);
  auto codec = QuicCodec::create(std::move(options), {address(50000), address(4433)}, link, session,
                                 trace, 1);
  EXPECT_TRUE(codec) << codec.error().message();
  if (!codec) return round;
  link.attach(**codec, on_link);
  RecordingSink sink;
  bool submitted = false;
  const bool done = link.run_until([&] {
    if (!submitted && session.ready()) {
      ExchangeRequest request;
      request.method = "GET";
      request.scheme = "https";
      request.authority = "localhost";
      request.target = "/early";
      submitted = session.submit(request, sink).ok();
      (*codec)->request_write();
    }
    return sink.completed || sink.error || (*codec)->is_closed();
  });
  EXPECT_TRUE(done && sink.completed) << (sink.error ? sink.error->message() : "");
  round.answered_after =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started);
  round.server_accepted_early_data = server.early_data_accepted();
  round.body = sink.body;
  return round;
}

TEST(QuicSimulatedLinkEarlyData, AResumedGetWithEarlyDataReachesTheServerARoundTripSooner) {
  test::ManualClock clock;
  TlsOptions tls;
  tls.ca_file = test::test_certs().ca_file;
  tls.early_data = true;
  auto context = QuicTlsContext::create(tls);
  ASSERT_TRUE(context) << context.error().message();

  // No ticket yet: the GET leaves after the handshake's round trip (50 ms) and
  // arrives 25 ms later.
  const EarlyDataRound first = get_over_new_connection(clock, *context);
  EXPECT_EQ(first.body, "hello /early");
  EXPECT_FALSE(first.server_accepted_early_data);
  EXPECT_GE(first.request_seen_after, 75ms);
  EXPECT_GE(first.answered_after, 100ms);

  // Resumed: the GET leaves with the ClientHello and arrives with it, one way
  // later. (This server answers only once the handshake completed, so the answer
  // still comes at 100 ms; a server that sends before, as 0.5-RTT data, answers
  // at 50.)
  const EarlyDataRound second = get_over_new_connection(clock, *context);
  EXPECT_EQ(second.body, "hello /early");
  EXPECT_TRUE(second.server_accepted_early_data);
  EXPECT_GE(second.request_seen_after, 25ms);
  EXPECT_LT(second.request_seen_after, 50ms);
  EXPECT_EQ((*context)->tickets().early_accepted, 1u);
  EXPECT_EQ((*context)->tickets().resumed, 1u);
}

// Loss and reordering both ways: retransmission brings every byte, in order.
TEST_F(QuicSimulatedLinkTest, ALossyReorderingPathStillDeliversEveryByte) {
  LinkProfile profile = delay(10ms);
  profile.loss_percent = 3;
  profile.reorder_percent = 5;
  profile.reorder_delay = 4ms;
  connect(profile, generated(1024 * 1024));
  ASSERT_TRUE(handshake());
  RecordingSink sink(4 * 1024 * 1024);
  get(sink);
  ASSERT_TRUE(link_->run_until([&] { return finished(sink); }));
  ASSERT_TRUE(sink.completed) << sink.error->message();
  EXPECT_EQ(test::generated_body_mismatch(sink.body, 1024 * 1024, 1), "");
  EXPECT_GT(link_->lost(), 0u);
  EXPECT_GT(link_->reordered(), 0u);
}

// The client's first Initial is lost: its probe timeout (ngtcp2's initial RTT is
// 333 ms, so about a second) sends it again and the handshake completes then.
TEST_F(QuicSimulatedLinkTest, ALostFirstInitialIsSentAgainAfterTheProbeTimeout) {
  LinkProfile profile = delay(5ms);
  profile.drop_from_client = [](std::size_t index) { return index == 0; };
  connect(profile);
  ASSERT_TRUE(handshake());
  EXPECT_GE(elapsed(), 333ms);
  EXPECT_LT(elapsed(), 5s);
  EXPECT_EQ(link_->lost(), 1u);
}

// A server that never answers: the handshake timeout ends the connection, at its
// time and not before.
TEST_F(QuicSimulatedLinkTest, AServerThatNeverAnswersFailsTheHandshakeAtItsTimeout) {
  LinkProfile profile = delay(5ms);
  profile.drop_from_client = [](std::size_t) { return true; };
  QuicOptions options;
  options.handshake_timeout = 3s;
  connect(profile, {}, options);
  EXPECT_FALSE(handshake());
  ASSERT_TRUE(codec_->is_closed());
  EXPECT_GE(elapsed(), 3s);
  EXPECT_LT(elapsed(), 4s);
  EXPECT_TRUE(link_->closed());
}

// Nothing moves after a response: the idle timeout closes the connection silently
// (RFC 9000 10.1), at the agreed time.
TEST_F(QuicSimulatedLinkTest, AnIdleConnectionClosesAtItsIdleTimeout) {
  QuicOptions options;
  options.idle_timeout = 2s;
  connect(delay(5ms), {}, options);
  ASSERT_TRUE(handshake());
  RecordingSink sink;
  get(sink);
  ASSERT_TRUE(link_->run_until([&] { return finished(sink); }));
  const TimePoint quiet_from = clock_.now();
  ASSERT_TRUE(link_->run_until([&] { return codec_->is_closed(); }));
  const auto quiet = clock_.now() - quiet_from;
  EXPECT_GE(quiet, 2s);
  EXPECT_LT(quiet, 3s);
  EXPECT_FALSE(server_->client_close());  // silent: no CONNECTION_CLOSE
}

// A consumer that takes nothing: the server may send the stream's window and no
// more, however long the link runs; taking it lets the rest come.
TEST_F(QuicSimulatedLinkTest, AHeldStreamStopsTheServerAtItsWindow) {
  connect(delay(10ms), generated(4 * 1024 * 1024));
  ASSERT_TRUE(handshake());
  constexpr std::size_t kMark = 256 * 1024;
  RecordingSink sink(kMark);
  sink.hold();
  const std::int64_t stream = get(sink);
  EXPECT_FALSE(link_->run_until([&] { return finished(sink); }, 10s));
  EXPECT_GE(sink.body.size(), kMark / 2);
  EXPECT_LE(sink.body.size(), 2 * kMark);  // the mark plus what was in flight
  EXPECT_FALSE(codec_->is_closed());
  // The consumer takes all it holds, then the link runs until the sink holds a mark
  // again (paused) or the body ended: a stall fails run_until.
  while (!finished(sink)) {
    if (sink.take(sink.body.size())) session_.resume_stream(stream);
    ASSERT_TRUE(link_->run_until([&] { return finished(sink) || !sink.wants_body(); }, 10s));
  }
  ASSERT_TRUE(sink.completed) << sink.error->message();
  EXPECT_EQ(test::generated_body_mismatch(sink.body, 4 * 1024 * 1024, 1), "");
}

}  // namespace
}  // namespace sluice
