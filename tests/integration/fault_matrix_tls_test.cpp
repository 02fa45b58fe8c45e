// The fault matrix over TLS: a handshake the server aborts, and the truncation
// attack: a close-delimited body whose TCP connection ends without close_notify.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "sluice/sluice.hpp"
#include "support/make_client.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;
using test::ServerConnection;
using test::TestServer;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Waits (in short ticks, so a stop request is seen) for `fd` to become readable.
bool wait_readable(int fd, const std::atomic<bool>& stop, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!stop && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) return true;
  }
  return false;
}

// A one-connection TLS server that answers one request with fixed bytes and then
// ends TCP with or without close_notify first. TestServer always sends close_notify
// before its FIN (its reset() sends RST), so the unauthenticated FIN needs this.
// Owned by the test thread; serves on its own thread.
class CloseNotifyServer {
 public:
  CloseNotifyServer(std::string response, bool send_close_notify)
      : response_(std::move(response)), send_close_notify_(send_close_notify) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listen_fd_, 4), 0);
    EXPECT_EQ(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CloseNotifyServer() {
    stop_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  CloseNotifyServer(const CloseNotifyServer&) = delete;
  CloseNotifyServer& operator=(const CloseNotifyServer&) = delete;

  std::string url() const { return "https://localhost:" + std::to_string(port_) + "/"; }

 private:
  void serve() {
    if (!wait_readable(listen_fd_, stop_, 10s)) return;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    const auto& certs = test::test_certs();
    SSL_CTX_use_certificate_chain_file(ctx, certs.server_cert.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, certs.server_key.c_str(), SSL_FILETYPE_PEM);
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1 && read_request_head(ssl)) {
      SSL_write(ssl, response_.data(), static_cast<int>(response_.size()));
      if (send_close_notify_) SSL_shutdown(ssl);
      ::shutdown(fd, SHUT_WR);
      // Wait for the client to close, so our close sends FIN only (never RST).
      char sink[4096];
      while (wait_readable(fd, stop_, 5s) && ::recv(fd, sink, sizeof sink, 0) > 0) {}
    }
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    ::close(fd);
  }

  static bool read_request_head(SSL* ssl) {
    std::string head;
    char buffer[1024];
    while (head.find("\r\n\r\n") == std::string::npos) {
      const int got = SSL_read(ssl, buffer, sizeof buffer);
      if (got <= 0) return false;
      head.append(buffer, static_cast<std::size_t>(got));
    }
    return true;
  }

  std::string response_;
  bool send_close_notify_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Client trusting_client() {
  ClientOptions options;
  options.tls.ca_file = test::test_certs().ca_file;
  return test::make_client(options);
}

Request request_for(const std::string& url) {
  Request request = Request::get(url);
  request.timeouts.total = 10s;  // a hang fails the test instead of stalling it
  return request;
}

// ---- the truncation attack --------------------------------------------------------

TEST(FaultMatrixTls, CloseDelimitedBodyCutWithoutCloseNotifyIsAnError) {
  CloseNotifyServer server("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npartial body", false);
  auto client = trusting_client();
  auto response = client.fetch(request_for(server.url()));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok()) << "a body that may be truncated was presented as complete";
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  const std::string& message = body.error().message();
  EXPECT_TRUE(contains(message, "without close_notify")) << message;
  EXPECT_TRUE(contains(message, "after 12 body bytes")) << message;
  EXPECT_TRUE(contains(message, "may be truncated")) << message;
}

TEST(FaultMatrixTls, CloseDelimitedBodyEndingWithCloseNotifySucceeds) {
  CloseNotifyServer server("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nwhole body", true);
  auto client = trusting_client();
  auto response = client.fetch(request_for(server.url()));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "whole body");
}

TEST(FaultMatrixTls, ContentLengthBodyCompleteBeforeAMissingCloseNotifySucceeds) {
  CloseNotifyServer server("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false);
  auto client = trusting_client();
  auto response = client.fetch(request_for(server.url()));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello");
}

TEST(FaultMatrixTls, ChunkedBodyCompleteBeforeAMissingCloseNotifySucceeds) {
  CloseNotifyServer server(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
      "5\r\nhello\r\n0\r\n\r\n",
      false);
  auto client = trusting_client();
  auto response = client.fetch(request_for(server.url()));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_TRUE(body.ok()) << body.error().message();
  EXPECT_EQ(*body, "hello");
}

TEST(FaultMatrixTls, ContentLengthBodyCutWithoutCloseNotifyNamesTheByteCounts) {
  CloseNotifyServer server(
      "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + std::string(1000, 'x'), false);
  auto client = trusting_client();
  auto response = client.fetch(request_for(server.url()));
  ASSERT_TRUE(response.ok()) << response.error().message();
  auto body = response->body.read_all();
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().category(), ErrorCategory::protocol);
  EXPECT_EQ(body.error().message(), "HTTP/1.1: connection closed after 1000 of 5000 body bytes");
}

// ---- the handshake aborted by the server --------------------------------------------

// A plain TCP server: it takes the start of the ClientHello and then hangs up.
TestServer hang_up_during_handshake(bool reset) {
  return TestServer([reset](ServerConnection& conn) {
    if (conn.read_some(1).empty()) return;
    if (reset) {
      conn.reset();
    } else {
      conn.close();
    }
  });
}

TEST(FaultMatrixTls, ServerClosingDuringTheHandshakeIsATlsError) {
  TestServer server = hang_up_during_handshake(false);
  auto client = trusting_client();
  auto response =
      client.fetch(request_for("https://localhost:" + std::to_string(server.port()) + "/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_EQ(response.error().message(),
            "TLS: handshake with localhost failed: connection closed by peer");
}

TEST(FaultMatrixTls, ServerResettingDuringTheHandshakeIsATlsError) {
  TestServer server = hang_up_during_handshake(true);
  auto client = trusting_client();
  auto response =
      client.fetch(request_for("https://localhost:" + std::to_string(server.port()) + "/"));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.error().category(), ErrorCategory::tls);
  EXPECT_EQ(response.error().message(),
            "TLS: handshake with localhost failed: connection reset by peer");
}

}  // namespace
}  // namespace sluice
