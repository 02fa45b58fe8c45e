// TestServer: the listening socket, the accept thread, one thread per connection,
// and a shutdown that wakes every blocked handler before joining it.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "support/server_connection.hpp"
#include "support/test_certs.hpp"
#include "support/test_server.hpp"

namespace sluice::test {
namespace {

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);

std::string openssl_error_text() {
  char text[256] = "no OpenSSL error queued";
  unsigned long code = ERR_get_error();
  if (code != 0) ERR_error_string_n(code, text, sizeof text);
  return text;
}

[[noreturn]] void fail_setup(const std::string& what) {
  throw std::runtime_error("TestServer: " + what);
}

// ALPN in wire form: each name prefixed by its length.
std::string alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& name : protocols) {
    if (name.empty() || name.size() > 255) fail_setup("invalid ALPN name '" + name + "'");
    wire += static_cast<char>(name.size());
    wire += name;
  }
  return wire;
}

// The server's order wins; a client offering nothing we speak gets no ALPN at all,
// which is what an HTTP/1.1-only server does.
int select_alpn(SSL*, const unsigned char** out, unsigned char* out_len,
                const unsigned char* offered, unsigned int offered_len, void* arg) noexcept {
  const auto* ours = static_cast<const std::string*>(arg);
  unsigned char* chosen = nullptr;
  unsigned char chosen_len = 0;
  int rv = SSL_select_next_proto(&chosen, &chosen_len,
                                 reinterpret_cast<const unsigned char*>(ours->data()),
                                 static_cast<unsigned int>(ours->size()), offered, offered_len);
  if (rv != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
  *out = chosen;
  *out_len = chosen_len;
  return SSL_TLSEXT_ERR_OK;
}

void ignore_sigpipe_once() {
  // OpenSSL writes with write(2), so a peer that left would otherwise kill the tests.
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace

// Owned by TestServer. Built and destroyed on the test thread; the accept thread
// adds and reaps connections under mu; each connection's thread uses its own entry.
struct TestServer::Impl {
  struct Live {
    std::unique_ptr<detail::ManagedConnection> conn;
    std::thread thread;
    std::atomic<bool> done{false};
  };

  Impl(Handler handler_in, TestServerOptions options_in)
      : handler(std::move(handler_in)), options(std::move(options_in)) {}
  ~Impl();

  void listen();
  void make_tls_context();
  void accept_loop();
  void start_connection(int fd);
  void run_connection(Live& live);
  void reap_finished();

  Handler handler;
  TestServerOptions options;
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // the destructor writes wake[1] to stop the accept loop
  std::uint16_t port = 0;
  SSL_CTX* ssl_ctx = nullptr;
  std::string alpn;  // wire form; outlives ssl_ctx, whose callback reads it
  std::atomic<std::size_t> accepted{0};
  std::mutex mu;
  std::vector<std::unique_ptr<Live>> live;  // guarded by mu
  std::thread acceptor;
};

void TestServer::Impl::listen() {
  int family = options.ipv6 ? AF_INET6 : AF_INET;
  listen_fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd < 0) fail_setup(std::string("socket() failed: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage address{};
  socklen_t length = 0;
  if (options.ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_loopback;
    length = sizeof *in6;
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&address);
    in4->sin_family = AF_INET;
    in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof *in4;
  }
  if (::bind(listen_fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd, 128) != 0 ||
      ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    fail_setup(std::string("cannot listen on loopback: ") + std::strerror(errno));
  }
  port = ntohs(options.ipv6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                            : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  if (::pipe2(wake, O_CLOEXEC) != 0) fail_setup(std::string("pipe2: ") + std::strerror(errno));
}

void TestServer::Impl::make_tls_context() {
  std::string cert = options.cert_file.empty() ? test_certs().server_cert : options.cert_file;
  std::string key = options.key_file.empty() ? test_certs().server_key : options.key_file;
  ssl_ctx = SSL_CTX_new(TLS_server_method());
  if (ssl_ctx == nullptr) fail_setup("SSL_CTX_new: " + openssl_error_text());
  if (SSL_CTX_use_certificate_chain_file(ssl_ctx, cert.c_str()) != 1) {
    fail_setup("cannot load certificate " + cert + ": " + openssl_error_text());
  }
  if (SSL_CTX_use_PrivateKey_file(ssl_ctx, key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ssl_ctx) != 1) {
    fail_setup("cannot load key " + key + " for " + cert + ": " + openssl_error_text());
  }
  alpn = alpn_wire(options.alpn);
  if (!alpn.empty()) SSL_CTX_set_alpn_select_cb(ssl_ctx, select_alpn, &alpn);
}

void TestServer::Impl::accept_loop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd, POLLIN, 0}, {wake[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      // Out of descriptors: wait for handlers to free some instead of spinning.
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(10ms);
      continue;
    }
    accepted.fetch_add(1);
    reap_finished();
    start_connection(fd);
  }
}

void TestServer::Impl::start_connection(int fd) {
  auto entry = std::make_unique<Live>();
  entry->conn =
      options.tls ? detail::make_tls_connection(fd, ssl_ctx) : detail::make_plain_connection(fd);
  Live& ref = *entry;
  std::lock_guard<std::mutex> lock(mu);
  live.push_back(std::move(entry));
  ref.thread = std::thread([this, &ref] { run_connection(ref); });
}

void TestServer::Impl::run_connection(Live& entry) {
  // A failed handshake only closes: the test looks at the client's error.
  if (entry.conn->handshake(kHandshakeTimeout)) {
    try {
      handler(*entry.conn);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "TestServer handler threw: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "TestServer handler threw a non-standard exception";
    }
  }
  entry.conn->finish();
  entry.done.store(true);
}

void TestServer::Impl::reap_finished() {
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = live.begin(); it != live.end();) {
    if ((*it)->done.load()) {
      (*it)->thread.join();  // done is its last act, so this returns at once
      it = live.erase(it);
    } else {
      ++it;
    }
  }
}

TestServer::Impl::~Impl() {
  if (acceptor.joinable()) {
    char byte = 1;
    while (::write(wake[1], &byte, 1) < 0 && errno == EINTR) {}
    acceptor.join();
  }
  std::vector<std::unique_ptr<Live>> remaining;
  {
    std::lock_guard<std::mutex> lock(mu);
    remaining.swap(live);
  }
  for (auto& entry : remaining) entry->conn->abort();
  for (auto& entry : remaining) {
    if (entry->thread.joinable()) entry->thread.join();
  }
  remaining.clear();  // connections (and their SSL objects) go before the context
  if (listen_fd >= 0) ::close(listen_fd);
  for (int fd : wake) {
    if (fd >= 0) ::close(fd);
  }
  if (ssl_ctx != nullptr) SSL_CTX_free(ssl_ctx);
}

TestServer::TestServer(Handler handler, TestServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(options))) {
  ignore_sigpipe_once();
  if (impl_->options.tls) impl_->make_tls_context();
  impl_->listen();
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

TestServer::~TestServer() = default;

std::uint16_t TestServer::port() const { return impl_->port; }

std::string TestServer::url(std::string_view path) const {
  std::string out = impl_->options.tls ? "https://" : "http://";
  out += impl_->options.ipv6 ? "[::1]" : "127.0.0.1";
  out += ":" + std::to_string(impl_->port);
  if (path.empty() || path.front() != '/') out += '/';
  out += path;
  return out;
}

std::size_t TestServer::connections_accepted() const { return impl_->accepted.load(); }

}  // namespace sluice::test
