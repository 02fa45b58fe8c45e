#pragma once
// Test support for QuicConnection against real QUIC servers: a gtlsserver process
// with the test certificates, a minimal recording QuicApplication that sends what
// a test queues, hand-encoded HTTP/3 requests (static QPACK table only), and the
// fixture the QUIC integration tests share. Header-only because only the
// quic_connection*_test.cpp files of tests/integration use it.
// Ownership: test thread only (the EventLoop runs on it).

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http3/h3_error_names.hpp"
#include "quic/quic_connection.hpp"
#include "support/test_certs.hpp"

extern char** environ;

namespace sluice::quic_test {

using namespace std::chrono_literals;

// A hang guard for every wait below, never a speed assertion.
inline constexpr auto kPatience = 20s;
inline constexpr std::size_t kFileSize = 1024 * 1024;

inline std::uint16_t free_udp_port() {
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
inline bool udp_port_bound(std::uint16_t port) {
  std::ifstream table("/proc/net/udp");
  char wanted[16];
  std::snprintf(wanted, sizeof wanted, "0100007F:%04X", port);
  std::string line;
  while (std::getline(table, line)) {
    if (line.find(wanted) != std::string::npos) return true;
  }
  return false;
}

// The environment for a spawned server with the bind_notify shim preloaded, which
// writes a byte to `notify_fd` (in the child) after each bind().
inline std::vector<std::string> environment_with_bind_notify(int notify_fd) {
  std::vector<std::string> env;
  std::string preload = SLUICE_BIND_NOTIFY_LIBRARY;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view line(*entry);
    if (line.starts_with("LD_PRELOAD=")) {
      preload += ":" + std::string(line.substr(11));
    } else if (!line.starts_with("SLUICE_BIND_NOTIFY_FD=")) {
      env.emplace_back(line);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("SLUICE_BIND_NOTIFY_FD=" + std::to_string(notify_fd));
  return env;
}

// One gtlsserver process on 127.0.0.1, serving `htdocs` with `cert` and `key`. It is
// ready when it has bound its port: the bind_notify shim says so through a pipe.
class Gtlsserver {
 public:
  Gtlsserver(const std::string& cert, const std::string& key, const std::string& htdocs)
      : port_(free_udp_port()) {
    const std::string port = std::to_string(port_);
    std::vector<std::string> args = {"gtlsserver", "-q", "-d", htdocs,
                                     "127.0.0.1",  port, key,  cert};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int bound[2] = {-1, -1};
    if (pipe2(bound, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "no pipe for gtlsserver's bind notice";
      return;
    }
    constexpr int kNotifyFd = 99;  // the pipe's write end, in the child
    std::vector<std::string> env = environment_with_bind_notify(kNotifyFd);
    std::vector<char*> envp;
    for (auto& entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, bound[1], kNotifyFd);  // dup2 clears CLOEXEC
    const int rv = posix_spawnp(&pid_, "gtlsserver", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(bound[1]);
    EXPECT_EQ(rv, 0) << "cannot start gtlsserver (package ngtcp2-server)";
    // The event: the shim's byte after bind(). kPatience only guards a hang.
    pollfd wait_bound{bound[0], POLLIN, 0};
    const int ready = rv == 0 ? ::poll(&wait_bound, 1, static_cast<int>(kPatience / 1ms)) : 0;
    ::close(bound[0]);
    EXPECT_EQ(ready, 1) << "gtlsserver did not bind a socket";
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

inline void append_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
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
inline void append_literal(std::vector<std::uint8_t>& out, std::uint8_t static_index,
                           const std::string& value) {
  out.push_back(static_cast<std::uint8_t>(0x50 | static_index));
  out.push_back(static_cast<std::uint8_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
}

// HEADERS of "GET (or POST) https://authority/path", static table only.
inline std::vector<std::uint8_t> get_request(const std::string& authority, const std::string& path,
                                             bool post = false) {
  std::vector<std::uint8_t> block = {0x00, 0x00};  // no dynamic table references
  block.push_back(0xC0 | (post ? 20 : 17));        // :method POST or GET
  block.push_back(0xC0 | 23);                      // :scheme https
  append_literal(block, 0, authority);             // :authority
  append_literal(block, 1, path);                  // :path
  std::vector<std::uint8_t> frame = {0x01};        // HEADERS
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
inline bool run_until(EventLoop& loop, const std::function<bool()>& done) {
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

inline SocketAddress loopback(std::uint16_t port) {
  return *SocketAddress::from_ip("127.0.0.1", port);
}

inline std::uint16_t port_of_url(const std::string& url) {
  const auto colon = url.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(url.substr(colon + 1)));
}

// A directory with one file of kFileSize bytes, "1m.bin", for gtlsserver to serve.
inline const std::string& htdocs() {
  static const std::string dir = [] {
    std::string path = sluice::test::test_certs().dir + "/quic-htdocs";
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
    options.ca_file = sluice::test::test_certs().ca_file;
    options.handshake_timeout = 10s;
    options.app_error_name = &h3_error_name;  // the application here speaks HTTP/3
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

  // Inside on_handshake_completed: the client control stream (an empty SETTINGS)
  // and one request stream with `window`; returns the request's stream id.
  std::int64_t start_request(QuicStreams& streams, std::vector<std::uint8_t> request,
                             std::uint64_t window, bool fin = true) {
    auto control = streams.open_uni_stream();
    EXPECT_TRUE(control);
    if (control) app_.send(*control, {0x00, 0x04, 0x00}, false);
    auto opened = streams.open_bidi_stream();
    EXPECT_TRUE(opened) << opened.error().message();
    if (!opened) return -1;
    if (window > 0) streams.set_stream_window(*opened, window);
    app_.send(*opened, std::move(request), fin);
    streams.request_write();
    return *opened;
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

}  // namespace sluice::quic_test
