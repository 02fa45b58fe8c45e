#include "tls/tls.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/byte_queue.hpp"
#include "core/event_loop.hpp"
#include "net/tcp_connect.hpp"
#include "support/test_certs.hpp"
#include "tls/tls_socket_bio.hpp"

// g++ 12 warns when a designated initializer leaves out members that have default
// initializers; the defaults are exactly what the tests mean to keep.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::test_certs;

// What the server does with its one connection.
enum class ServerScript {
  echo_line,               // handshake, echo one line, close_notify, close
  echo_line_no_notify,     // handshake, echo one line, close without close_notify
  close_before_handshake,  // read the ClientHello, then close the TCP connection
  reset_before_handshake,  // read the ClientHello, then reset the TCP connection
  close_after_handshake,   // handshake, then close without reading
  plain_http,              // no TLS: answer with an HTTP/1.1 error
};

struct ServerOptions {
  std::string cert = test_certs().server_cert;
  std::string key = test_certs().server_key;
  std::vector<std::string> alpn;  // empty: the server ignores ALPN
  ServerScript script = ServerScript::echo_line;
  bool ipv6 = false;
};

// A blocking OpenSSL server for one connection on a loopback port, on its own
// thread. Every wait is bounded (3 s) so a failing client cannot hang a test.
class BlockingTlsServer {
 public:
  explicit BlockingTlsServer(ServerOptions options) : options_(std::move(options)) {
    listener_ = socket(options_.ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto address = SocketAddress::from_ip(options_.ipv6 ? "::1" : "127.0.0.1", 0);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&address->storage), address->length), 0);
    EXPECT_EQ(listen(listener_, 4), 0);
    socklen_t length = address->length;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address->storage), &length);
    address_ = *address;
    thread_ = std::thread([this] { serve_one(); });
  }
  ~BlockingTlsServer() {
    thread_.join();
    close(listener_);
  }
  BlockingTlsServer(const BlockingTlsServer&) = delete;
  BlockingTlsServer& operator=(const BlockingTlsServer&) = delete;

  const SocketAddress& address() const { return address_; }

 private:
  void serve_one() {
    pollfd ready{listener_, POLLIN, 0};
    if (poll(&ready, 1, 3000) != 1) return;
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    const timeval limit{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (options_.script == ServerScript::plain_http) {
      char request[256];
      [[maybe_unused]] auto got = recv(fd, request, sizeof request, 0);
      const std::string answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
      [[maybe_unused]] auto sent = send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    } else if (options_.script == ServerScript::close_before_handshake ||
               options_.script == ServerScript::reset_before_handshake) {
      char hello[4096];
      [[maybe_unused]] auto got = recv(fd, hello, sizeof hello, 0);
      const linger abort_on_close{1, 0};  // close() sends RST
      if (options_.script == ServerScript::reset_before_handshake)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    } else {
      serve_tls(fd);
    }
    close(fd);
  }

  void serve_tls(int fd) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate_chain_file(ctx, options_.cert.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, options_.key.c_str(), SSL_FILETYPE_PEM);
    for (const std::string& name : options_.alpn) {
      alpn_wire_ += static_cast<char>(name.size());
      alpn_wire_ += name;
    }
    if (!alpn_wire_.empty()) SSL_CTX_set_alpn_select_cb(ctx, select_alpn, this);
    SSL* ssl = SSL_new(ctx);
    BIO* bio = make_socket_bio(fd);  // no SIGPIPE when the client aborts
    SSL_set_bio(ssl, bio, bio);
    if (SSL_accept(ssl) == 1) run_script(ssl);
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ERR_clear_error();
  }

  void run_script(SSL* ssl) {
    if (options_.script == ServerScript::close_after_handshake) return;
    std::string line;
    char byte = 0;
    while (line.size() < 1024 && SSL_read(ssl, &byte, 1) == 1) {
      line += byte;
      if (byte == '\n') break;
    }
    SSL_write(ssl, line.data(), static_cast<int>(line.size()));
    if (options_.script == ServerScript::echo_line) SSL_shutdown(ssl);
  }

  static int select_alpn(SSL*, const unsigned char** out, unsigned char* out_length,
                         const unsigned char* offered, unsigned int offered_length, void* arg) {
    auto* self = static_cast<BlockingTlsServer*>(arg);
    unsigned char* chosen = nullptr;
    const int rv = SSL_select_next_proto(
        &chosen, out_length, reinterpret_cast<const unsigned char*>(self->alpn_wire_.data()),
        static_cast<unsigned>(self->alpn_wire_.size()), offered, offered_length);
    if (rv != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
  }

  ServerOptions options_;
  int listener_ = -1;
  SocketAddress address_;
  std::string alpn_wire_;
  std::thread thread_;
};

struct ClientOutcome {
  std::optional<Error> error;
  bool handshake_done = false;
  bool is_tls = false;
  std::string alpn;
  std::string received;
  bool eof = false;
  bool saw_buffered_input = false;  // has_buffered_input() after some read
};

// Trust settings: a CA file (or the system store, ""), or none with `insecure`.
TlsOptions trust(std::string ca_file, bool insecure) {
  TlsOptions tls;
  tls.ca_file = std::move(ca_file);
  tls.insecure = insecure;
  return tls;
}

struct ClientOptions {
  std::string host = "localhost";
  TlsOptions tls = trust(test_certs().ca_file, false);
  std::vector<std::string> alpn;
  std::string payload = "hello over tls\n";
  bool write_until_error = false;        // keep writing after the handshake
  std::size_t read_size = 4096;          // bytes asked of each read()
  std::function<void()> before_connect;  // runs after the context exists, before connect
};

// Drives one TLS client through a real EventLoop: connect, handshake, write the
// payload, read until EOF (or, with write_until_error, write until it fails).
class TlsClient final : public FdWatcher {
 public:
  TlsClient(EventLoop& loop, ClientOptions options) : loop_(loop), options_(std::move(options)) {}

  ClientOutcome run(const SocketAddress& server) {
    auto context = TlsContext::create(options_.tls);
    if (!context) {
      outcome_.error = context.error();
      return outcome_;
    }
    context_ = *context;
    connect_ =
        std::make_unique<TcpConnect>(loop_, std::vector<SocketAddress>{server},
                                     [this](Result<int> fd) { on_connected(std::move(fd)); });
    loop_.add_timer(Clock::now() + 3s,
                    [this] { finish(Error(ErrorCategory::timeout, "test timeout")); });
    loop_.run();
    return outcome_;
  }

 private:
  void on_connected(Result<int> fd) {
    if (!fd) return finish(fd.error());
    if (options_.before_connect) options_.before_connect();
    auto transport = context_->connect(fd.value(), options_.host, options_.alpn);
    if (!transport) return finish(transport.error());
    transport_ = std::move(transport.value());
    if (auto watched = loop_.watch(transport_->fd(), EPOLLOUT, this); !watched)
      return finish(watched.error());
    step();
  }

  void on_fd_ready(std::uint32_t) override { step(); }

  void step() {
    if (!outcome_.handshake_done && !advance_handshake()) return;
    if (options_.write_until_error) return write_forever();
    if (!written_all() || !read_to_end()) return;
  }

  bool advance_handshake() {
    auto status = transport_->handshake();
    if (!status) return finish(status.error()), false;
    if (*status != IoStatus::done) return wait_for(*status), false;
    outcome_.handshake_done = true;
    outcome_.is_tls = transport_->is_tls();
    outcome_.alpn = transport_->alpn();
    return true;
  }

  bool written_all() {
    while (sent_ < options_.payload.size()) {
      auto outcome = transport_->write(as_bytes(options_.payload).subspan(sent_));
      if (!outcome) return finish(outcome.error()), false;
      if (outcome->status != IoStatus::done) return wait_for(outcome->status), false;
      sent_ += outcome->bytes;
    }
    return true;
  }

  bool read_to_end() {
    std::byte buffer[4096];
    const std::size_t size = std::min(options_.read_size, sizeof buffer);
    for (;;) {
      auto outcome = transport_->read(std::span<std::byte>(buffer, size));
      if (!outcome) return finish(outcome.error()), false;
      if (outcome->status == IoStatus::eof) {
        outcome_.eof = true;
        return finish(std::nullopt), true;
      }
      if (outcome->status != IoStatus::done) return wait_for(outcome->status), false;
      outcome_.received += as_text(std::span<const std::byte>(buffer, outcome->bytes));
      if (transport_->has_buffered_input()) outcome_.saw_buffered_input = true;
    }
  }

  void write_forever() {
    const std::string chunk(16 * 1024, 'x');
    for (;;) {
      auto outcome = transport_->write(as_bytes(chunk));
      if (!outcome) {
        // The first failure is usually ECONNRESET; the writes after it meet a shut
        // socket (EPIPE), which is what raises SIGPIPE without MSG_NOSIGNAL.
        for (int i = 0; i < 3; ++i) (void)transport_->write(as_bytes(chunk));
        return finish(outcome.error());
      }
      if (outcome->status != IoStatus::done) return wait_for(outcome->status);
    }
  }

  void wait_for(IoStatus status) {
    auto modified =
        loop_.modify(transport_->fd(), status == IoStatus::want_write ? EPOLLOUT : EPOLLIN);
    if (!modified) finish(modified.error());
  }

  void finish(std::optional<Error> error) {
    if (finished_) return;
    finished_ = true;
    outcome_.error = std::move(error);
    if (transport_) loop_.unwatch(transport_->fd());
    loop_.stop();
  }

  EventLoop& loop_;
  ClientOptions options_;
  std::shared_ptr<TlsContext> context_;
  std::unique_ptr<TcpConnect> connect_;
  std::unique_ptr<Transport> transport_;
  std::size_t sent_ = 0;
  bool finished_ = false;
  ClientOutcome outcome_;
};

ClientOutcome run_client(const BlockingTlsServer& server, ClientOptions options = {}) {
  EventLoop loop;
  TlsClient client(loop, std::move(options));
  return client.run(server.address());
}

std::string message_of(const ClientOutcome& outcome) {
  return outcome.error ? outcome.error->message() : "(no error)";
}

TEST(Tls, HandshakeWithTheTestCaSucceedsAndDataRoundTrips) {
  BlockingTlsServer server({});
  ClientOutcome outcome = run_client(server);
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_TRUE(outcome.is_tls);
  EXPECT_EQ(outcome.received, "hello over tls\n");
  EXPECT_TRUE(outcome.eof);
}

TEST(Tls, PartlyReadRecordIsReportedAsBufferedInput) {
  BlockingTlsServer server({});
  ClientOutcome outcome = run_client(server, {.read_size = 1});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.received, "hello over tls\n");
  EXPECT_TRUE(outcome.saw_buffered_input);
}

TEST(Tls, CloseWithoutCloseNotifyReadsAsEof) {
  BlockingTlsServer server({.script = ServerScript::echo_line_no_notify});
  ClientOutcome outcome = run_client(server);
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.received, "hello over tls\n");
  EXPECT_TRUE(outcome.eof);
}

TEST(Tls, VerifiesAnIpv4LiteralAgainstTheCertificatesIpNames) {
  BlockingTlsServer server({});
  ClientOutcome outcome = run_client(server, {.host = "127.0.0.1"});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.received, "hello over tls\n");
}

TEST(Tls, VerifiesAnIpv6LiteralOverIpv6) {
  BlockingTlsServer server({.ipv6 = true});
  ClientOutcome outcome = run_client(server, {.host = "[::1]"});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.received, "hello over tls\n");
}

TEST(Tls, CertificateForAnotherHostIsRejectedNamingBoth) {
  BlockingTlsServer server(
      {.cert = test_certs().wrong_host_cert, .key = test_certs().wrong_host_key});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  EXPECT_EQ(outcome.error->message(),
            "TLS: certificate for wrong.example does not match host localhost");
}

TEST(Tls, IpLiteralNotInTheCertificateIsRejected) {
  BlockingTlsServer server(
      {.cert = test_certs().wrong_host_cert, .key = test_certs().wrong_host_key});
  ClientOutcome outcome = run_client(server, {.host = "127.0.0.1"});
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->message(),
            "TLS: certificate for wrong.example does not match host 127.0.0.1");
}

TEST(Tls, ExpiredCertificateIsRejectedWithItsDate) {
  BlockingTlsServer server({.cert = test_certs().expired_cert, .key = test_certs().expired_key});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  const std::string& message = outcome.error->message();
  EXPECT_EQ(message.rfind("TLS: certificate for localhost expired on 20", 0), 0u) << message;
  EXPECT_NE(message.find(" UTC"), std::string::npos) << message;
}

TEST(Tls, UntrustedCertificateIsRejectedSayingHowToTrustIt) {
  BlockingTlsServer server(
      {.cert = test_certs().untrusted_cert, .key = test_certs().untrusted_key});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  const std::string& message = outcome.error->message();
  EXPECT_NE(message.find("certificate for localhost is not signed by a trusted CA"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--cacert"), std::string::npos) << message;
}

TEST(Tls, InsecureAcceptsAnUntrustedCertificate) {
  BlockingTlsServer server(
      {.cert = test_certs().untrusted_cert, .key = test_certs().untrusted_key});
  ClientOutcome outcome = run_client(server, {.tls = trust("", true)});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_TRUE(outcome.is_tls);
  EXPECT_EQ(outcome.received, "hello over tls\n");
}

TEST(Tls, InsecureAcceptsACertificateForAnotherHost) {
  BlockingTlsServer server(
      {.cert = test_certs().wrong_host_cert, .key = test_certs().wrong_host_key});
  ClientOutcome outcome = run_client(server, {.tls = trust("", true)});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
}

TEST(Tls, SystemTrustStoreDoesNotTrustTheTestCa) {
  BlockingTlsServer server({});
  ClientOutcome outcome = run_client(server, {.tls = trust("", false)});
  ASSERT_TRUE(outcome.error);
  EXPECT_NE(outcome.error->message().find("trusted CA"), std::string::npos)
      << outcome.error->message();
}

// OpenSSL's system store honours SSL_CERT_FILE. Pointed at the test CA only after the
// context was made, the connection trusts the test server: the store is read at the
// first connection, not when the context is made (a Client that only speaks plain
// HTTP never pays for parsing it).
TEST(Tls, TheSystemTrustStoreIsReadAtTheFirstConnection) {
  BlockingTlsServer server({});
  const std::string ca_file = test_certs().ca_file;
  ClientOutcome outcome = run_client(server, {.tls = trust("", false), .before_connect = [&] {
                                                ::setenv("SSL_CERT_FILE", ca_file.c_str(), 1);
                                              }});
  ::unsetenv("SSL_CERT_FILE");
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.received, "hello over tls\n");
}

TEST(Tls, AlpnReportsTheProtocolTheServerSelected) {
  BlockingTlsServer server({.alpn = {"http/1.1"}});
  ClientOutcome outcome = run_client(server, {.alpn = {"h2", "http/1.1"}});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.alpn, "http/1.1");
}

TEST(Tls, AlpnIsEmptyWhenTheServerSelectsNone) {
  BlockingTlsServer server({});
  ClientOutcome outcome = run_client(server, {.alpn = {"h2", "http/1.1"}});
  ASSERT_FALSE(outcome.error) << message_of(outcome);
  EXPECT_EQ(outcome.alpn, "");
}

TEST(Tls, PeerClosingDuringTheHandshakeIsReported) {
  BlockingTlsServer server({.script = ServerScript::close_before_handshake});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  EXPECT_EQ(outcome.error->message(),
            "TLS: handshake with localhost failed: connection closed by peer");
}

TEST(Tls, PeerResettingDuringTheHandshakeIsReported) {
  BlockingTlsServer server({.script = ServerScript::reset_before_handshake});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  EXPECT_EQ(outcome.error->message(),
            "TLS: handshake with localhost failed: connection reset by peer");
}

TEST(Tls, PlainHttpServerIsReportedAsNotSpeakingTls) {
  BlockingTlsServer server({.script = ServerScript::plain_http});
  ClientOutcome outcome = run_client(server);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::tls);
  EXPECT_NE(outcome.error->message().find("did not answer in TLS"), std::string::npos)
      << outcome.error->message();
}

// OpenSSL's own socket BIO writes with write(); without the MSG_NOSIGNAL BIO this
// raises SIGPIPE and ends the test program.
TEST(Tls, WritingToAPeerThatLeftIsAnErrorNotSigpipe) {
  BlockingTlsServer server({.script = ServerScript::close_after_handshake});
  ClientOutcome outcome = run_client(server, {.write_until_error = true});
  ASSERT_TRUE(outcome.handshake_done);
  ASSERT_TRUE(outcome.error);
  EXPECT_EQ(outcome.error->category(), ErrorCategory::io) << outcome.error->message();
}

TEST(Tls, UnreadableCaFileIsNamed) {
  auto context = TlsContext::create(trust("/nonexistent/sluice-ca.pem", false));
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().category(), ErrorCategory::tls);
  EXPECT_EQ(context.error().message(),
            "TLS: cannot read CA file /nonexistent/sluice-ca.pem: No such file or directory");
}

TEST(Tls, CaFileWithoutCertificatesIsNamed) {
  const std::string path = test_certs().dir + "/not-a-ca.pem";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("this is not PEM\n", file);
  std::fclose(file);
  auto context = TlsContext::create(trust(path, false));
  std::remove(path.c_str());
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().message().rfind("TLS: cannot read CA file " + path + ": ", 0), 0u)
      << context.error().message();
}

TEST(Tls, InvalidAlpnNameIsRefusedAndTheFdClosed) {
  auto context = TlsContext::create(trust(test_certs().ca_file, false));
  ASSERT_TRUE(context);
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  auto transport = (*context)->connect(fds[0], "localhost", {""});
  ASSERT_FALSE(transport);
  EXPECT_EQ(transport.error().category(), ErrorCategory::usage);
  EXPECT_EQ(fcntl(fds[0], F_GETFD), -1);  // closed by connect()
  close(fds[1]);
}

}  // namespace
}  // namespace sluice
