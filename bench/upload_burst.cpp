// `sluice-bench upload-burst`: the release rule for request bodies. N uploads of
// owned bodies are started at once to a server that reads slowly; with the rule the
// HTTP thread frees each large body copy as soon as the transport has taken its last
// byte, without it every copy lives until its response. Each variant runs in a
// child process of its own so that their peaks are comparable.
// Main thread only (the children run a Client and, unless --url, a SlowServer).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/child_peak.hpp"
#include "bench/release_rule_comparison.hpp"
#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "bench/slow_server.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"

namespace sluice::bench {
namespace {

// The built-in server's rate: 4 KiB per connection per 10 ms pass (400 KiB/s), so a
// 1 MiB body takes at least 2.5 s to be read: longer than making 300 of them takes
// (about 1 s here, most of it page faults), so without the rule every body is still
// held when the last one is sent. At 16 KiB per pass the first bodies were answered
// (and freed either way) before the last ones existed, hiding half the difference.
constexpr std::size_t kServerBytesPerPass = 4 * 1024;
constexpr std::chrono::milliseconds kServerPass{10};

// Creates each body just before its send, as a program that uploads what it just
// produced would, and starts all before waiting for any.
std::vector<PendingResponse> send_all(Client& client, const BenchOptions& options,
                                      const std::string& url) {
  std::vector<PendingResponse> pending;
  pending.reserve(options.count);
  for (std::size_t i = 0; i < options.count; ++i) {
    Request request = make_request(options);
    request.url = url;
    request.method = "PUT";
    request.body = BytesBody{std::string(options.size, 'u')};
    pending.push_back(client.send(std::move(request)));
  }
  return pending;
}

Result<void> wait_all(std::vector<PendingResponse>& pending, const std::string& url) {
  for (PendingResponse& waiting : pending) {
    Result<Response> response = waiting.wait();
    if (!response) return std::move(response).error();
    if (response->status < 200 || response->status > 299) {
      return Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                                " for PUT " + url + " (expected 2xx)");
    }
    Result<std::string> body = response->body.read_all(1024 * 1024);
    if (!body) return std::move(body).error();
  }
  return {};
}

// One variant, in its child: server (unless --url), Client, uploads, responses.
Result<ChildFigures> run_uploads(const BenchOptions& options, std::size_t release_threshold) {
  std::unique_ptr<SlowServer> server;
  std::string url = options.url;
  if (url.empty()) {
    Result<std::unique_ptr<SlowServer>> started =
        SlowServer::start(kServerBytesPerPass, kServerPass);
    if (!started) return std::move(started).error();
    server = std::move(*started);
    url = server->url();
  }
  ClientOptions client_opts = client_options(options);
  client_opts.pool.max_connections_per_origin = options.count;
  client_opts.memory.release_threshold = release_threshold;
  Result<Client> client = Client::create(client_opts);
  if (!client) return std::move(client).error();
  auto start = std::chrono::steady_clock::now();
  std::vector<PendingResponse> pending = send_all(*client, options, url);
  // How far the producer ran ahead of the transports: bodies not yet taken whole.
  std::chrono::duration<double> sending = std::chrono::steady_clock::now() - start;
  std::size_t held_after_sends = client->stats().request_body_bytes_held;
  if (Result<void> done = wait_all(pending, url); !done) return std::move(done).error();
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return ChildFigures{{"seconds", elapsed.count()},
                      {"send_seconds", sending.count()},
                      {"held_after_sends_bytes", static_cast<double>(held_after_sends)}};
}

Result<ChildReport> run_variant(const BenchOptions& options, std::size_t release_threshold,
                                const char* label) {
  Result<ChildReport> report =
      run_in_child([&] { return run_uploads(options, release_threshold); });
  if (report) {
    char note[240];
    std::snprintf(note, sizeof note,
                  "%s: peak %.1f MiB; all sent after %.2f s, when the Client still held %.1f MiB "
                  "of bodies; all responses after %.2f s",
                  label, to_mib(report->peak_rss_bytes), report->figure("send_seconds"),
                  report->figure("held_after_sends_bytes") / (1024.0 * 1024.0),
                  report->figure("seconds"));
    print_note(note);
  }
  return report;
}

}  // namespace

int run_upload_burst(const BenchOptions& options) {
  print_note("uploading " + std::to_string(options.count) + " bodies of " +
             std::to_string(options.size) + " bytes at once to " +
             (options.url.empty() ? std::string("a slow loopback server") : options.url));
  auto reports = compare_release_rule("upload_burst", options,
                                      [&options](std::size_t threshold, const char* label) {
                                        return run_variant(options, threshold, label);
                                      });
  if (!reports) return kExitFailed;
  print_figure("upload_burst_held_after_sends_mib",
               reports->on.figure("held_after_sends_bytes") / (1024.0 * 1024.0), 1);
  print_figure("upload_burst_held_after_sends_mib_rule_off",
               reports->off.figure("held_after_sends_bytes") / (1024.0 * 1024.0), 1);
  return kExitOk;
}

}  // namespace sluice::bench
