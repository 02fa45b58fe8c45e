// QuicConnection against real QUIC servers: gtlsserver (ngtcp2's example server,
// started here with the test certificates) and the harness's caddy. The HTTP/3
// application on top is a minimal recorder written for these tests; requests are
// hand-encoded HTTP/3 (static QPACK table only), so the transport's stream and
// flow-control paths are exercised without H3Session.

#include "http3/quic_connection.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_certs.hpp"
#include "support/test_env.hpp"

extern char** environ;

namespace sluice {
namespace {

using namespace std::chrono_literals;

// A hang guard for every wait below, never a speed assertion.
constexpr auto kPatience = 20s;
constexpr std::size_t kFileSize = 1024 * 1024;

std::uint16_t free_udp_port() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  bind(fd, reinterpret_cast<const sockaddr*>(&any->storage), any->length);
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  close(fd);
  return ntohs(bound.sin_port);
}

// Whether something is bound to UDP `port` on 127.0.0.1 (/proc/net/udp).
bool udp_port_bound(std::uint16_t port) {
  std::ifstream table("/proc/net/udp");
  char wanted[16];
  std::snprintf(wanted, sizeof wanted, "0100007F:%04X", port);
  std::string line;
  while (std::getline(table, line)) {
    if (line.find(wanted) != std::string::npos) return true;
  }
  return false;
}

// One gtlsserver process on 127.0.0.1, serving `htdocs` with `cert` and `key`.
class Gtlsserver {
 public:
  Gtlsserver(const std::string& cert, const std::string& key, const std::string& htdocs)
      : port_(free_udp_port()) {
    const std::string port = std::to_string(port_);
    std::vector<std::string> args = {"gtlsserver", "-q", "-d", htdocs, "127.0.0.1", port, key, cert};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const int rv = posix_spawnp(&pid_, "gtlsserver", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rv, 0) << "cannot start gtlsserver (package ngtcp2-server)";
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (rv == 0 && !udp_port_bound(port_) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(udp_port_bound(port_)) << "gtlsserver did not bind UDP port " << port_;
  }
  ~Gtlsserver() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  Gtlsserver(const Gtlsserver&) = delete;
  Gtlsserver& operator=(const Gtlsserver&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  std::uint16_t port_;
  pid_t pid_ = -1;
};

// ---- a minimal HTTP/3 client on the seam ------------------------------------

void append_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
  if (value < 64) {
    out.push_back(static_cast<std::uint8_t>(value));
  } else if (value < 16384) {
    out.push_back(static_cast<std::uint8_t>(0x40 | (value >> 8)));
    out.push_back(static_cast<std::uint8_t>(value & 0xff));
  } else {
    out.push_back(static_cast<std::uint8_t>(0x80 | (value >> 24)));
    out.push_back(static_cast<std::uint8_t>((value >> 16) & 0xff));
    out.push_back(static_cast<std::uint8_t>((value >> 8) & 0xff));
    out.push_back(static_cast<std::uint8_t>(value & 0xff));
  }
}

// QPACK literal with a static name reference (RFC 9204 4.5.4), value < 128 bytes.
void append_literal(std::vector<std::uint8_t>& out, std::uint8_t static_index,
                    const std::string& value) {
  out.push_back(static_cast<std::uint8_t>(0x50 | static_index));
  out.push_back(static_cast<std::uint8_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
}

// HEADERS of "GET (or POST) https://authority/path", static table only.
std::vector<std::uint8_t> get_request(const std::string& authority, const std::string& path,
                                      bool post = false) {
  std::vector<std::uint8_t> block = {0x00, 0x00};  // no dynamic table references
  block.push_back(0xC0 | (post ? 20 : 17));         // :method POST or GET
  block.push_back(0xC0 | 23);                       // :scheme https
  append_literal(block, 0, authority);              // :authority
  append_literal(block, 1, path);                   // :path
  std::vector<std::uint8_t> frame = {0x01};         // HEADERS
  append_varint(frame, block.size());
  frame.insert(frame.end(), block.begin(), block.end());
  return frame;
}

// Counts the payload of DATA frames in a response stream.
class FrameCounter {
 public:
  void feed(std::span<const std::uint8_t> bytes) {
    for (const std::uint8_t byte : bytes) step(byte);
  }
  std::uint64_t data_bytes() const { return data_bytes_; }
  bool saw_headers() const { return saw_headers_; }

 private:
  void step(std::uint8_t byte) {
    if (payload_left_ > 0) {
      --payload_left_;
      if (type_ == 0x00) ++data_bytes_;
      return;
    }
    if (varint_left_ == 0) {
      varint_left_ = std::size_t{1} << (byte >> 6);
      value_ = byte & 0x3f;
    } else {
      value_ = (value_ << 8) | byte;
    }
    if (--varint_left_ > 0) return;
    if (!have_type_) {
      type_ = value_;
      have_type_ = true;
      return;
    }
    have_type_ = false;
    payload_left_ = value_;
    if (type_ == 0x01) saw_headers_ = true;
  }

  std::uint64_t type_ = 0;
  std::uint64_t value_ = 0;
  std::size_t varint_left_ = 0;
  std::uint64_t payload_left_ = 0;
  bool have_type_ = false;
  bool saw_headers_ = false;
  std::uint64_t data_bytes_ = 0;
};

struct InStream {
  std::uint64_t received = 0;
  std::uint64_t credited = 0;
  bool fin = false;
  FrameCounter frames;
};

struct OutStream {
  std::vector<std::uint8_t> bytes;  // kept until the end: ngtcp2 resends from it
  std::size_t written = 0;
  bool fin = false;
  bool fin_written = false;
  bool blocked = false;
  std::uint64_t acked = 0;
};

// The application: records what the transport reports; sends what the test queues.
class RecordingApp final : public QuicApplication {
 public:
  // Whether on_stream_data credits a stream's bytes at once (default: yes).
  std::function<bool(std::int64_t)> credit_at_once = [](std::int64_t) { return true; };
  // Runs inside on_handshake_completed.
  std::function<void(QuicStreams&)> on_ready;

  bool handshake_completed = false;
  int handshake_calls = 0;
  std::optional<Error> closed;
  int closed_calls = 0;
  std::map<std::int64_t, InStream> in;
  std::map<std::int64_t, OutStream> out;

  void send(std::int64_t stream_id, std::vector<std::uint8_t> bytes, bool fin) {
    OutStream& stream = out[stream_id];
    stream.bytes.insert(stream.bytes.end(), bytes.begin(), bytes.end());
    stream.fin = fin;
  }

  Result<void> on_handshake_completed(QuicStreams& streams) override {
    handshake_completed = true;
    ++handshake_calls;
    if (on_ready) on_ready(streams);
    return {};
  }
  Result<std::size_t> on_stream_data(std::int64_t stream_id, std::span<const std::uint8_t> data,
                                     bool fin) override {
    InStream& stream = in[stream_id];
    stream.received += data.size();
    stream.fin = stream.fin || fin;
    stream.frames.feed(data);
    if (!credit_at_once(stream_id)) return std::size_t{0};
    stream.credited += data.size();
    return data.size();
  }
  void on_stream_acked(std::int64_t stream_id, std::uint64_t n) override {
    out[stream_id].acked += n;
  }
  void on_stream_closed(std::int64_t, std::optional<std::uint64_t>) override {}
  void on_stream_reset(std::int64_t, std::uint64_t) override {}
  void on_stop_sending(std::int64_t stream_id, std::uint64_t) override {
    out[stream_id].blocked = true;
  }
  void on_stream_writable(std::int64_t stream_id) override { out[stream_id].blocked = false; }
  void on_streams_available() override {}
  Result<QuicOutput> next_output(std::span<QuicVec> vecs) override {
    for (auto& [stream_id, stream] : out) {
      if (stream.blocked) continue;
      const bool data_left = stream.written < stream.bytes.size();
      if (!data_left && !(stream.fin && !stream.fin_written)) continue;
      QuicOutput output;
      output.stream_id = stream_id;
      output.fin = stream.fin;
      if (data_left) {
        vecs[0] = {stream.bytes.data() + stream.written, stream.bytes.size() - stream.written};
        output.count = 1;
      }
      return output;
    }
    return QuicOutput{};
  }
  Result<void> on_output_written(std::int64_t stream_id, std::size_t n) override {
    OutStream& stream = out[stream_id];
    stream.written += n;
    if (stream.fin && stream.written == stream.bytes.size()) stream.fin_written = true;
    return {};
  }
  void on_stream_blocked(std::int64_t stream_id) override { out[stream_id].blocked = true; }
  void on_connection_closed(const Error& error) override {
    closed = error;
    ++closed_calls;
  }
};

// Runs the loop until `done` holds (true) or kPatience passes (false).
bool run_until(EventLoop& loop, const std::function<bool()>& done) {
  const auto deadline = Clock::now() + kPatience;
  bool met = false;
  std::function<void()> check = [&] {
    if (done()) {
      met = true;
      loop.stop();
    } else if (Clock::now() >= deadline) {
      loop.stop();
    } else {
      loop.add_timer(Clock::now() + 2ms, check);
    }
  };
  loop.post(check);
  loop.run();
  return met;
}

SocketAddress loopback(std::uint16_t port) { return *SocketAddress::from_ip("127.0.0.1", port); }

std::uint16_t port_of_url(const std::string& url) {
  const auto colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(url.substr(colon + 1)));
}

// A directory with one file of kFileSize bytes, "1m.bin", for gtlsserver to serve.
const std::string& htdocs() {
  static const std::string dir = [] {
    std::string path = test::test_certs().dir + "/quic-htdocs";
    mkdir(path.c_str(), 0755);
    std::ofstream file(path + "/1m.bin", std::ios::binary);
    std::string bytes(kFileSize, '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 + 7);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }();
  return dir;
}

class QuicConnectionTest : public ::testing::Test {
 protected:
  QuicOptions options_for(std::uint16_t port, const std::string& host = "localhost") {
    QuicOptions options;
    options.remote = loopback(port);
    options.host = host;
    options.ca_file = test::test_certs().ca_file;
    options.handshake_timeout = 10s;
    return options;
  }

  std::unique_ptr<QuicConnection> connect(QuicOptions options) {
    auto conn = QuicConnection::connect(loop_, std::move(options), app_, trace_, 1);
    EXPECT_TRUE(conn) << conn.error().message();
    return conn ? std::move(conn).value() : nullptr;
  }

  // Connects and waits for the handshake or the end.
  std::unique_ptr<QuicConnection> handshake(QuicOptions options) {
    auto conn = connect(std::move(options));
    if (conn) run_until(loop_, [&] { return app_.handshake_completed || app_.closed; });
    return conn;
  }

  Error wait_for_close() {
    EXPECT_TRUE(run_until(loop_, [&] { return app_.closed.has_value(); }));
    return app_.closed.value_or(Error(ErrorCategory::usage, "(still open)"));
  }

  EventLoop loop_;
  std::vector<std::string> trace_lines_;
  Trace trace_{[this](std::string_view line) { trace_lines_.emplace_back(line); }};
  RecordingApp app_;
};

TEST_F(QuicConnectionTest, CompletesTheHandshakeWithAlpnH3AgainstGtlsserver) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());

  auto conn = handshake(options_for(server.port()));

  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
  EXPECT_EQ(app_.handshake_calls, 1);
  EXPECT_TRUE(conn->handshake_completed());
  EXPECT_EQ(conn->alpn(), "h3");
  EXPECT_FALSE(app_.closed);
  EXPECT_EQ(trace_lines_.back(), "c1 h3: handshake done (ALPN h3)");
  // The server's control stream (unidirectional, server-initiated: id 3) arrives
  // and starts with its stream type, 0x00.
  EXPECT_TRUE(run_until(loop_, [&] { return app_.in.count(3) != 0; }));
}

TEST_F(QuicConnectionTest, CompletesTheHandshakeWithAlpnH3AgainstCaddy) {
  test::TestEnv env;
  const std::string url = env.get("SLUICE_CADDY_URL");
  ASSERT_FALSE(url.empty());
  QuicOptions options = options_for(port_of_url(url));
  options.ca_file = env.get("SLUICE_TEST_CA");

  auto conn = handshake(std::move(options));

  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
  EXPECT_EQ(conn->alpn(), "h3");
}

TEST_F(QuicConnectionTest, DownloadsAFileOverAHandEncodedRequest) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  std::int64_t request = -1;
  app_.on_ready = [&](QuicStreams& streams) {
    auto control = streams.open_uni_stream();
    ASSERT_TRUE(control);
    app_.send(*control, {0x00, 0x04, 0x00}, false);  // control stream: empty SETTINGS
    auto opened = streams.open_bidi_stream();
    ASSERT_TRUE(opened) << opened.error().message();
    request = *opened;
    streams.set_stream_window(request, 256 * 1024);
    app_.send(request, get_request("localhost", "/1m.bin"), true);
    streams.request_write();
  };
  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(run_until(loop_, [&] { return app_.closed || (request >= 0 && app_.in[request].fin); }))
      << "received " << app_.in[request].received;

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(request, 0);
  EXPECT_TRUE(app_.in[request].frames.saw_headers());
  EXPECT_EQ(app_.in[request].frames.data_bytes(), kFileSize);
  EXPECT_TRUE(app_.out[request].fin_written);
}

TEST_F(QuicConnectionTest, DownloadsAFileFromCaddy) {
  test::TestEnv env;
  const std::string url = env.get("SLUICE_CADDY_URL");
  ASSERT_FALSE(url.empty());
  QuicOptions options = options_for(port_of_url(url));
  options.ca_file = env.get("SLUICE_TEST_CA");
  std::int64_t request = -1;
  app_.on_ready = [&](QuicStreams& streams) {
    auto control = streams.open_uni_stream();
    ASSERT_TRUE(control);
    app_.send(*control, {0x00, 0x04, 0x00}, false);
    request = *streams.open_bidi_stream();
    app_.send(request, get_request("localhost", "/1m.bin"), true);
    streams.request_write();
  };
  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(run_until(loop_, [&] { return app_.closed || (request >= 0 && app_.in[request].fin); }));

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[request].frames.data_bytes(), kFileSize);
}

TEST_F(QuicConnectionTest, UploadsABodyLargerThanThePeersWindowsUntilAllIsAcknowledged) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  // Far beyond the server's initial windows (256 KiB a stream, 1 MiB in all).
  constexpr std::size_t kBodySize = 4 * 1024 * 1024;
  std::int64_t request = -1;
  std::size_t total = 0;
  app_.on_ready = [&](QuicStreams& streams) {
    auto control = streams.open_uni_stream();
    ASSERT_TRUE(control);
    app_.send(*control, {0x00, 0x04, 0x00}, false);
    request = *streams.open_bidi_stream();
    std::vector<std::uint8_t> bytes = get_request("localhost", "/1m.bin", true);
    bytes.push_back(0x00);  // DATA
    append_varint(bytes, kBodySize);
    bytes.resize(bytes.size() + kBodySize, 0x5a);
    total = bytes.size();
    app_.send(request, std::move(bytes), true);
    streams.request_write();
  };
  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);

  ASSERT_TRUE(run_until(loop_, [&] {
    return app_.closed || (request >= 0 && app_.out[request].acked >= total && app_.in[request].fin);
  })) << "acked " << app_.out[request].acked << " of " << total;

  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.out[request].acked, total);
  EXPECT_TRUE(app_.out[request].fin_written);
  EXPECT_TRUE(app_.in[request].frames.saw_headers());
}

TEST_F(QuicConnectionTest, AHeldStreamStopsAtItsWindowWhileASiblingCompletes) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  constexpr std::uint64_t kHeldWindow = 384 * 1024;
  std::int64_t held = -1;
  std::int64_t sibling = -1;
  app_.credit_at_once = [&](std::int64_t stream_id) { return stream_id != held; };
  app_.on_ready = [&](QuicStreams& streams) {
    auto control = streams.open_uni_stream();
    ASSERT_TRUE(control);
    app_.send(*control, {0x00, 0x04, 0x00}, false);
    held = *streams.open_bidi_stream();
    sibling = *streams.open_bidi_stream();
    streams.set_stream_window(held, kHeldWindow);
    app_.send(held, get_request("localhost", "/1m.bin"), true);
    app_.send(sibling, get_request("localhost", "/1m.bin"), true);
    streams.request_write();
  };
  // The held stream's window is larger than the connection's: were connection
  // credit returned only with stream credit, the held stream would take all of it
  // and the sibling would stall.
  QuicOptions options = options_for(server.port());
  options.connection_window = 256 * 1024;
  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);

  // The held stream fills exactly its window (past the 64 KiB initial one:
  // set_stream_window took effect), the sibling completes.
  ASSERT_TRUE(run_until(loop_, [&] {
    return app_.closed || (sibling >= 0 && app_.in[sibling].fin &&
                           app_.in[held].received >= kHeldWindow);
  })) << "held " << app_.in[held].received << ", sibling " << app_.in[sibling].received;
  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[sibling].frames.data_bytes(), kFileSize);
  EXPECT_EQ(app_.in[held].received, kHeldWindow);
  EXPECT_FALSE(app_.in[held].fin);

  // A consumer takes the held bytes: the credit flows and the stream completes.
  app_.credit_at_once = [](std::int64_t) { return true; };
  conn->extend_stream(held, app_.in[held].received);
  ASSERT_TRUE(run_until(loop_, [&] { return app_.closed || app_.in[held].fin; }));
  ASSERT_FALSE(app_.closed) << app_.closed->message();
  EXPECT_EQ(app_.in[held].frames.data_bytes(), kFileSize);
}

TEST_F(QuicConnectionTest, ACertificateForAnotherHostFailsWithATlsError) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.wrong_host_cert, certs.wrong_host_key, htdocs());

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_FALSE(app_.handshake_completed);
  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(), "TLS: certificate for wrong.example does not match host localhost");
  EXPECT_EQ(app_.closed_calls, 1);
  EXPECT_TRUE(conn->is_closed());
}

TEST_F(QuicConnectionTest, AServerNamedByAddressIsCheckedAgainstItsAddress) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());

  auto conn = handshake(options_for(server.port(), "127.0.0.1"));

  ASSERT_TRUE(conn);
  EXPECT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
}

TEST_F(QuicConnectionTest, AnUnknownCaFailsWithATlsErrorSuggestingCacert) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.untrusted_cert, certs.untrusted_key, htdocs());

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_EQ(error.message(),
            "TLS: certificate for localhost is not signed by a trusted CA (self-signed or unknown "
            "issuer); use --cacert FILE to trust its CA");
}

TEST_F(QuicConnectionTest, TheSystemTrustStoreDoesNotTrustTheTestCa) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.ca_file.clear();

  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::tls);
  EXPECT_NE(error.message().find("is not signed by a trusted CA"), std::string::npos)
      << error.message();
}

TEST_F(QuicConnectionTest, InsecureAcceptsACertificateForAnotherHost) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.wrong_host_cert, certs.wrong_host_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.ca_file.clear();
  options.insecure = true;

  auto conn = handshake(std::move(options));

  ASSERT_TRUE(conn);
  EXPECT_TRUE(app_.handshake_completed) << (app_.closed ? app_.closed->message() : "no answer");
}

TEST_F(QuicConnectionTest, AClosedUdpPortFailsWithAConnectErrorNamingTheAddress) {
  const std::uint16_t port = free_udp_port();  // nothing listens: ICMP port unreachable

  auto conn = connect(options_for(port));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::connect);
  EXPECT_EQ(error.message(),
            "QUIC: UDP receive from 127.0.0.1:" + std::to_string(port) + " failed: Connection refused");
}

TEST_F(QuicConnectionTest, ASilentPeerFailsTheHandshakeWithinItsTimeout) {
  // A bound socket that never answers: no ICMP, only silence.
  const int silent = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  auto any = SocketAddress::from_ip("127.0.0.1", 0);
  ASSERT_EQ(bind(silent, reinterpret_cast<const sockaddr*>(&any->storage), any->length), 0);
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  getsockname(silent, reinterpret_cast<sockaddr*>(&bound), &length);
  const std::uint16_t port = ntohs(bound.sin_port);
  QuicOptions options = options_for(port);
  options.handshake_timeout = 300ms;

  auto conn = connect(std::move(options));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();
  close(silent);

  EXPECT_EQ(error.category(), ErrorCategory::timeout);
  EXPECT_EQ(error.message(), "QUIC: handshake with localhost:" + std::to_string(port) +
                                 " did not complete within 300 ms");
}

TEST_F(QuicConnectionTest, AnIdleConnectionClosesWithATimeoutNamingIt) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  QuicOptions options = options_for(server.port());
  options.idle_timeout = 300ms;

  auto conn = handshake(std::move(options));
  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::timeout);
  EXPECT_EQ(error.message(), "QUIC: nothing from localhost:" + std::to_string(server.port()) +
                                 " for 300 ms (idle timeout); connection closed");
}

TEST_F(QuicConnectionTest, ALocalCloseTellsTheApplicationOnceAndEndsTheStreams) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  auto conn = handshake(options_for(server.port()));
  ASSERT_TRUE(conn);
  ASSERT_TRUE(app_.handshake_completed);

  conn->close(Error(ErrorCategory::cancelled, "done"));
  conn->close(Error(ErrorCategory::cancelled, "again"));

  EXPECT_EQ(app_.closed_calls, 1);
  ASSERT_TRUE(app_.closed);
  EXPECT_EQ(app_.closed->message(), "done");
  EXPECT_TRUE(conn->is_closed());
  EXPECT_EQ(conn->bidi_streams_left(), 0u);
  EXPECT_FALSE(conn->open_bidi_stream());
}

TEST_F(QuicConnectionTest, APeerCloseIsReportedWithItsHttp3ErrorName) {
  const auto& certs = test::test_certs();
  Gtlsserver server(certs.server_cert, certs.server_key, htdocs());
  app_.on_ready = [&](QuicStreams& streams) {
    auto control = streams.open_uni_stream();
    ASSERT_TRUE(control);
    app_.send(*control, {0x00, 0x04, 0x00}, false);
    auto request = streams.open_bidi_stream();
    ASSERT_TRUE(request);
    // A DATA frame before any HEADERS: the server must close with H3_FRAME_UNEXPECTED.
    app_.send(*request, {0x00, 0x01, 'x'}, true);
    streams.request_write();
  };

  auto conn = connect(options_for(server.port()));
  ASSERT_TRUE(conn);
  const Error error = wait_for_close();

  EXPECT_EQ(error.category(), ErrorCategory::protocol);
  EXPECT_EQ(error.message(), "QUIC: localhost closed the connection (H3_FRAME_UNEXPECTED)");
}

TEST_F(QuicConnectionTest, AnUnreadableCaFileFailsAtOnceWithoutTellingTheApplication) {
  QuicOptions options = options_for(4433);
  options.ca_file = "/nonexistent/ca.pem";

  auto conn = QuicConnection::connect(loop_, std::move(options), app_, trace_, 1);

  ASSERT_FALSE(conn);
  EXPECT_EQ(conn.error().category(), ErrorCategory::tls);
  EXPECT_NE(conn.error().message().find("cannot load CA file '/nonexistent/ca.pem'"),
            std::string::npos)
      << conn.error().message();
  EXPECT_EQ(app_.closed_calls, 0);
}

}  // namespace
}  // namespace sluice
