// The misbehaving servers of sluice-soak. Handlers run on the servers' connection
// threads and only read payload_ (immutable after construction).

#include "soak/soak_fault_servers.hpp"

#include <charconv>
#include <utility>

#include "support/h2_test_server.hpp"

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;

struct Ask {
  std::string behaviour;
  std::uint64_t size = 0;
};

// "/<behaviour>/<size>" (a size past the payload is cut to it).
Ask parse_path(std::string_view path) {
  Ask ask;
  if (path.starts_with("/")) path.remove_prefix(1);
  const auto slash = path.find('/');
  ask.behaviour = std::string(path.substr(0, slash));
  if (slash != std::string_view::npos) {
    const std::string_view digits = path.substr(slash + 1);
    std::from_chars(digits.data(), digits.data() + digits.size(), ask.size);
  }
  ask.size = std::min<std::uint64_t>(ask.size, FaultServers::kPayloadSize);
  return ask;
}

std::string head(std::uint64_t content_length) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
         std::to_string(content_length) + "\r\n\r\n";
}

std::string chunk(std::string_view bytes) {
  char size[32];
  const auto [end, ec] = std::to_chars(size, size + sizeof size, bytes.size(), 16);
  return std::string(size, end) + "\r\n" + std::string(bytes) + "\r\n";
}

// A chunked body in chunks of growing size; `last` adds the last chunk.
bool write_chunked(test::ServerConnection& conn, std::string_view body, bool last) {
  if (!conn.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")) return false;
  std::size_t piece = 1000;
  while (!body.empty()) {
    const std::size_t n = std::min(piece, body.size());
    if (!conn.write(chunk(body.substr(0, n)))) return false;
    body.remove_prefix(n);
    piece = std::min<std::size_t>(piece * 2, 256 * 1024);
  }
  return !last || conn.write("0\r\n\r\n");
}

test::TestServerOptions tls_options(const SoakEnv& env) {
  test::TestServerOptions options;
  options.tls = true;
  options.cert_file = env.certs_dir + "/server.pem";
  options.key_file = env.certs_dir + "/server.key";
  return options;
}

}  // namespace

FaultServers::FaultServers(const SoakEnv& env)
    : payload_(test::pseudo_random_bytes(kPayloadSize, 7)),
      h1_plain_(std::make_unique<test::TestServer>(
          [this](test::ServerConnection& conn) { serve_h1(conn); })),
      h1_tls_(std::make_unique<test::TestServer>(
          [this](test::ServerConnection& conn) { serve_h1(conn); }, tls_options(env))) {
  rotate_h2();
}

FaultServers::~FaultServers() = default;

std::string FaultServers::h1_url(bool tls, std::string_view behaviour, std::uint64_t size) const {
  return (tls ? h1_tls_ : h1_plain_)->url(h2_path(behaviour, size));
}

std::string FaultServers::h2_path(std::string_view behaviour, std::uint64_t size) {
  return "/" + std::string(behaviour) + "/" + std::to_string(size);
}

std::shared_ptr<test::H2TestServer> FaultServers::h2_server() const {
  std::lock_guard lock(mu_);
  return h2_;
}

void FaultServers::rotate_h2() {
  auto fresh = std::make_shared<test::H2TestServer>(
      [this](test::H2ServerStream& stream) { serve_h2(stream); });
  std::shared_ptr<test::H2TestServer> old;
  {
    std::lock_guard lock(mu_);
    old = std::exchange(h2_, std::move(fresh));
  }
  // `old` goes here unless a worker still holds it; then with that worker's pointer.
}

// Keep-alive: good answers leave the connection open for the next request; a fault
// ends it. A pooled connection idle for 20 s is closed, which the client must survive.
void FaultServers::serve_h1(test::ServerConnection& conn) const {
  while (auto request = conn.read_request(20s)) {
    if (!answer_h1(conn, *request)) return;
  }
}

bool FaultServers::answer_h1(test::ServerConnection& conn,
                             const test::ReceivedRequest& request) const {
  const Ask ask = parse_path(request.target);
  const std::string_view body = std::string_view(payload_).substr(0, ask.size);
  const std::string_view half = body.substr(0, body.size() / 2);
  if (ask.behaviour == "ok") return conn.write(head(body.size())) && conn.write(body);
  if (ask.behaviour == "chunked") return write_chunked(conn, body, true);
  if (ask.behaviour == "slow") {
    return conn.write(head(body.size())) && conn.write_slowly(body, 4096, 2ms);
  }
  if (ask.behaviour == "echo") {
    return conn.write(test::http_response(
        200, std::to_string(request.body.size()) + " " + test::sha256_hex(request.body)));
  }
  if (ask.behaviour == "reset") {
    if (conn.write(head(body.size()))) conn.write(half);
    conn.reset();
  } else if (ask.behaviour == "truncated") {
    if (conn.write(head(body.size()))) conn.write(half);
    conn.close();
  } else if (ask.behaviour == "truncated-chunked") {
    write_chunked(conn, half, false);
    conn.close();
  } else if (ask.behaviour == "stall") {
    if (conn.write(head(body.size())) && conn.write(half)) conn.wait_peer_closed(30s);
  } else {
    conn.write(test::http_response(404, "no such behaviour: " + ask.behaviour));
  }
  return false;
}

void FaultServers::serve_h2(test::H2ServerStream& stream) const {
  const Ask ask = parse_path(stream.path());
  const std::string_view body = std::string_view(payload_).substr(0, ask.size);
  const std::string_view half = body.substr(0, body.size() / 2);
  const Headers length{{"content-length", std::to_string(body.size())}};
  if (ask.behaviour == "ok") {
    stream.respond(200, length);
    stream.send_body(body, true);
  } else if (ask.behaviour == "rst") {
    stream.respond(200, length);
    stream.send_body(half, false);
    stream.reset(NGHTTP2_INTERNAL_ERROR);
  } else if (ask.behaviour == "goaway-mid") {
    stream.respond(200, length);
    stream.send_body(half, false);
    stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR);
    stream.conn().close();
  } else if (ask.behaviour == "goaway-graceful") {
    stream.conn().goaway(stream.stream_id(), NGHTTP2_NO_ERROR);
    stream.respond(200, length);
    stream.send_body(body, true);
    stream.conn().close();
  } else {
    stream.respond(404, {}, true);
  }
}

}  // namespace sluice::soak
