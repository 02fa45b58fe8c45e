// QuicConnection against real QUIC servers, its streams: hand-encoded HTTP/3
// requests downloading and uploading, stream flow control as backpressure (a held
// stream stops at its window, its sibling goes on; a small credit still reaches a
// server that used its window up), and the server closing the connection.

#include "quic_test_peer.hpp"
#include "support/test_env.hpp"

namespace sluice::quic_test {
namespace {

using namespace std::chrono_literals;

// The same fixture; its own name keeps the two files' tests apart in listings.
class QuicStreamsTest : public QuicConnectionTest {};

TEST_F(QuicStreamsTest, DownloadsAFileOverAHandEncodedRequest) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  std::int64_t request = -1;
  app_.on_ready = [&](QuicStreams& streams) {
    request = start_request(streams, get_request("localhost", "/1m.bin"), 256 * 1024);
  };
  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(
      run_until(loop_, [&] { return app_.closed || (request >= 0 && app_.in[request].fin); }))
      << "received " << app_.in[request].received;

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(request, 0);
  EXPECT_TRUE(app_.in[request].frames.saw_headers());
  EXPECT_EQ(app_.in[request].frames.data_bytes(), kFileSize);
  EXPECT_TRUE(app_.out[request].fin_written);
}

TEST_F(QuicStreamsTest, DownloadsAFileFromCaddy) {
  test::TestEnv env;
  const std::string url = env.get("SLUICE_CADDY_URL");
  ASSERT_FALSE(url.empty());
  QuicOptions options = options_for(port_of_url(url));
  options.ca_file = env.get("SLUICE_TEST_CA");
  std::int64_t request = -1;
  app_.on_ready = [&](QuicStreams& streams) {
    request = start_request(streams, get_request("localhost", "/1m.bin"), 256 * 1024);
  };
  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(
      run_until(loop_, [&] { return app_.closed || (request >= 0 && app_.in[request].fin); }));

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[request].frames.data_bytes(), kFileSize);
}

TEST_F(QuicStreamsTest, UploadsABodyLargerThanThePeersWindowsUntilAllIsAcknowledged) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  // Far beyond the server's initial windows (256 KiB a stream, 1 MiB in all).
  constexpr std::size_t kBodySize = 4 * 1024 * 1024;
  std::int64_t request = -1;
  std::size_t total = 0;
  app_.on_ready = [&](QuicStreams& streams) {
    std::vector<std::uint8_t> bytes = get_request("localhost", "/1m.bin", true);
    bytes.push_back(0x00);  // DATA
    append_varint(bytes, kBodySize);
    bytes.resize(bytes.size() + kBodySize, 0x5a);
    total = bytes.size();
    request = start_request(streams, std::move(bytes), 256 * 1024);
  };
  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(run_until(loop_,
                        [&] {
                          return app_.closed || (request >= 0 && app_.out[request].acked >= total &&
                                                 app_.in[request].fin);
                        }))
      << "acked " << app_.out[request].acked << " of " << total;

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.out[request].acked, total);
  EXPECT_TRUE(app_.out[request].fin_written);
  EXPECT_TRUE(app_.in[request].frames.saw_headers());
}

TEST_F(QuicStreamsTest, AHeldStreamStopsAtItsWindowWhileASiblingCompletes) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  constexpr std::uint64_t kHeldWindow = 384 * 1024;
  std::int64_t held = -1;
  std::int64_t sibling = -1;
  app_.credit_at_once = [&](std::int64_t stream_id) { return stream_id != held; };
  app_.on_ready = [&](QuicStreams& streams) {
    held = start_request(streams, get_request("localhost", "/1m.bin"), kHeldWindow);
    sibling = *streams.open_bidi_stream();
    streams.set_stream_window(sibling, 256 * 1024);
    app_.send(sibling, get_request("localhost", "/1m.bin"), true);
  };
  // The held stream's window is larger than the connection's: were connection
  // credit returned only with stream credit, the held stream would take all of it
  // and the sibling would stall.
  QuicOptions options = options_for(server.port());
  options.connection_window = 256 * 1024;
  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);

  // The held stream fills exactly its window (set_stream_window's), the sibling
  // completes.
  ASSERT_TRUE(run_until(loop_,
                        [&] {
                          return app_.closed || (sibling >= 0 && app_.in[sibling].fin &&
                                                 app_.in[held].received >= kHeldWindow);
                        }))
      << "held " << app_.in[held].received << ", sibling " << app_.in[sibling].received;
  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[sibling].frames.data_bytes(), kFileSize);
  EXPECT_EQ(app_.in[held].received, kHeldWindow);
  EXPECT_FALSE(app_.in[held].fin);

  // A consumer takes the held bytes: the credit flows and the stream completes.
  app_.credit_at_once = [](std::int64_t) { return true; };
  conn->codec().extend_stream(held, app_.in[held].received);
  ASSERT_TRUE(run_until(loop_, [&] { return app_.closed || app_.in[held].fin; }));
  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[held].frames.data_bytes(), kFileSize);
}

TEST_F(QuicStreamsTest, ASmallCreditReachesAServerThatFilledTheWindow) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  constexpr std::uint64_t kWindow = 128 * 1024;
  constexpr std::uint64_t kSmallCredit = 1000;
  std::int64_t request = -1;
  app_.credit_at_once = [](std::int64_t) { return false; };
  app_.on_ready = [&](QuicStreams& streams) {
    request = start_request(streams, get_request("localhost", "/1m.bin"), kWindow);
  };
  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  ASSERT_TRUE(
      run_until(loop_, [&] { return app_.closed || app_.in[request].received >= kWindow; }));
  ASSERT_FALSE(app_.closed) << app_.closed->message();

  // A consumer took a few bytes: that credit alone must reach the server.
  conn->codec().extend_stream(request, kSmallCredit);

  EXPECT_TRUE(run_until(
      loop_, [&] { return app_.closed || app_.in[request].received >= kWindow + kSmallCredit; }))
      << "received " << app_.in[request].received;
  EXPECT_EQ(app_.in[request].received, kWindow + kSmallCredit);
}

TEST_F(QuicStreamsTest, APeerCloseIsReportedWithItsHttp3ErrorName) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  app_.on_ready = [&](QuicStreams& streams) {
    // A DATA frame before any HEADERS: the server must close with H3_FRAME_UNEXPECTED.
    start_request(streams, {0x00, 0x01, 'x'}, 0);
  };

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (H3_FRAME_UNEXPECTED)");
}

}  // namespace
}  // namespace sluice::quic_test
