// `sluice-bench held`: what unread responses cost. N requests are started at once,
// their bodies left unread (or read one chunk), and after the 4 s sweep has had time
// to run, the growth of resident memory is divided by N. With backpressure working
// each response holds about its mark plus one receive, however long the body.
// Main thread only.

#include <chrono>
#include <cstdio>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"

namespace sluice::bench {
namespace {

constexpr std::size_t kReadBuffer = 256 * 1024;
// The library's sweep runs every 4 s and takes receivers paused for at least 1 s, so
// once every response is paused, this long is enough for each to have been swept.
constexpr std::chrono::milliseconds kSettle{5'500};
// How long the responses may take to reach their marks (slow handshakes, refills).
constexpr std::chrono::seconds kPauseDeadline{20};

// Waits until every response is paused at its mark, or the deadline passed.
void wait_until_all_paused(const Client& client, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + kPauseDeadline;
  while (client.stats().paused_receivers < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Starts every request before waiting for any, so all N are in flight together.
Result<std::vector<Response>> start_all(Client& client, const BenchOptions& options) {
  std::vector<PendingResponse> pending;
  pending.reserve(options.count);
  for (std::size_t i = 0; i < options.count; ++i) {
    pending.push_back(client.send(make_request(options)));
  }
  std::vector<Response> responses;
  responses.reserve(options.count);
  for (PendingResponse& waiting : pending) {
    Result<Response> response = waiting.wait();
    if (!response) return std::move(response).error();
    if (response->status < 200 || response->status > 299) {
      return Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                                " for " + options.url + " (expected 2xx)");
    }
    responses.push_back(std::move(*response));
  }
  return responses;
}

Result<void> read_one_chunk_each(std::vector<Response>& responses, std::span<std::byte> buffer) {
  for (Response& response : responses) {
    Result<std::size_t> n = response.body.read(buffer);
    if (!n) return std::move(n).error();
  }
  return {};
}

void print_held_figures(const std::vector<Response>& responses, const MemoryStatus& before,
                        const MemoryStatus& now) {
  double count = static_cast<double>(responses.size());
  double grown = static_cast<double>(now.rss_bytes) - static_cast<double>(before.rss_bytes);
  double buffered = 0;
  for (const Response& response : responses) {
    buffered += static_cast<double>(response.body.buffered());
  }
  print_figure("held_count", count, 0);
  print_figure("held_rss_mib_per_response", grown / (1024.0 * 1024.0) / count);
  print_figure("held_buffered_kib_per_response", buffered / 1024.0 / count, 1);
  print_figure("held_rss_mib_total", grown / (1024.0 * 1024.0));
  print_figure("process_rss_mib", to_mib(now.rss_bytes));
  print_figure("process_hwm_mib", to_mib(now.hwm_bytes));
  std::fflush(stdout);
}

}  // namespace

int run_held(const BenchOptions& options) {
  ClientOptions client_opts = client_options(options);
  client_opts.max_connections_per_origin = options.count;
  // Off means a sweep so rare that it never runs within the benchmark.
  if (options.no_sweep) client_opts.sweep_interval = std::chrono::hours(24);
  Result<Client> client = Client::create(client_opts);
  if (!client) {
    print_note(client.error().describe());
    return kExitFailed;
  }
  // Allocated (and touched) before the baseline so it is not counted as held.
  std::vector<std::byte> buffer(kReadBuffer);
  Result<MemoryStatus> before = read_memory_status();
  if (!before) {
    print_note(before.error().message());
    return kExitFailed;
  }
  Result<std::vector<Response>> responses = start_all(*client, options);
  if (!responses) {
    print_note("request failed: " + responses.error().describe());
    return kExitFailed;
  }
  if (options.reads_one_chunk) {
    if (Result<void> read = read_one_chunk_each(*responses, buffer); !read) {
      print_note("reading a body failed: " + read.error().describe());
      return kExitFailed;
    }
  }
  wait_until_all_paused(*client, options.count);
  const std::size_t paused = client->stats().paused_receivers;
  print_note("holding " + std::to_string(options.count) + " responses (" + std::to_string(paused) +
             " paused at their marks) for 5.5 s more");
  std::this_thread::sleep_for(kSettle);
  Result<MemoryStatus> now = read_memory_status();
  if (!now) {
    print_note(now.error().message());
    return kExitFailed;
  }
  print_held_figures(*responses, *before, *now);
  const ClientStats stats = client->stats();
  print_figure("sweep_releases", static_cast<double>(stats.sweep_releases), 0);
  print_figure("sweep_kib_released", static_cast<double>(stats.sweep_bytes_released) / 1024.0, 1);
  return kExitOk;  // responses, then the Client, are dropped on the way out
}

}  // namespace sluice::bench
