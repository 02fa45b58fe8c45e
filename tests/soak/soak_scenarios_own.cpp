// Scenarios against the in-process fault servers (soak_fault_servers.hpp) and the
// UDP fault proxy: good answers with exact bytes, and every fault the servers can
// play. Worker threads.

#include <chrono>

#include "soak/soak_scenarios.hpp"
#include "support/udp_proxy.hpp"

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;

// Faults cut the body in half; at least 2 KiB so that half of it is something.
std::uint64_t fault_size(Turn& turn, std::uint64_t max) { return turn.uniform(2048, max); }

Expected exact(Turn& turn, std::uint64_t size) {
  return Expected{size, "", turn.shared.faults->payload().substr(0, size)};
}

Request h2c_get(const test::H2TestServer& server, std::string_view behaviour, std::uint64_t size) {
  Request request = Request::get(server.url(FaultServers::h2_path(behaviour, size)));
  request.version = VersionPolicy::http2_prior_knowledge;
  return request;
}

void own_h1_ok(Turn& turn) {
  static constexpr const char* kBehaviours[] = {"ok", "chunked", "slow"};
  const char* behaviour = kBehaviours[turn.uniform(0, 2)];
  // "slow" writes 4 KiB per 2 ms: keep it under ~130 ms.
  const std::uint64_t size = turn.uniform(
      0, std::string_view(behaviour) == "slow" ? 256 * 1024 : FaultServers::kPayloadSize);
  const bool tls = turn.chance(0.5);
  Request request = Request::get(turn.shared.faults->h1_url(tls, behaviour, size));
  run_good(turn, tls ? "own_h1_tls_ok" : "own_h1_ok", turn.shared_client(), std::move(request),
           exact(turn, size), pick_mode(turn), {HttpVersion::http1_1});
}

// POST to the echo server, which answers "<size> <sha256>" of what it received.
void own_h1_upload(Turn& turn) {
  const std::string_view bytes = turn.shared.faults->payload().substr(0, turn.uniform(0, 2u << 20));
  Request request;
  request.method = "POST";
  request.url = turn.shared.faults->h1_url(turn.chance(0.5), "echo", 0);
  std::shared_ptr<BodyWriter> writer;
  if (turn.chance(0.5)) {
    request.body = BytesBody{std::string(bytes)};
  } else {
    writer = BodyWriter::create(32 * 1024);
    request.body = StreamBody{
        writer, turn.chance(0.5) ? std::optional<std::uint64_t>(bytes.size()) : std::nullopt};
  }
  request.timeouts.total = 120s;
  PendingResponse pending = turn.shared_client().send(std::move(request));
  if (writer) {
    std::string_view rest = bytes;
    while (!rest.empty()) {
      const std::size_t n = std::min<std::size_t>(rest.size(), turn.uniform(1, 100'000));
      if (!writer->write(rest.substr(0, n))) break;
      rest.remove_prefix(n);
    }
    writer->close();
  }
  auto response = pending.wait();
  auto answer = response ? response->body.read_all() : Result<std::string>(response.error());
  const std::string expected = std::to_string(bytes.size()) + " " + test::sha256_hex(bytes);
  if (!answer || *answer != expected) {
    return turn.record("own_h1_upload", Outcome::unexpected,
                       "POST echo: " + (answer ? "'" + *answer + "', expected '" + expected + "'"
                                               : answer.error().describe()));
  }
  turn.record("own_h1_upload", Outcome::ok);
}

// `idle` ends a stall quickly; for the other faults it is only a backstop, long
// enough that a loaded machine (an ASan build beside other work) never mistakes a
// slow fault server for a silent one.
void h1_fault(Turn& turn, const char* kind, const char* behaviour,
              std::initializer_list<ErrorCategory> allowed, std::chrono::milliseconds idle = 10s) {
  Request request = Request::get(
      turn.shared.faults->h1_url(turn.chance(0.5), behaviour, fault_size(turn, 4u << 20)));
  request.timeouts.idle = idle;
  run_fault(turn, kind, turn.shared_client(), std::move(request), allowed);
}

void h1_reset(Turn& turn) {
  h1_fault(
      turn, "fault_h1_reset", "reset",
      {ErrorCategory::protocol, ErrorCategory::io, ErrorCategory::connect, ErrorCategory::tls});
}
void h1_truncated(Turn& turn) {
  h1_fault(turn, "fault_h1_truncated", "truncated", {ErrorCategory::protocol});
}
void h1_truncated_chunked(Turn& turn) {
  h1_fault(turn, "fault_h1_truncated_chunked", "truncated-chunked", {ErrorCategory::protocol});
}
void h1_stall(Turn& turn) {
  h1_fault(turn, "fault_h1_stall", "stall", {ErrorCategory::timeout}, 300ms);
}

void own_h2_ok(Turn& turn) {
  auto server = turn.shared.faults->h2_server();
  const std::uint64_t size = turn.uniform(0, 1u << 20);
  run_good(turn, "own_h2_ok", turn.shared_client(), h2c_get(*server, "ok", size), exact(turn, size),
           pick_mode(turn), {HttpVersion::http2});
}

void h2_rst_stream(Turn& turn) {
  auto server = turn.shared.faults->h2_server();
  run_fault(turn, "fault_h2_rst_stream", turn.shared_client(),
            h2c_get(*server, "rst", fault_size(turn, 1u << 20)), {ErrorCategory::protocol});
}

// GOAWAY closes the whole connection, so it gets a Client of its own: on a shared one
// it would also cut the bodies of other workers' streams (rightly, but unexpectedly).
void h2_goaway_mid_body(Turn& turn) {
  auto server = turn.shared.faults->h2_server();
  auto client = turn.fresh_client(turn.shared.fresh_options);
  if (!client) return;
  run_fault(turn, "fault_h2_goaway_mid_body", *client,
            h2c_get(*server, "goaway-mid", fault_size(turn, 64 * 1024)),
            {ErrorCategory::protocol, ErrorCategory::io});
}

// A graceful GOAWAY: this stream completes, and the next request opens a new
// connection and completes too.
void h2_goaway_graceful(Turn& turn) {
  auto server = turn.shared.faults->h2_server();
  auto client = turn.fresh_client(turn.shared.fresh_options);
  if (!client) return;
  const std::uint64_t first = turn.uniform(0, 32 * 1024);
  run_good(turn, "h2_goaway_graceful", *client, h2c_get(*server, "goaway-graceful", first),
           exact(turn, first), pick_reading_mode(turn), {HttpVersion::http2});
  const std::uint64_t second = turn.uniform(0, 1u << 20);
  run_good(turn, "h2_after_goaway", *client, h2c_get(*server, "ok", second), exact(turn, second),
           pick_reading_mode(turn), {HttpVersion::http2});
}

// QUIC through a proxy that loses and reorders datagrams: slower, still exact. The
// proxy relays for one client socket at a time, so each run has its own proxy and
// Client.
void h3_lossy(Turn& turn) {
  const SoakEnv& env = *turn.shared.env;
  test::UdpProxyOptions faults;
  faults.drop_probability = 0.03;
  faults.reorder_probability = 0.02;
  faults.seed = turn.uniform(1, 1u << 30);
  test::UdpProxy proxy("127.0.0.1", port_of(env.gtlsserver), faults);
  auto client = turn.fresh_client(turn.shared.fresh_options);
  if (!client) return;
  const ServedFile& file = env.file(turn.chance(0.7) ? "1m.bin" : "large.txt");
  Request request =
      Request::get("https://localhost:" + std::to_string(proxy.port()) + "/" + file.name);
  request.version = VersionPolicy::http3_only;
  request.timeouts.total = 120s;
  run_good(turn, "h3_lossy", *client, std::move(request), Expected{file.size, file.sha256, {}},
           pick_reading_mode(turn), {HttpVersion::http3});
}

// A UDP path that swallows everything: HTTP/3-only must fail with a timeout.
void h3_dead_path(Turn& turn) {
  test::UdpProxy black_hole("127.0.0.1", 9);
  black_hole.set_black_hole(true);
  Request request =
      Request::get("https://localhost:" + std::to_string(black_hole.port()) + "/small.txt");
  request.version = VersionPolicy::http3_only;
  request.timeouts.connect = 1s;
  run_fault(turn, "fault_h3_dead_path", turn.shared_client(), std::move(request),
            {ErrorCategory::timeout});
}

constexpr Scenario kFaultServerScenarios[] = {
    {"own_h1_ok", 6, own_h1_ok},
    {"own_h1_upload", 4, own_h1_upload},
    {"fault_h1_reset", 4, h1_reset},
    {"fault_h1_truncated", 3, h1_truncated},
    {"fault_h1_truncated_chunked", 2, h1_truncated_chunked},
    {"fault_h1_stall", 3, h1_stall},
    {"own_h2_ok", 5, own_h2_ok},
    {"fault_h2_rst_stream", 4, h2_rst_stream},
    {"fault_h2_goaway_mid_body", 2, h2_goaway_mid_body},
    {"h2_goaway_graceful", 2, h2_goaway_graceful},
    {"h3_lossy", 2, h3_lossy},
    {"fault_h3_dead_path", 1, h3_dead_path},
};

}  // namespace

std::span<const Scenario> fault_server_scenarios() { return kFaultServerScenarios; }

}  // namespace sluice::soak
