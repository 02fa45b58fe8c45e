// `sluice-bench latency`: N small GETs one after another on one kept-alive
// connection, each body read whole before the next request, and the time each took;
// then curl fetching the same N URLs in one command, and h2load -c1 -m1 -n N.
// The first request of each contender opens the connection (TCP, TLS), so it is left
// out of the figures: they describe a request on a connection already open, which is
// what h2load's "time for request" counts. Main thread only; the Client's threads
// exist only inside our run.

#include <chrono>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "bench/measure.hpp"
#include "bench/peer.hpp"
#include "bench/report.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"

namespace sluice::bench {
namespace {

// What one contender's timed requests took, in seconds, and what it spoke.
struct LatencyRun {
  std::vector<double> seconds;  // every request after the first
  std::string http_version;     // "1.1", "2", "3"
};

double micros(double seconds) { return seconds * 1e6; }

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// One request, its body read whole with BodyReader::next (borrowed in place, then
// discarded) and checked against its Content-Length.
Result<HttpVersion> fetch_whole(Client& client, const Request& request) {
  Result<Response> response = client.send(request).wait();
  if (!response) return std::move(response).error();
  if (response->status < 200 || response->status > 299) {
    return Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                              " for " + request.url + " (expected 2xx)");
  }
  std::uint64_t bytes = 0;
  for (;;) {
    Result<BodyChunk> chunk = response->body.next();
    if (!chunk) return std::move(chunk).error();
    if (chunk->size() == 0) break;
    bytes += chunk->size();
  }
  std::optional<std::uint64_t> length = expected_length(*response);
  if (length && *length != bytes) return length_mismatch(bytes, *length);
  return response->version;
}

// N requests on one Client, one at a time. The library's default connection limit
// stands; one request at a time never needs a second connection, so each reuses the
// first unless the server closed it.
Result<LatencyRun> run_ours(const BenchOptions& options) {
  Result<Client> client = Client::create(client_options(options));
  if (!client) return std::move(client).error();
  const Request request = make_request(options);
  LatencyRun run;
  run.seconds.reserve(options.requests - 1);
  for (std::size_t i = 0; i < options.requests; ++i) {
    const auto start = std::chrono::steady_clock::now();
    Result<HttpVersion> version = fetch_whole(*client, request);
    if (!version) return std::move(version).error();
    const auto end = std::chrono::steady_clock::now();
    if (i == 0) {
      run.http_version = to_string(*version);
    } else {
      run.seconds.push_back(std::chrono::duration<double>(end - start).count());
    }
  }
  return run;
}

void note_run(const char* who, const LatencyRun& run) {
  char line[200];
  std::snprintf(
      line, sizeof line, "%-6s p50 %8.1f us  p99 %8.1f us  mean %8.1f us  max %8.1f us (HTTP/%s)",
      who, micros(percentile(run.seconds, 0.50)), micros(percentile(run.seconds, 0.99)),
      micros(mean(run.seconds)), micros(percentile(run.seconds, 1.0)), run.http_version.c_str());
  print_note(line);
}

// curl fetches the same N URLs in one command; its first transfer (the connect) is
// dropped as ours is.
Result<LatencyRun> run_curl_peer(const BenchOptions& options) {
  Result<CurlSequence> sequence = run_curl_sequence(options, options.requests);
  if (!sequence) return std::move(sequence).error();
  if (sequence->connects != 1) {
    print_note("note: curl connected " + std::to_string(sequence->connects) +
               " times (did the server close a kept-alive connection?)");
  }
  LatencyRun run;
  run.seconds.assign(sequence->seconds.begin() + 1, sequence->seconds.end());
  run.http_version = sequence->http_version;
  return run;
}

void print_ratio(std::string_view name, double ours, double theirs) {
  print_figure(name, theirs > 0 ? ours / theirs : 0);
}

// h2load -c1 -m1 -n N: one connection, one request at a time, as ours. Its
// "time for request" excludes the connection's set-up by definition. Used over h2
// only: nghttp2's own client is the h2 peer, curl the HTTP/1.1 one.
int compare_h2load(const BenchOptions& options, const LatencyRun& ours) {
  BenchOptions h2load_options = options;
  h2load_options.concurrency = 1;
  Result<H2loadRun> h2load = run_h2load(h2load_options, false);
  if (!h2load) {
    print_note("h2load failed: " + h2load.error().message());
    return kExitFailed;
  }
  const H2loadRequestTimes& times = h2load->request_times;
  char line[200];
  std::snprintf(line, sizeof line,
                "h2load min %8.1f us  mean %8.1f us  sd %8.1f us  max %8.1f us (%s)",
                micros(times.min_s), micros(times.mean_s), micros(times.sd_s), micros(times.max_s),
                h2load->protocol.c_str());
  print_note(line);
  print_figure("h2load_latency_mean_us", micros(times.mean_s), 1);
  print_ratio("ratio_mean_vs_h2load", mean(ours.seconds), times.mean_s);
  return kExitOk;
}

void print_ours(const BenchOptions& options, const LatencyRun& run) {
  print_figure("latency_requests", static_cast<double>(options.requests), 0);
  print_figure("latency_p50_us", micros(percentile(run.seconds, 0.50)), 1);
  print_figure("latency_p99_us", micros(percentile(run.seconds, 0.99)), 1);
  print_figure("latency_mean_us", micros(mean(run.seconds)), 1);
  print_text("http_version", run.http_version);
  std::fflush(stdout);
}

// A failed peer fails the bench (exit 1), as in the other subcommands: a figure
// without its comparison must not pass for one with it.
int compare_curl(const BenchOptions& options, const LatencyRun& ours) {
  Result<LatencyRun> curl = run_curl_peer(options);
  if (!curl) {
    print_note("curl failed: " + curl.error().message());
    return kExitFailed;
  }
  note_run("curl", *curl);
  if (curl->http_version != ours.http_version) {
    print_note("note: curl spoke HTTP/" + curl->http_version + ", we spoke HTTP/" +
               ours.http_version);
  }
  print_figure("curl_latency_p50_us", micros(percentile(curl->seconds, 0.50)), 1);
  print_figure("curl_latency_p99_us", micros(percentile(curl->seconds, 0.99)), 1);
  print_ratio("ratio_p50_vs_curl", percentile(ours.seconds, 0.50), percentile(curl->seconds, 0.50));
  return kExitOk;
}

}  // namespace

int run_latency(const BenchOptions& options) {
  Result<LatencyRun> ours = run_ours(options);
  if (!ours) {
    print_note("sluice failed: " + ours.error().describe());
    return kExitFailed;
  }
  note_run("sluice", *ours);
  print_ours(options, *ours);
  if (ours->http_version == "3") {
    // Debian 12's curl and h2load are built without HTTP/3: no peer speaks it here.
    print_note("curl and h2load here have no HTTP/3: reporting sluice figures only");
    return kExitOk;
  }
  if (!on_path("curl")) {
    print_note("curl is not on PATH: no curl figures");
  } else if (int status = compare_curl(options, *ours); status != kExitOk) {
    return status;
  }
  if (ours->http_version != "2") return kExitOk;
  if (!on_path("h2load")) {
    print_note("h2load is not on PATH: no h2load figures");
    return kExitOk;
  }
  return compare_h2load(options, *ours);
}

}  // namespace sluice::bench
