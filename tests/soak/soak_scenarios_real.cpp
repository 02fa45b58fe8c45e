// Scenarios against the real servers started by tests/support/servers/start.sh:
// files over h1, h1+TLS, h2 and h3 (nginx, nghttpd, caddy, gtlsserver), gzip bodies,
// uploads to nginx (PUT, read back, DELETE) and nghttpd (POST echo). Worker threads.

#include <chrono>
#include <thread>

#include "soak/soak_scenarios.hpp"

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;

struct Origin {
  const char* kind;
  std::string SoakEnv::*url;
  VersionPolicy policy;
  Versions versions;
};

// caddy in automatic mode starts on h2 and moves to h3 once it has seen Alt-Svc.
const Origin kOrigins[] = {
    {"h1_get", &SoakEnv::nginx_http, VersionPolicy::http1_only, {HttpVersion::http1_1}},
    {"h1_tls_get", &SoakEnv::nginx_https, VersionPolicy::automatic, {HttpVersion::http1_1}},
    {"h2_get", &SoakEnv::nginx_h2, VersionPolicy::automatic, {HttpVersion::http2}},
    {"h2_nghttpd_get", &SoakEnv::nghttpd, VersionPolicy::automatic, {HttpVersion::http2}},
    {"h3_get", &SoakEnv::caddy, VersionPolicy::http3_only, {HttpVersion::http3}},
    {"h3_gtls_get", &SoakEnv::gtlsserver, VersionPolicy::http3_only, {HttpVersion::http3}},
    {"caddy_auto_get",
     &SoakEnv::caddy,
     VersionPolicy::automatic,
     {HttpVersion::http2, HttpVersion::http3}},
};

const ServedFile& pick_file(Turn& turn) {
  static constexpr std::pair<const char*, int> kFiles[] = {
      {"empty.bin", 4}, {"small.txt", 25}, {"1m.bin", 40}, {"large.txt", 20}, {"64m.bin", 6}};
  int pick = static_cast<int>(turn.uniform(0, 94));
  for (const auto& [name, weight] : kFiles) {
    if (pick < weight) return turn.shared.env->file(name);
    pick -= weight;
  }
  return turn.shared.env->file("1m.bin");
}

Expected expected_file(const ServedFile& file) { return Expected{file.size, file.sha256, {}}; }

// A good GET on a shared Client, or one in ten on a Client made for it alone.
void get_file(Turn& turn) {
  const Origin& origin = kOrigins[turn.uniform(0, std::size(kOrigins) - 1)];
  const ServedFile* file = &pick_file(turn);
  // gtlsserver answers an empty file with 404 (its example server's rule).
  if (file->size == 0 && origin.url == &SoakEnv::gtlsserver)
    file = &turn.shared.env->file("small.txt");
  Request request = Request::get(turn.shared.env->*origin.url + "/" + file->name);
  request.version = origin.policy;
  if (turn.chance(0.2)) request.allowance = {64 * 1024, 64 * 1024};
  const Mode mode = pick_mode(turn);
  if (!turn.chance(0.1)) {
    return run_good(turn, origin.kind, turn.shared_client(), std::move(request),
                    expected_file(*file), mode, origin.versions);
  }
  auto fresh = turn.fresh_client(turn.shared.fresh_options);
  if (fresh) {
    run_good(turn, origin.kind, *fresh, std::move(request), expected_file(*file), mode,
             origin.versions);
  }
}

// nginx gzips text for a client that asks; the decoded bytes must be the file.
void get_gzip(Turn& turn) {
  const bool h2 = turn.chance(0.5);
  const ServedFile& file = turn.shared.env->file(turn.chance(0.8) ? "large.txt" : "small.txt");
  Request request = Request::get((h2 ? turn.shared.env->nginx_h2 : turn.shared.env->nginx_http) +
                                 "/" + file.name);
  request.decode.enabled = true;
  run_good(turn, h2 ? "gzip_h2" : "gzip_h1", turn.shared_client(), std::move(request),
           expected_file(file), pick_mode(turn), {h2 ? HttpVersion::http2 : HttpVersion::http1_1});
}

// Owned bytes, a file-free stream with or without a length: the three request bodies.
struct Upload {
  Request request;
  std::shared_ptr<BodyWriter> writer;  ///< set for a streamed body
  std::string_view bytes;
};

Upload make_upload(Turn& turn, std::string method, std::string url, std::uint64_t max_size) {
  Upload upload;
  upload.bytes = turn.shared.faults->payload().substr(0, turn.uniform(0, max_size));
  upload.request.method = std::move(method);
  upload.request.url = std::move(url);
  upload.request.timeouts.total = 180s;
  if (turn.chance(0.5)) {
    upload.request.body = BytesBody{std::string(upload.bytes)};
    return upload;
  }
  upload.writer = BodyWriter::create(turn.chance(0.5) ? 256 * 1024 : 16 * 1024);
  StreamBody stream{upload.writer, std::nullopt};
  if (turn.chance(0.5)) stream.length = upload.bytes.size();
  upload.request.body = std::move(stream);
  return upload;
}

// Feeds a streamed body from this thread in pieces of random size; a write fails
// once the request ended, which the response then explains.
void write_body(Turn& turn, BodyWriter& writer, std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t n = std::min<std::size_t>(bytes.size(), turn.uniform(1, 64 * 1024));
    if (!writer.write(bytes.substr(0, n))) return;
    bytes.remove_prefix(n);
  }
  writer.close();
}

// Sends the upload and returns the response with its body read, or the error.
Result<std::string> send_upload(Turn& turn, Client& client, Upload& upload, int& status) {
  PendingResponse pending = client.send(upload.request);
  if (upload.writer) write_body(turn, *upload.writer, upload.bytes);
  auto response = pending.wait();
  if (!response) return std::move(response).error();
  status = response->status;
  return response->body.read_all();
}

void upload_to_nginx(Turn& turn) {
  const bool h2 = turn.chance(0.5);
  const char* kind = h2 ? "upload_h2" : "upload_h1";
  const std::string base = (h2 ? turn.shared.env->nginx_h2 : turn.shared.env->nginx_http) +
                           "/upload/soak-" + std::to_string(turn.worker) + "-" +
                           std::to_string(turn.serial);
  Client& client = turn.shared_client();
  Upload upload = make_upload(turn, "PUT", base, 2u << 20);
  int status = 0;
  auto put = send_upload(turn, client, upload, status);
  if (!put || (status != 201 && status != 204)) {
    return turn.record(
        kind, Outcome::unexpected,
        "PUT " + base + ": " + (put ? "status " + std::to_string(status) : put.error().describe()));
  }
  // Read back: what nginx stored must be what was sent, byte for byte.
  run_good(turn, kind, client, Request::get(base), Expected{upload.bytes.size(), "", upload.bytes},
           pick_reading_mode(turn));
  Request remove = Request::get(base);
  remove.method = "DELETE";
  (void)client.fetch(std::move(remove));
}

// An upload cancelled half way: the writer must fail rather than wait forever.
void upload_cancelled(Turn& turn) {
  const std::string url = turn.shared.env->nginx_http + "/upload/cancelled-" +
                          std::to_string(turn.worker) + "-" + std::to_string(turn.serial);
  Request request;
  request.method = "PUT";
  request.url = url;
  auto writer = BodyWriter::create(64 * 1024);
  request.body = StreamBody{writer, std::nullopt};
  PendingResponse pending = turn.shared_client().send(std::move(request));
  const std::string_view bytes = turn.shared.faults->payload();
  const std::uint64_t cancel_at = turn.uniform(0, 1u << 20);
  for (std::uint64_t offset = 0; offset < bytes.size(); offset += 8192) {
    if (offset >= cancel_at) pending.cancel();
    const std::string_view piece = bytes.substr(offset, 8192);
    auto wrote = writer->write_for(std::as_bytes(std::span(piece.data(), piece.size())), 10s);
    if (!wrote) break;  // the request ended: what the writer must see
    if (!*wrote)
      return turn.record("upload_cancelled", Outcome::unexpected,
                         url + ": the writer waited 10 s after cancel()");
  }
  auto response = pending.wait();
  if (!response && response.error().category() == ErrorCategory::cancelled) {
    return turn.record("upload_cancelled", Outcome::cancelled);
  }
  turn.record("upload_cancelled", Outcome::unexpected,
              url + ": " +
                  (response ? "answered " + std::to_string(response->status)
                            : response.error().describe()));
}

// nghttpd --echo-upload answers a POST with the body it received.
void upload_echo_nghttpd(Turn& turn) {
  Upload upload = make_upload(turn, "POST", turn.shared.env->nghttpd + "/echo", 1u << 20);
  int status = 0;
  auto echo = send_upload(turn, turn.shared_client(), upload, status);
  if (!echo || status != 200 || *echo != upload.bytes) {
    return turn.record(
        "upload_echo_h2", Outcome::unexpected,
        "POST " + upload.request.url + ": " +
            (echo ? "status " + std::to_string(status) + ", " + std::to_string(echo->size()) +
                        " bytes echoed of " + std::to_string(upload.bytes.size())
                  : echo.error().describe()));
  }
  turn.record("upload_echo_h2", Outcome::ok);
}

// A Client destroyed while one of its bodies is half read: the reader must fail with
// cancelled, and nothing may be left behind.
void client_destroyed_mid_body(Turn& turn) {
  static constexpr std::string_view kKind = "client_destroyed_mid_body";
  const Origin& origin = kOrigins[turn.uniform(0, std::size(kOrigins) - 1)];
  const ServedFile& file = turn.shared.env->file("64m.bin");
  auto client = turn.fresh_client(turn.shared.fresh_options);
  if (!client) return;
  Request request = Request::get(turn.shared.env->*origin.url + "/" + file.name);
  request.version = origin.policy;
  auto response = client->fetch(std::move(request));
  if (!response) return turn.record(kKind, Outcome::unexpected, response.error().describe());
  BodyCheck check(expected_file(file));
  (void)read_some(response->body, check, turn.uniform(0, 1u << 20));
  client.reset();
  auto rest = read_to_end(response->body, check, turn.rng, false);
  if (!rest && rest.error().category() == ErrorCategory::cancelled) {
    return turn.record(kKind, Outcome::cancelled);
  }
  turn.record(kKind, Outcome::unexpected,
              std::string(origin.kind) + ": after the Client went: " +
                  (rest ? "the body ended with " + std::to_string(check.bytes()) + " bytes"
                        : rest.error().describe()));
}

constexpr Scenario kRealServerScenarios[] = {
    {"get_file", 40, get_file},
    {"gzip", 7, get_gzip},
    {"upload_nginx", 7, upload_to_nginx},
    {"upload_cancelled", 2, upload_cancelled},
    {"upload_echo_h2", 3, upload_echo_nghttpd},
    {"client_destroyed_mid_body", 3, client_destroyed_mid_body},
};

}  // namespace

std::span<const Scenario> real_server_scenarios() { return kRealServerScenarios; }

}  // namespace sluice::soak
