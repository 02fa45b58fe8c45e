// Self-tests of the in-process TestServer, driven by plain POSIX sockets and an
// OpenSSL client (never the sluice client, which these servers exist to test).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <thread>

#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice::test {
namespace {

constexpr std::size_t k64MiB = 64u << 20;
constexpr std::size_t k16MiB = 16u << 20;

const std::string& big_body() {
  static const std::string body = pseudo_random_bytes(k64MiB, 7);
  return body;
}

// A blocking client socket. Test thread only.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port, bool ipv6 = false) {
    fd_ = ::socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval limit{30, 0};  // a broken server fails the test instead of hanging it
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_storage address{};
    socklen_t length = 0;
    if (ipv6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
      in6->sin6_family = AF_INET6;
      in6->sin6_addr = in6addr_loopback;
      in6->sin6_port = htons(port);
      length = sizeof *in6;
    } else {
      auto* in4 = reinterpret_cast<sockaddr_in*>(&address);
      in4->sin_family = AF_INET;
      in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      in4->sin_port = htons(port);
      length = sizeof *in4;
    }
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), length) == 0;
  }
  ~RawClient() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    close();
  }

  // Handshakes as a client of "localhost", trusting only `ca_file` ("" trusts
  // nothing). `alpn` is in wire form.
  bool start_tls(const std::string& ca_file, std::string_view alpn) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (!ca_file.empty()) SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    SSL_set_alpn_protos(ssl_, reinterpret_cast<const unsigned char*>(alpn.data()),
                        static_cast<unsigned int>(alpn.size()));
    SSL_set_tlsext_host_name(ssl_, "localhost");
    SSL_set1_host(ssl_, "localhost");
    SSL_set_fd(ssl_, fd_);
    return SSL_connect(ssl_) == 1;
  }
  std::string alpn_selected() const {
    const unsigned char* name = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl_, &name, &length);
    return std::string(reinterpret_cast<const char*>(name), length);
  }

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool send_all(std::string_view bytes) {
    if (ssl_ != nullptr) {
      std::size_t sent = 0;
      return SSL_write_ex(ssl_, bytes.data(), bytes.size(), &sent) == 1;
    }
    while (!bytes.empty()) {
      ssize_t rv = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (rv <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(rv));
    }
    return true;
  }
  // Reads until `n` bytes are buffered or the stream ends.
  bool fill_to(std::size_t n) {
    char chunk[64 * 1024];
    while (buffered_.size() < n) {
      std::size_t got = 0;
      if (ssl_ != nullptr) {
        int rv = SSL_read_ex(ssl_, chunk, sizeof chunk, &got);
        if (rv != 1) {
          clean_eof_ = SSL_get_error(ssl_, rv) == SSL_ERROR_ZERO_RETURN;
          return false;
        }
      } else {
        ssize_t rv = ::recv(fd_, chunk, sizeof chunk, 0);
        if (rv < 0) recv_errno_ = errno;
        clean_eof_ = rv == 0;
        if (rv <= 0) return false;
        got = static_cast<std::size_t>(rv);
      }
      buffered_.append(chunk, got);
    }
    return true;
  }
  std::string read_exact(std::size_t n) {
    fill_to(n);
    std::string out = buffered_.substr(0, n);
    buffered_.erase(0, out.size());
    return out;
  }
  // One response framed by Content-Length: head (with its CRLFCRLF) and body.
  std::string read_response() {
    std::size_t end;
    while ((end = buffered_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill_to(buffered_.size() + 1)) return std::exchange(buffered_, {});
    }
    std::string head = read_exact(end + 4);
    std::size_t at = head.find("Content-Length: ");
    std::size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 16));
    return head + read_exact(length);
  }
  /// errno of the recv that failed (ECONNRESET after a RST); 0 after a clean EOF.
  int recv_errno() const { return recv_errno_; }
  /// The last read ended with FIN (plain) or close_notify (TLS), not an error.
  bool clean_eof() const { return clean_eof_; }
  std::string read_until_eof() {
    while (fill_to(buffered_.size() + 1)) {}
    return std::exchange(buffered_, {});
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string buffered_;
  int recv_errno_ = 0;
  bool clean_eof_ = false;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

std::string body_of(const std::string& response) {
  std::size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

TEST(TestServerHelpers, Sha256OfAbcIsTheStandardDigest) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TestServerHelpers, HttpResponseHasStatusLineLengthAndHeadersInOrder) {
  EXPECT_EQ(http_response(404, "nope", {{"X-A", "1"}, {"X-B", "2"}}),
            "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\nX-A: 1\r\nX-B: 2\r\n\r\nnope");
}

TEST(TestServerHelpers, HttpResponseLeavesFramingToCallerAndOmitsItFor204) {
  EXPECT_EQ(http_response(204, ""), "HTTP/1.1 204 No Content\r\n\r\n");
  EXPECT_EQ(http_response(200, "5\r\nhello\r\n0\r\n\r\n", {{"Transfer-Encoding", "chunked"}}),
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
}

TEST(TestServerHelpers, PseudoRandomBytesAreDeterministicPerSeedAndExactInSize) {
  std::string a = pseudo_random_bytes(1001, 3);
  EXPECT_EQ(a.size(), 1001u);
  EXPECT_EQ(a, pseudo_random_bytes(1001, 3));
  EXPECT_NE(a, pseudo_random_bytes(1001, 4));
  EXPECT_EQ(pseudo_random_bytes(5, 3), a.substr(0, 5));
  EXPECT_EQ(big_body().size(), k64MiB);
}

TEST(TestServer, GetRoundTripDeliversRequestAndResponse) {
  std::promise<std::optional<ReceivedRequest>> seen;
  TestServer server([&](ServerConnection& conn) {
    auto request = conn.read_request();
    seen.set_value(request);
    conn.write(http_response(200, "hello", {{"X-Reply", "yes"}}));
  });
  EXPECT_EQ(server.url("/a"), "http://127.0.0.1:" + std::to_string(server.port()) + "/a");
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  client.send_all("GET /path?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Mixed-Case:  Value \r\n\r\n");
  std::string response = client.read_response();
  EXPECT_EQ(response, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Reply: yes\r\n\r\nhello");
  std::optional<ReceivedRequest> request = seen.get_future().get();
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->method, "GET");
  EXPECT_EQ(request->target, "/path?q=1");
  EXPECT_EQ(request->version, "HTTP/1.1");
  EXPECT_EQ(request->headers.get("x-mixed-case").value_or(""), "Value");
  EXPECT_EQ(request->headers.get("HOST").value_or(""), "127.0.0.1");
  EXPECT_TRUE(request->body.empty());
  EXPECT_FALSE(request->chunked);
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(TestServer, ChunkedRequestBodyIsDecodedAndTrailersSkipped) {
  std::promise<std::vector<std::optional<ReceivedRequest>>> seen;
  TestServer server([&](ServerConnection& conn) {
    std::vector<std::optional<ReceivedRequest>> requests;
    requests.push_back(conn.read_request());
    requests.push_back(conn.read_request());
    seen.set_value(std::move(requests));
  });
  RawClient client(server.port());
  // The second request proves the trailer section was consumed exactly.
  client.send_all(
      "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"
      "GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
  auto requests = seen.get_future().get();
  ASSERT_TRUE(requests[0].has_value());
  EXPECT_TRUE(requests[0]->chunked);
  EXPECT_EQ(requests[0]->body, "hello world");
  EXPECT_FALSE(requests[0]->headers.contains("X-Trailer"));
  ASSERT_TRUE(requests[1].has_value());
  EXPECT_EQ(requests[1]->target, "/next");
}

TEST(TestServer, KeepAliveReadsTwoPipelinedRequestsBackToBack) {
  TestServer server([](ServerConnection& conn) {
    while (auto request = conn.read_request(2s)) {
      conn.write(http_response(200, request->target + ":" + request->body));
    }
  });
  RawClient client(server.port());
  client.send_all(
      "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
      "POST /two HTTP/1.1\r\nHost: x\r\ncontent-length: 4\r\n\r\ndefg");
  EXPECT_EQ(body_of(client.read_response()), "/one:abc");
  EXPECT_EQ(body_of(client.read_response()), "/two:defg");
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(TestServer, RequestArrivingOneByteAtATimeIsAssembled) {
  std::promise<std::optional<ReceivedRequest>> seen;
  TestServer server([&](ServerConnection& conn) { seen.set_value(conn.read_request()); });
  RawClient client(server.port());
  int one = 1;
  ::setsockopt(client.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  for (char c : std::string("\r\nPUT /slow HTTP/1.1\r\nContent-Length: 2\r\n\r\nok")) {
    client.send_all(std::string_view(&c, 1));
  }
  auto request = seen.get_future().get();
  ASSERT_TRUE(request.has_value());
  EXPECT_EQ(request->target, "/slow");
  EXPECT_EQ(request->body, "ok");
}

TEST(TestServer, ReadRequestHeadLeavesBodyForReadSome) {
  std::promise<std::pair<std::string, std::string>> seen;
  TestServer server([&](ServerConnection& conn) {
    auto head = conn.read_request_head();
    std::string body;
    while (body.size() < 10) {
      std::string piece = conn.read_some(4);
      if (piece.empty()) break;
      EXPECT_LE(piece.size(), 4u);
      body += piece;
    }
    seen.set_value({head ? head->body + "|" + head->target : "no head", body});
  });
  RawClient client(server.port());
  client.send_all("POST /h HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789");
  auto [head, body] = seen.get_future().get();
  EXPECT_EQ(head, "|/h");
  EXPECT_EQ(body, "0123456789");
}

TEST(TestServer, ReadRequestTimesOutWithoutARequest) {
  std::promise<bool> got;
  TestServer server(
      [&](ServerConnection& conn) { got.set_value(conn.read_request(50ms).has_value()); });
  RawClient client(server.port());
  EXPECT_FALSE(got.get_future().get());
}

TEST(TestServer, WriteUntilBlockedStopsWhenClientDoesNotRead) {
  std::promise<std::pair<std::size_t, std::uint64_t>> result;
  TestServer server([&](ServerConnection& conn) {
    std::size_t n = conn.write_until_blocked(big_body(), 300ms);
    result.set_value({n, conn.bytes_written()});
  });
  RawClient client(server.port());
  auto [written, counted] = result.get_future().get();
  EXPECT_GT(written, 64u * 1024);
  EXPECT_LT(written, k64MiB);
  EXPECT_EQ(counted, written);
}

TEST(TestServer, ResetMakesClientReadFailWithConnectionReset) {
  TestServer server([](ServerConnection& conn) {
    conn.read_request();
    conn.reset();
  });
  RawClient client(server.port());
  client.send_all("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  char byte;
  ssize_t rv = ::recv(client.fd(), &byte, 1, 0);
  int error = errno;
  EXPECT_EQ(rv, -1);
  EXPECT_EQ(error, ECONNRESET) << std::strerror(error);
}

TEST(TestServer, CloseDrainsUnreadBodySoClientFinishesSendingAndSeesEof) {
  TestServer server([](ServerConnection& conn) {
    conn.read_request_head();  // the body stays unread
    conn.write(http_response(413, "too big"));
  });  // returning closes
  RawClient client(server.port());
  // More than the socket buffers hold: without draining, closing with unread bytes
  // would send RST and fail this send.
  std::size_t size = 8u << 20;
  EXPECT_TRUE(client.send_all("POST / HTTP/1.1\r\nContent-Length: " + std::to_string(size) +
                              "\r\n\r\n" + std::string(size, 'x')));
  EXPECT_EQ(body_of(client.read_until_eof()), "too big");
  EXPECT_TRUE(client.clean_eof()) << std::strerror(client.recv_errno());
}

TEST(TestServer, ShutdownWriteSendsEofAndKeepsReading) {
  std::promise<std::string> after;
  TestServer server([&](ServerConnection& conn) {
    conn.write("partial");
    conn.shutdown_write();
    after.set_value(conn.read_some(100));
  });
  RawClient client(server.port());
  EXPECT_EQ(client.read_until_eof(), "partial");
  client.send_all("late");
  EXPECT_EQ(after.get_future().get(), "late");
}

TEST(TestServer, WaitPeerClosedSeesClientCloseAndTimesOutOtherwise) {
  std::promise<std::pair<bool, bool>> result;
  std::promise<void> first_wait_done;
  TestServer server([&](ServerConnection& conn) {
    bool before = conn.wait_peer_closed(50ms);
    first_wait_done.set_value();
    bool after_close = conn.wait_peer_closed(10s);
    result.set_value({before, after_close});
  });
  RawClient client(server.port());
  first_wait_done.get_future().wait();
  client.close();
  auto [before, after_close] = result.get_future().get();
  EXPECT_FALSE(before);
  EXPECT_TRUE(after_close);
}

TEST(TestServer, WriteSlowlyDeliversEveryByteInOrder) {
  TestServer server([](ServerConnection& conn) {
    EXPECT_TRUE(conn.write_slowly("abcdefghij", 3, 5ms));
    EXPECT_EQ(conn.bytes_written(), 10u);
  });
  RawClient client(server.port());
  EXPECT_EQ(client.read_until_eof(), "abcdefghij");
}

TEST(TestServer, DestructorReturnsWhileHandlerBlockedInReadRequest) {
  std::promise<void> entered;
  std::atomic<int> outcome{-1};  // 0: nullopt, 1: a request
  auto started = std::chrono::steady_clock::now();
  {
    TestServer server([&](ServerConnection& conn) {
      entered.set_value();
      outcome = conn.read_request(120s).has_value() ? 1 : 0;
    });
    RawClient client(server.port());
    entered.get_future().wait();
  }
  // The read allowed two minutes; the destructor must cut it short, not wait it out.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 60s);
  EXPECT_EQ(outcome.load(), 0);
}

TEST(TestServer, DestructorWakesHandlerBlockedInWrite) {
  std::promise<ServerConnection*> entered;
  std::atomic<int> outcome{-1};
  {
    TestServer server([&](ServerConnection& conn) {
      entered.set_value(&conn);
      outcome = conn.write(big_body()) ? 1 : 0;
    });
    RawClient client(server.port());
    std::future<ServerConnection*> handler = entered.get_future();
    ASSERT_EQ(handler.wait_for(30s), std::future_status::ready) << "no connection was handled";
    // The write filled the socket buffers and waits for the client, which never reads.
    const ServerConnection* conn = handler.get();
    ASSERT_TRUE(eventually([conn] { return conn->write_waits() >= 1; }))
        << "the write never blocked; written " << conn->bytes_written();
  }
  EXPECT_EQ(outcome.load(), 0);
}

TEST(TestServer, ListensOnIpv6LoopbackWhenAsked) {
  TestServerOptions options;
  options.ipv6 = true;
  TestServer server(
      [](ServerConnection& conn) {
        if (conn.read_request()) conn.write(http_response(200, "six"));
      },
      options);
  EXPECT_EQ(server.url(), "http://[::1]:" + std::to_string(server.port()) + "/");
  RawClient client(server.port(), true);
  ASSERT_TRUE(client.connected());
  client.send_all("GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n");
  EXPECT_EQ(body_of(client.read_response()), "six");
}

TEST(TestServer, CountsEveryAcceptedConnection) {
  TestServer server([](ServerConnection& conn) { conn.read_request(); });
  for (int i = 0; i < 3; ++i) {
    RawClient client(server.port());
    client.send_all("GET / HTTP/1.1\r\n\r\n");
    client.read_until_eof();
  }
  EXPECT_EQ(server.connections_accepted(), 3u);
}

TEST(TestServerTls, RoundTripWithTestCaNegotiatesHttp11) {
  TestServerOptions options;
  options.tls = true;
  std::promise<std::string> target;
  TestServer server(
      [&](ServerConnection& conn) {
        auto request = conn.read_request();
        target.set_value(request ? request->target : "no request");
        conn.write(http_response(200, "secure"));
      },
      options);
  EXPECT_EQ(server.url("/x"), "https://127.0.0.1:" + std::to_string(server.port()) + "/x");
  RawClient client(server.port());
  ASSERT_TRUE(client.start_tls(test_certs().ca_file, "\x02h2\x08http/1.1"));
  EXPECT_EQ(client.alpn_selected(), "http/1.1");
  client.send_all("GET /tls HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(body_of(client.read_response()), "secure");
  EXPECT_EQ(target.get_future().get(), "/tls");
}

TEST(TestServerTls, AlpnFollowsServerPreference) {
  TestServerOptions options;
  options.tls = true;
  options.alpn = {"h2", "http/1.1"};
  TestServer server([](ServerConnection& conn) { conn.read_request(); }, options);
  RawClient client(server.port());
  ASSERT_TRUE(client.start_tls(test_certs().ca_file, "\x08http/1.1\x02h2"));
  EXPECT_EQ(client.alpn_selected(), "h2");
}

TEST(TestServerTls, FailedHandshakeClosesWithoutRunningHandler) {
  TestServerOptions options;
  options.tls = true;
  std::atomic<int> handler_runs{0};
  {
    TestServer server([&](ServerConnection&) { ++handler_runs; }, options);
    RawClient client(server.port());
    EXPECT_FALSE(client.start_tls("", "\x08http/1.1"));  // trusts no CA
    client.close();
    EXPECT_EQ(server.connections_accepted(), 1u);
  }
  EXPECT_EQ(handler_runs.load(), 0);
}

// Over plain TCP and TLS: bytes counted by write_until_blocked are exactly the
// prefix the client gets, so writing the rest afterwards yields the whole body.
class TestServerStall : public ::testing::TestWithParam<bool> {};

TEST_P(TestServerStall, WriteAfterStallDeliversTheRestInOrder) {
  TestServerOptions options;
  options.tls = GetParam();
  std::promise<std::size_t> stalled_at;
  TestServer server(
      [&](ServerConnection& conn) {
        // 16 MiB is four times what loopback buffers hold, so the write does stall.
        std::string_view body = std::string_view(big_body()).substr(0, k16MiB);
        std::size_t n = conn.write_until_blocked(body, 300ms);
        stalled_at.set_value(n);
        EXPECT_TRUE(conn.write(body.substr(n)));
        EXPECT_EQ(conn.bytes_written(), body.size());
      },
      options);
  RawClient client(server.port());
  if (GetParam()) {
    ASSERT_TRUE(client.start_tls(test_certs().ca_file, "\x08http/1.1"));
  }
  std::size_t n = stalled_at.get_future().get();
  EXPECT_GT(n, 0u);
  EXPECT_LT(n, k16MiB);
  std::string received = client.read_exact(k16MiB);
  EXPECT_EQ(received.size(), k16MiB);
  EXPECT_EQ(sha256_hex(received), sha256_hex(std::string_view(big_body()).substr(0, k16MiB)));
}

TEST_P(TestServerStall, ClientReceivesExactlyTheCountedBytesWhenHandlerStopsAfterStall) {
  TestServerOptions options;
  options.tls = GetParam();
  std::string_view body = std::string_view(big_body()).substr(0, k16MiB);
  std::promise<std::size_t> stalled_at;
  TestServer server(
      [&](ServerConnection& conn) { stalled_at.set_value(conn.write_until_blocked(body, 300ms)); },
      options);  // returning closes, after flushing whatever was counted
  RawClient client(server.port());
  if (GetParam()) {
    ASSERT_TRUE(client.start_tls(test_certs().ca_file, "\x08http/1.1"));
  }
  std::size_t n = stalled_at.get_future().get();
  std::string received = client.read_until_eof();
  EXPECT_TRUE(client.clean_eof());
  EXPECT_EQ(received.size(), n);
  EXPECT_EQ(sha256_hex(received), sha256_hex(body.substr(0, n)));
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, TestServerStall, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "Tls" : "Plain"; });

}  // namespace
}  // namespace sluice::test
