// `sluice-bench throughput`: download one URL several times with sluice and with
// curl, interleaved, and report median speed and CPU cost. Main thread only; the
// Client's threads exist only inside one run.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench/measure.hpp"
#include "bench/peer.hpp"
#include "bench/report.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"

namespace sluice::bench {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
constexpr std::size_t kReadBuffer = 256 * 1024;

// One download by one contender.
struct RunFigures {
  double wall_s = 0;
  double cpu_s = 0;
  std::uint64_t bytes = 0;
  std::string http_version;  ///< "1.1", "2": what the run spoke (curl's %{http_version})

  double mib_per_s() const { return wall_s > 0 ? static_cast<double>(bytes) / kMiB / wall_s : 0; }
  double cpu_s_per_gib() const {
    return bytes > 0 ? cpu_s / (static_cast<double>(bytes) / kGiB) : 0;
  }
};

// Reads the body to its end, borrowing each chunk in place or (copy) into `buffer`,
// discarding; checks Content-Length.
Result<std::uint64_t> drain_body(Response& response, std::span<std::byte> buffer, bool copy) {
  std::uint64_t bytes = 0;
  for (;;) {
    std::size_t n = 0;
    if (copy) {
      Result<std::size_t> got = response.body.read(buffer);
      if (!got) return std::move(got).error();
      n = *got;
    } else {
      Result<BodyChunk> chunk = response.body.next();
      if (!chunk) return std::move(chunk).error();
      n = chunk->size();
    }
    if (n == 0) break;
    bytes += n;
  }
  std::optional<std::uint64_t> length = expected_length(response);
  if (length && *length != bytes) return length_mismatch(bytes, *length);
  return bytes;
}

// One fetch with a fresh Client, as curl starts fresh: connect, TLS, request, body.
// The Client is destroyed (its threads joined) before the clocks stop, so all the
// CPU time its threads used is in the figure.
Result<RunFigures> run_ours(const BenchOptions& options, std::span<std::byte> buffer) {
  double cpu_before = process_cpu_seconds();
  auto start = std::chrono::steady_clock::now();
  std::uint64_t bytes = 0;
  HttpVersion version = HttpVersion::http1_1;
  {
    Result<Client> client = Client::create(client_options(options));
    if (!client) return std::move(client).error();
    Result<Response> response = client->fetch(make_request(options));
    if (!response) return std::move(response).error();
    if (response->status < 200 || response->status > 299) {
      return Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                                " for " + options.url + " (expected 2xx)");
    }
    version = response->version;
    Result<std::uint64_t> drained = drain_body(*response, buffer, options.copy_reads);
    if (!drained) return std::move(drained).error();
    bytes = *drained;
  }
  RunFigures figures;
  figures.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  figures.cpu_s = process_cpu_seconds() - cpu_before;
  figures.bytes = bytes;
  figures.http_version = to_string(version);
  return figures;
}

void note_run(int run, const char* who, const RunFigures& figures) {
  char line[160];
  std::snprintf(line, sizeof line, "run %d %-6s %10.1f MiB/s %8.3f s CPU/GiB (%llu bytes, HTTP/%s)",
                run, who, figures.mib_per_s(), figures.cpu_s_per_gib(),
                static_cast<unsigned long long>(figures.bytes), figures.http_version.c_str());
  print_note(line);
}

// Every run of ours must deliver the same bytes; curl too, unless it counted
// encoded bytes (--compressed), in which case its count is not comparable.
Result<void> check_byte_counts(const BenchOptions& options, const std::vector<RunFigures>& ours,
                               const std::vector<RunFigures>& curl) {
  for (const RunFigures& run : ours) {
    if (run.bytes != ours.front().bytes) {
      return Error(ErrorCategory::protocol, "runs disagree: one read " +
                                                std::to_string(ours.front().bytes) +
                                                " bytes, another " + std::to_string(run.bytes));
    }
  }
  if (options.compressed) return {};
  for (const RunFigures& run : curl) {
    if (run.bytes != ours.front().bytes) {
      return Error(ErrorCategory::protocol, "curl read " + std::to_string(run.bytes) +
                                                " bytes where sluice read " +
                                                std::to_string(ours.front().bytes));
    }
  }
  return {};
}

// curl's figures use our decoded byte count: with --compressed its own count is the
// encoded size, and both delivered the same decoded body.
RunFigures curl_figures(const CurlRun& run, std::uint64_t decoded_bytes) {
  return RunFigures{run.wall_s, run.cpu_s, decoded_bytes, run.http_version};
}

void print_figures(const std::vector<RunFigures>& ours, const std::vector<RunFigures>& curl) {
  std::vector<double> speed, cost, curl_speed, curl_cost;
  for (const RunFigures& run : ours) {
    speed.push_back(run.mib_per_s());
    cost.push_back(run.cpu_s_per_gib());
  }
  for (const RunFigures& run : curl) {
    curl_speed.push_back(run.mib_per_s());
    curl_cost.push_back(run.cpu_s_per_gib());
  }
  print_figure("runs", static_cast<double>(ours.size()), 0);
  print_text("http_version", ours.front().http_version);
  print_figure("bytes_per_run", static_cast<double>(ours.front().bytes), 0);
  print_figure("throughput_mib_s", median(speed), 1);
  print_figure("cpu_s_per_gib", median(cost));
  if (curl.empty()) return;
  print_text("curl_http_version", curl.front().http_version);
  print_figure("curl_throughput_mib_s", median(curl_speed), 1);
  print_figure("curl_cpu_s_per_gib", median(curl_cost));
  double theirs = median(curl_speed);
  print_figure("ratio_vs_curl", theirs > 0 ? median(speed) / theirs : 0);
}

bool is_http3(VersionPolicy version) {
  return version == VersionPolicy::http3 || version == VersionPolicy::http3_only;
}

void print_peer_figures(const std::string& name, const std::vector<RunFigures>& ours,
                        const std::vector<RunFigures>& theirs) {
  if (theirs.empty()) return;
  std::vector<double> speed, their_speed, their_cost;
  for (const RunFigures& run : ours) speed.push_back(run.mib_per_s());
  for (const RunFigures& run : theirs) {
    their_speed.push_back(run.mib_per_s());
    their_cost.push_back(run.cpu_s_per_gib());
  }
  print_figure(name + "_throughput_mib_s", median(their_speed), 1);
  print_figure(name + "_cpu_s_per_gib", median(their_cost));
  const double peer = median(their_speed);
  print_figure("ratio_vs_" + name, peer > 0 ? median(speed) / peer : 0);
}

// One round's h2 comparison run. A server with no TCP endpoint (gtlsserver) fails the
// first one: then a note and nothing (the caller stops the h2 runs); a failure after
// a first success fails the bench.
Result<std::optional<RunFigures>> run_h2_comparison(const BenchOptions& over_h2, int run,
                                                    std::vector<std::byte>& buffer) {
  Result<RunFigures> mine_h2 = run_ours(over_h2, buffer);
  if (!mine_h2 && run == 1) {
    print_note(
        "note: sluice over HTTP/2 failed on this URL (a server without TCP?), so no h2 "
        "figures: " +
        mine_h2.error().describe());
    return std::optional<RunFigures>();
  }
  if (!mine_h2) {
    return Error(mine_h2.error().category(),
                 "sluice h2 run " + std::to_string(run) + " failed: " + mine_h2.error().describe());
  }
  note_run(run, "sl-h2", *mine_h2);
  return std::optional<RunFigures>(std::move(*mine_h2));
}

// One round's gtlsclient run; the first is preceded by a verified download.
Result<RunFigures> run_gtls_round(const BenchOptions& options, int run, std::uint64_t bytes) {
  if (run == 1) {
    if (Result<void> checked = verify_gtlsclient(options, bytes); !checked) {
      return std::move(checked).error();
    }
  }
  Result<PeerRun> theirs = run_gtlsclient(options);
  if (!theirs) {
    return Error(ErrorCategory::protocol,
                 "gtlsclient run " + std::to_string(run) + " failed: " + theirs.error().message());
  }
  RunFigures figures{theirs->wall_s, theirs->cpu_s, bytes, "3"};
  note_run(run, "gtls", figures);
  return figures;
}

// HTTP/3: curl in Debian 12 has none, so the peer is gtlsclient; and sluice over
// HTTP/2 from the same server is interleaved too (h3 beside h2, same run).
int run_throughput_h3(const BenchOptions& options, std::vector<std::byte>& buffer) {
  const bool with_gtls = on_path("gtlsclient");
  if (!with_gtls) print_note("gtlsclient is not on PATH (package ngtcp2-client): no peer figures");
  BenchOptions over_h2 = options;
  over_h2.version = VersionPolicy::http2;
  bool with_h2 = true;
  std::vector<RunFigures> ours, ours_h2, gtls;
  for (int run = 1; run <= options.runs; ++run) {
    Result<RunFigures> mine = run_ours(options, buffer);
    if (!mine) {
      print_note("sluice run " + std::to_string(run) + " failed: " + mine.error().describe());
      return kExitFailed;
    }
    note_run(run, "sluice", *mine);
    ours.push_back(*mine);
    if (with_h2) {
      Result<std::optional<RunFigures>> h2 = run_h2_comparison(over_h2, run, buffer);
      if (!h2) {
        print_note(h2.error().message());
        return kExitFailed;
      }
      with_h2 = h2->has_value();
      if (with_h2) ours_h2.push_back(**h2);
    }
    if (!with_gtls) continue;
    Result<RunFigures> theirs = run_gtls_round(options, run, mine->bytes);
    if (!theirs) {
      print_note(theirs.error().message());
      return kExitFailed;
    }
    gtls.push_back(*theirs);
  }
  if (Result<void> counts = check_byte_counts(options, ours, ours_h2); !counts) {
    print_note(counts.error().message());
    return kExitFailed;
  }
  print_figures(ours, {});
  if (!ours_h2.empty()) {
    print_text("h2_http_version", ours_h2.front().http_version);
    print_peer_figures("h2", ours, ours_h2);
  }
  print_peer_figures("gtlsclient", ours, gtls);
  return kExitOk;
}

}  // namespace

int run_throughput(const BenchOptions& options) {
  std::vector<std::byte> buffer(kReadBuffer);
  if (is_http3(options.version)) return run_throughput_h3(options, buffer);
  bool with_curl = on_path("curl");
  if (!with_curl) print_note("curl is not on PATH: reporting sluice figures only");
  std::vector<RunFigures> ours;
  std::vector<RunFigures> curl;
  // Interleaved (ours, curl, ours, curl, ...) so that a noisy neighbour on a shared
  // machine slows both contenders rather than one.
  for (int run = 1; run <= options.runs; ++run) {
    Result<RunFigures> mine = run_ours(options, buffer);
    if (!mine) {
      print_note("sluice run " + std::to_string(run) + " failed: " + mine.error().describe());
      return kExitFailed;
    }
    note_run(run, "sluice", *mine);
    ours.push_back(*mine);
    if (!with_curl) continue;
    Result<CurlRun> theirs = run_curl(options);
    if (!theirs) {
      print_note("curl run " + std::to_string(run) + " failed: " + theirs.error().message());
      return kExitFailed;
    }
    RunFigures figures = curl_figures(*theirs, options.compressed ? mine->bytes : theirs->bytes);
    note_run(run, "curl", figures);
    curl.push_back(figures);
  }
  if (!curl.empty() && curl.front().http_version != ours.front().http_version) {
    print_note("note: curl spoke HTTP/" + curl.front().http_version + ", sluice HTTP/" +
               ours.front().http_version + ": ratio_vs_curl compares different protocols");
  }
  if (Result<void> counts = check_byte_counts(options, ours, curl); !counts) {
    print_note(counts.error().message());
    return kExitFailed;
  }
  print_figures(ours, curl);
  return kExitOk;
}

}  // namespace sluice::bench
