// The HTTP/2 rows of the fault matrix, end to end through sluice::Client against the
// in-process h2c H2TestServer: a TCP reset mid-headers and mid-body, GOAWAY storms
// (many GOAWAYs, a raised last stream id, new requests after a GOAWAY going to a new
// connection even at the per-origin limit), RST_STREAM storms and a rapid-reset
// flood, SETTINGS floods and invalid SETTINGS values, window overflows, a server
// sending past our window, and a stall ended by the idle timeout.
// Each case checks the Error's category and message, and that a cut body ends in an
// error from the reader, never in a short success.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "sluice/sluice.hpp"
#include "support/h2_test_peer.hpp"
#include "support/h2_test_server.hpp"
#include "support/make_client.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::H2ServerConnection;
using test::H2ServerStream;
using test::H2TestServer;

using test::make_client;

Request h2_request(const H2TestServer& server, std::string_view path) {
  Request request = Request::get(server.url(path));
  request.version = VersionPolicy::http2_prior_knowledge;
  // Waiting for a connection or stream is bounded: a request nobody starts fails
  // the test within this instead of hanging it.
  request.timeouts.connect = 5s;
  return request;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

std::string authority(const H2TestServer& server) {
  return "127.0.0.1:" + std::to_string(server.port());
}

// A one-shot signal between the test thread and a server connection thread. wait()
// gives up after a bound so a broken test fails instead of hanging.
class Gate {
 public:
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 10s, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Reads until the body ends; returns the bytes read and how it ended.
struct ReadOutcome {
  std::string bytes;
  std::optional<Error> error;
};

ReadOutcome read_until_end(BodyReader& body, std::size_t stop_after = SIZE_MAX) {
  ReadOutcome outcome;
  std::vector<std::byte> piece(16 * 1024);
  while (outcome.bytes.size() < stop_after) {
    auto got = body.read(piece);
    if (!got.ok()) {
      outcome.error = got.error();
      return outcome;
    }
    if (*got == 0) return outcome;
    outcome.bytes.append(reinterpret_cast<const char*>(piece.data()), *got);
  }
  return outcome;
}

// A HEADERS frame without END_HEADERS: the header block has begun and not ended.
// The session's own pending frames (a SETTINGS ACK) go first: one of them after it
// would be a connection error of its own.
void send_unfinished_headers(H2ServerStream& stream, std::string after = {}) {
  stream.conn().flush();
  stream.conn().send_raw(test::h2_frame(NGHTTP2_HEADERS, NGHTTP2_FLAG_NONE, stream.stream_id(),
                                        "\x88") +  // :status 200
                         after);
}

// --- Resets ---------------------------------------------------------------------

TEST(FaultMatrixH2, TcpResetMidHeadersFailsTheRequestNamingTheLostConnection) {
  H2TestServer server([](H2ServerStream& stream) {
    send_unfinished_headers(stream);
    stream.conn().reset_connection();
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/cut-head"));
  ASSERT_FALSE(response.ok()) << "a response whose header block never ended was accepted";
  EXPECT_EQ(response.error().category(), ErrorCategory::io) << response.error().message();
  EXPECT_EQ(
      response.error().message().rfind(
          "HTTP/2: connection to " + authority(server) + " lost before the response ended: ", 0),
      0u)
      << response.error().message();
  EXPECT_EQ(server.requests_seen(), 1u) << "a request on a new connection is not retried";
}

// A RST_STREAM cannot interrupt a header block (RFC 9113 6.10): the connection fails.
TEST(FaultMatrixH2, RstStreamInsideAHeaderBlockIsAConnectionError) {
  H2TestServer server([](H2ServerStream& stream) {
    send_unfinished_headers(stream, test::rst_stream_frame(stream.stream_id(), NGHTTP2_CANCEL));
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/reset-in-head"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol) << response.error().message();
  EXPECT_TRUE(contains(response.error().message(), "HTTP/2: ")) << response.error().message();
  EXPECT_TRUE(contains(response.error().message(), "(PROTOCOL_ERROR"))
      << response.error().message();
  EXPECT_TRUE(contains(response.error().message(), "CONTINUATION")) << response.error().message();
  EXPECT_TRUE(contains(response.error().message(), "the connection was closed"))
      << response.error().message();
}

TEST(FaultMatrixH2, TcpResetMidBodyFailsTheReaderAfterTheBytesThatArrived) {
  Gate bytes_read;
  H2TestServer server([&bytes_read](H2ServerStream& stream) {
    stream.respond(200, {{"content-length", "5000"}});
    stream.send_body(std::string(1000, 'b'), false);
    if (!bytes_read.wait()) return;
    stream.conn().reset_connection();
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/cut-body"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  ReadOutcome first = read_until_end(response->body, 1000);
  bytes_read.open();
  ASSERT_FALSE(first.error.has_value()) << first.error->message();
  ReadOutcome rest = read_until_end(response->body);
  ASSERT_TRUE(rest.error.has_value()) << "a reset body ended as a short success after "
                                      << first.bytes.size() + rest.bytes.size() << " bytes";
  EXPECT_EQ(first.bytes.size() + rest.bytes.size(), 1000u);
  EXPECT_EQ(rest.error->category(), ErrorCategory::io) << rest.error->message();
  EXPECT_EQ(rest.error->message(), "HTTP/2: connection to " + authority(server) +
                                       " lost before the response ended: connection reset by peer");
}

// --- GOAWAY storms --------------------------------------------------------------

TEST(FaultMatrixH2, ManyGoawaysLetTheKeptStreamFinishAndNewRequestsUseANewConnection) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.conn().index() > 1) {
      stream.respond(200);
      stream.send_body("from connection " + std::to_string(stream.conn().index()), true);
      return;
    }
    stream.respond(200);
    stream.send_body("kept ", false);
    std::string storm;
    for (int i = 0; i < 1000; ++i) {
      storm += test::goaway_frame(stream.stream_id(), NGHTTP2_NO_ERROR, "draining");
    }
    stream.conn().send_raw(storm);
    stream.send_body("and finished", true);
  });
  auto client = make_client();
  auto first = client.fetch(h2_request(server, "/kept"));
  ASSERT_TRUE(first.ok()) << first.error().message();
  auto body = first->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "kept and finished");

  auto second = client.fetch(h2_request(server, "/after"));
  ASSERT_TRUE(second.ok()) << second.error().message();
  auto second_body = second->body.read_all();
  ASSERT_TRUE(second_body.ok()) << second_body.error().message();
  EXPECT_EQ(*second_body, "from connection 2");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{1, 1}));
}

// RFC 9113 6.8: a GOAWAY may not raise the last stream id: requests the client
// already retried elsewhere would then count as processed here.
TEST(FaultMatrixH2, GoawayRaisingTheLastStreamIdIsAProtocolError) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body(std::string(100, 'g'), false);
    stream.conn().send_raw(test::goaway_frame(1, NGHTTP2_NO_ERROR) +
                           test::goaway_frame(3, NGHTTP2_NO_ERROR));
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/raised"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a cut body ended as a short success of " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(),
            "HTTP/2: server sent an invalid GOAWAY frame: last stream id 3 is higher than an "
            "earlier GOAWAY's or names no stream sluice opened (PROTOCOL_ERROR); the connection "
            "was closed");
}

// A connection draining after GOAWAY no longer counts toward
// max_connections_per_origin: with a limit of 1, a new request opens a second
// connection instead of waiting for the first to finish its kept stream.
TEST(FaultMatrixH2, GoawayedConnectionDoesNotHoldTheOriginsOnlyConnectionSlot) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.conn().index() > 1) {
      stream.respond(200);
      stream.send_body("fresh connection", true);
      return;
    }
    stream.respond(200);
    stream.send_body("begun, never finished", false);
    stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR, "restarting");
  });
  ClientOptions options;
  options.pool.max_connections_per_origin = 1;
  auto client = make_client(options);
  auto slow = client.fetch(h2_request(server, "/slow"));
  ASSERT_TRUE(slow.ok()) << slow.error().message();

  PendingResponse pending = client.send(h2_request(server, "/next"));
  auto decided = pending.wait_for(10s);
  ASSERT_TRUE(decided.has_value()) << "the request waited for the draining connection";
  ASSERT_TRUE(decided->ok()) << decided->error().message();
  auto body = (*decided)->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "fresh connection");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(client.stats().connections, 2u) << "the draining connection was closed early";
}

// A server that sends GOAWAY on every connection while its streams never finish:
// draining connections leave their slot, but no more of them than the limit stay
// open besides it, so the client cannot end up with one socket per transfer.
TEST(FaultMatrixH2, DrainingConnectionsBesideTheLimitAreCapped) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    if (stream.conn().index() >= 3) {
      stream.send_body("fresh connection", true);
      return;
    }
    stream.send_body("begun, never finished", false);
    stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR, "restarting");
  });
  ClientOptions options;
  options.pool.max_connections_per_origin = 1;
  auto client = make_client(options);
  PendingResponse first_pending = client.send(h2_request(server, "/first"));
  auto first = first_pending.wait();
  ASSERT_TRUE(first.ok()) << first.error().message();
  auto second = client.fetch(h2_request(server, "/second"));
  ASSERT_TRUE(second.ok()) << second.error().message();
  PendingResponse third = client.send(h2_request(server, "/third"));
  EXPECT_FALSE(third.wait_for(500ms).has_value())
      << "a third connection opened beside two draining";
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{1, 1}));

  // Its stream is cancelled (dropping a reader under its mark would let the body
  // complete instead, and this one never does), so its draining connection ends.
  first_pending.cancel();
  auto decided = third.wait_for(10s);
  ASSERT_TRUE(decided.has_value()) << "the third request never got the freed slot";
  ASSERT_TRUE(decided->ok()) << decided->error().message();
  EXPECT_EQ(*(*decided)->body.read_all(), "fresh connection");
}

// --- RST_STREAM storms ----------------------------------------------------------

TEST(FaultMatrixH2, ResetStormFailsEachResetStreamAloneAndSparesItsSiblings) {
  constexpr int kRequests = 20;
  std::mutex mu;
  std::map<std::string, std::int32_t> stream_of;  // path -> stream id, guarded by mu
  H2TestServer server([&](H2ServerStream& stream) {
    H2ServerConnection& conn = stream.conn();
    if (conn.requests_seen() < kRequests) return;  // all in flight first
    for (std::int32_t stream_id : conn.peer().request_ids()) {
      H2ServerStream each = conn.stream(stream_id);
      const std::string path = each.path();
      {
        std::lock_guard<std::mutex> lock(mu);
        stream_of[path] = stream_id;
      }
      each.respond(200);
      if (path.find("/reset") == 0) {
        each.send_body(std::string(300, 'r'), false);
        each.reset(NGHTTP2_INTERNAL_ERROR);
      } else {
        each.send_body("whole " + path, true);
      }
    }
  });
  auto client = make_client();
  std::vector<std::pair<std::string, PendingResponse>> pending;
  for (int i = 0; i < kRequests; ++i) {
    const std::string path = (i % 2 == 0 ? "/reset" : "/ok") + std::to_string(i);
    pending.emplace_back(path, client.send(h2_request(server, path)));
  }
  for (auto& [path, each] : pending) {
    auto response = each.wait();
    ASSERT_TRUE(response.ok()) << path << ": " << response.error().message();
    auto body = response->body.read_all();
    if (path.find("/ok") == 0) {
      ASSERT_TRUE(body.ok()) << path << ": " << body.error().message();
      EXPECT_EQ(*body, "whole " + path);
      continue;
    }
    ASSERT_FALSE(body.ok()) << path << ": a reset body ended as a short success";
    EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(body.error().message(), "HTTP/2: stream " + std::to_string(stream_of[path]) +
                                          " reset by server (INTERNAL_ERROR)");
  }
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{kRequests}));
}

// Thousands of RST_STREAMs for a stream already closed (the rapid-reset pattern
// seen from the client's side) are ignored: the connection keeps serving.
TEST(FaultMatrixH2, RapidResetFloodForAClosedStreamLeavesTheConnectionServing) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.path() != "/flooded") {
      stream.respond(200);
      stream.send_body("still serving", true);
      return;
    }
    stream.reset(NGHTTP2_CANCEL);
    std::string flood;
    for (int i = 0; i < 20000; ++i)
      flood += test::rst_stream_frame(stream.stream_id(), NGHTTP2_CANCEL);
    stream.conn().send_raw(flood);
  });
  auto client = make_client();
  auto flooded = client.fetch(h2_request(server, "/flooded"));
  ASSERT_FALSE(flooded.ok());
  EXPECT_EQ(flooded.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(flooded.error().message(), "HTTP/2: stream 1 reset by server (CANCEL)");

  auto after = client.fetch(h2_request(server, "/after"));
  ASSERT_TRUE(after.ok()) << after.error().message();
  auto body = after->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "still serving");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{2}));
}

// --- SETTINGS -------------------------------------------------------------------

// Below nghttp2's bound of 1000 unsent acknowledgements every SETTINGS is answered
// and the response goes on.
TEST(FaultMatrixH2, SettingsBurstUnderTheAckBoundIsAcknowledgedAndTheResponseCompletes) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.conn().discard_input();  // the client's ACKs answer SETTINGS the session never sent
    std::string burst;
    for (int i = 0; i < 900; ++i) {
      burst += test::settings_frame({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}});
    }
    stream.conn().send_raw(burst);
    stream.send_body("after the burst", true);
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/burst"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "after the burst");
}

// 50,000 SETTINGS (750 KB) arrive far faster than they can be answered: the
// acknowledgements waiting to be sent reach the bound and the connection closes with
// an error that says so, instead of a queue that grows with the flood. (The session
// test FloodOfSettingsFromAServerThatDoesNotReadClosesTheConnection is exact about
// the bound.)
TEST(FaultMatrixH2, SettingsFloodClosesTheConnectionWithAClearError) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body("before the flood", false);
    stream.conn().discard_input();
    const std::string frame =
        test::settings_frame({{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100}});
    std::string flood;
    flood.reserve(frame.size() * 50000);
    for (int i = 0; i < 50000; ++i) flood += frame;
    stream.conn().send_raw(flood);
    stream.send_body("never whole", true);
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/flood"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "the body completed: " << *body;
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(),
            "HTTP/2: server flooded the connection with frames that need answers (over 1000 "
            "SETTINGS or PING acknowledgements waiting to be sent); the connection was closed");
}

struct InvalidSetting {
  const char* name;
  std::int32_t id;
  std::uint32_t value;
  const char* expected;  // the message after "HTTP/2: server sent an invalid SETTINGS frame: "
};

// Names the case in test output (gtest would print the struct's raw bytes).
void PrintTo(const InvalidSetting& setting, std::ostream* out) { *out << setting.name; }

class FaultMatrixH2InvalidSettings : public ::testing::TestWithParam<InvalidSetting> {};

TEST_P(FaultMatrixH2InvalidSettings, ClosesTheConnectionNamingTheSettingAndItsValue) {
  const InvalidSetting setting = GetParam();
  H2TestServer server([setting](H2ServerStream& stream) {
    stream.conn().send_raw(test::settings_frame({{setting.id, setting.value}}));
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/settings"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(response.error().message(),
            std::string("HTTP/2: server sent an invalid SETTINGS frame: ") + setting.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Settings, FaultMatrixH2InvalidSettings,
    ::testing::Values(
        InvalidSetting{
            "InitialWindowOver2To31", NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 2147483648u,
            "SETTINGS_INITIAL_WINDOW_SIZE of 2147483648 is over the largest flow-control "
            "window, 2147483647 (FLOW_CONTROL_ERROR); the connection was closed"},
        InvalidSetting{"MaxFrameSizeBelow16K", NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 100,
                       "SETTINGS_MAX_FRAME_SIZE of 100 is outside 16384..16777215 "
                       "(PROTOCOL_ERROR); the connection was closed"},
        InvalidSetting{"MaxFrameSizeOver16M", NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 16777216,
                       "SETTINGS_MAX_FRAME_SIZE of 16777216 is outside 16384..16777215 "
                       "(PROTOCOL_ERROR); the connection was closed"}),
    [](const ::testing::TestParamInfo<InvalidSetting>& each) {
      return std::string(each.param.name);
    });

// --- Windows --------------------------------------------------------------------

TEST(FaultMatrixH2, WindowUpdatePastTheLargestConnectionWindowClosesTheConnection) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    stream.send_body("some", false);
    stream.conn().send_raw(test::window_update_frame(0, 0x7fffffff));
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/window"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a cut body ended as a short success of " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(),
            "HTTP/2: server sent an invalid WINDOW_UPDATE frame: an increment of 2147483647 pushes "
            "the connection's send window past 2147483647 (FLOW_CONTROL_ERROR); the connection "
            "was closed");
}

TEST(FaultMatrixH2, WindowUpdatePastTheLargestStreamWindowResetsOnlyThatStream) {
  H2TestServer server([](H2ServerStream& stream) {
    if (stream.path() == "/overflow") {
      stream.respond(200);
      stream.send_body("some", false);
      stream.conn().send_raw(test::window_update_frame(stream.stream_id(), 0x7fffffff));
      return;
    }
    stream.respond(200);
    stream.send_body("sibling fine", true);
  });
  auto client = make_client();
  auto response = client.fetch(h2_request(server, "/overflow"));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a cut body ended as a short success of " << body->size() << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(),
            "HTTP/2: server sent an invalid WINDOW_UPDATE frame on stream 1: an increment of "
            "2147483647 pushes the stream's send window past 2147483647 (FLOW_CONTROL_ERROR); the "
            "stream was reset");

  auto sibling = client.fetch(h2_request(server, "/sibling"));
  ASSERT_TRUE(sibling.ok()) << sibling.error().message();
  auto sibling_body = sibling->body.read_all();
  ASSERT_TRUE(sibling_body.ok()) << sibling_body.error().message();
  EXPECT_EQ(*sibling_body, "sibling fine");
  EXPECT_EQ(server.requests_per_connection(), (std::vector<std::size_t>{2}));
}

// The reader takes nothing, so no window goes back: 80 KiB is past any window the
// stream had (the protocol's 65535 before our SETTINGS are acknowledged, its 16 KiB
// mark after).
TEST(FaultMatrixH2, ServerSendingPastOurWindowGetsFlowControlErrorAndTheReaderAnError) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200);
    std::string frames;
    for (int i = 0; i < 5; ++i)
      frames += test::data_frame(stream.stream_id(), std::string(16384, 'w'), false);
    stream.conn().send_raw(frames);
  });
  auto client = make_client();
  Request request = h2_request(server, "/overrun");
  request.allowance = {16 * 1024, 16 * 1024};
  request.timeouts.idle = 3s;  // should the window open after all: fail, do not hang
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  // Nothing is read (so no window goes back) until the overrun has arrived: the
  // client reset the stream and the transfer ended, failed.
  ASSERT_TRUE(test::eventually([&] { return client.stats().in_flight == 0; }))
      << "the overrun never ended the transfer; buffered " << response->body.buffered();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "an overrun body ended as a short success of " << body->size()
                          << " bytes";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(),
            "HTTP/2: server sent more data on stream 1 than its flow-control window allows "
            "(FLOW_CONTROL_ERROR); the stream was reset");
}

// --- Stalls ---------------------------------------------------------------------

TEST(FaultMatrixH2, StallAfterTheHeadersEndsByTheIdleTimeout) {
  H2TestServer server([](H2ServerStream& stream) {
    stream.respond(200, {{"content-length", "1000"}});
    stream.send_body(std::string(10, 's'), false);  // and nothing more
  });
  auto client = make_client();
  Request request = h2_request(server, "/stall");
  request.timeouts.idle = 500ms;
  auto response = client.fetch(request);
  ASSERT_TRUE(response.ok()) << response.error().message();
  ReadOutcome read = read_until_end(response->body);
  ASSERT_TRUE(read.error.has_value()) << "a stalled body ended as a short success";
  EXPECT_EQ(read.bytes, std::string(10, 's'));
  EXPECT_EQ(read.error->category(), ErrorCategory::timeout) << read.error->message();
  EXPECT_EQ(read.error->message(),
            "idle timeout: no data from " + authority(server) + " for 500 ms");
}

TEST(FaultMatrixH2, StallBeforeTheHeadersEndsByTheIdleTimeout) {
  H2TestServer server([](H2ServerStream&) {});  // takes the request, never answers
  auto client = make_client();
  Request request = h2_request(server, "/silent");
  request.timeouts.idle = 500ms;
  auto response = client.fetch(request);
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::timeout) << response.error().message();
  EXPECT_EQ(response.error().message(),
            "idle timeout: no response from " + authority(server) + " for 500 ms");
}

}  // namespace
}  // namespace sluice
