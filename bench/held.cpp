// `sluice-bench held`: what unread responses cost. N requests are started at once,
// their bodies left unread (or read one chunk, or BYTES at full speed), and after
// the 4 s sweep has had time to run, the growth of resident memory is divided by N.
// A warm-up request on a Client of its own pays the process's one-time costs first.
// With backpressure working each response holds about its allowance (64 KiB unread),
// however long the body; over h2 and h3 each also keeps the receive window its
// stream had when reading stopped. Main thread only, except the --read-first
// callbacks (the Client's HTTP thread; they share only ReadFirst).

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench/peer.hpp"
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
// How long the responses may take to reach their allowances (slow handshakes, refills).
constexpr std::chrono::seconds kPauseDeadline{20};
// How long --read-first may take for all N (small windows over a long RTT are slow).
constexpr std::chrono::seconds kReadFirstDeadline{300};
constexpr double kMiB = 1024.0 * 1024.0;

// --read-first: the responses still reading their first bytes. Shared by the main
// thread (waits) and the body callbacks on the HTTP thread (count down); guarded by mu.
struct ReadFirst {
  std::mutex mu;
  std::condition_variable done_cv;
  std::size_t reading = 0;  // responses that have not yet read their bytes or ended
  std::string failure;      // the first body that failed while being read

  void finish(const Result<void>* failed) {
    std::lock_guard lock(mu);
    if (failed != nullptr && !*failed && failure.empty()) failure = failed->error().describe();
    if (reading > 0 && --reading == 0) done_cv.notify_all();
  }
};

// Waits until every response is paused at its allowance, or the deadline passed.
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

// Reads each body on the HTTP thread as its bytes arrive (callback mode, so all N
// stream at once at full speed) until `bytes` were taken, then pauses it for good:
// from then on it is held like an unread one.
void start_reading_first(std::vector<Response>& responses, std::size_t bytes,
                         const std::shared_ptr<ReadFirst>& state) {
  state->reading = responses.size();
  for (Response& response : responses) {
    auto taken = std::make_shared<std::size_t>(0);
    auto counted = std::make_shared<std::atomic<bool>>(false);  // finish() once per response
    auto finish_once = [state, counted](const Result<void>* failed) {
      if (!counted->exchange(true)) state->finish(failed);
    };
    (void)std::move(response.body)
        .on_data(
            [bytes, taken, finish_once](std::span<const std::byte> chunk) {
              *taken += chunk.size();
              if (*taken < bytes) return true;
              finish_once(nullptr);
              return false;  // held from here on: the reader never resumes
            },
            [finish_once](Result<void> end) { finish_once(&end); });
  }
}

// Waits until every response read its bytes (or ended); false on the deadline.
bool wait_read_first(ReadFirst& state) {
  std::unique_lock lock(state.mu);
  return state.done_cv.wait_for(lock, kReadFirstDeadline, [&] { return state.reading == 0; });
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

// Reads what the options ask for before holding: nothing, one chunk of each body,
// or --read-first bytes of each. Returns how long the --read-first reading took (0
// otherwise); fails when a body failed.
Result<double> read_before_holding(std::vector<Response>& responses, const BenchOptions& options,
                                   std::span<std::byte> buffer) {
  if (options.reads_one_chunk) {
    Result<void> read = read_one_chunk_each(responses, buffer);
    if (!read) return std::move(read).error();
    return 0.0;
  }
  if (options.read_first == 0) return 0.0;
  const auto start = std::chrono::steady_clock::now();
  auto state = std::make_shared<ReadFirst>();
  start_reading_first(responses, options.read_first, state);
  const bool all_read = wait_read_first(*state);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard lock(state->mu);
  if (!state->failure.empty()) return Error(ErrorCategory::protocol, state->failure);
  if (!all_read) {
    print_note("note: " + std::to_string(state->reading) + " responses had not read " +
               std::to_string(options.read_first) + " bytes after " +
               std::to_string(kReadFirstDeadline.count()) + " s; holding them as they are");
  }
  return seconds;
}

// Waits until every response is paused at its allowance, then long enough for the sweep.
void hold(const Client& client, std::size_t count) {
  wait_until_all_paused(client, count);
  const std::size_t paused = client.stats().paused_receivers;
  print_note("holding " + std::to_string(count) + " responses (" + std::to_string(paused) +
             " paused at their allowances) for 5.5 s more");
  std::this_thread::sleep_for(kSettle);
}

// The sweep's figures and the receive windows the held streams keep (h2, h3; 0 over
// HTTP/1.1, where the kernel's socket buffer is the window).
void print_client_figures(const ClientStats& stats, const BenchOptions& options,
                          double read_first_s) {
  const double count = static_cast<double>(options.count);
  print_figure("sweep_releases", static_cast<double>(stats.sweep_releases), 0);
  print_figure("sweep_kib_released", static_cast<double>(stats.sweep_bytes_released) / 1024.0, 1);
  const double allowance_mib = static_cast<double>(stats.allowance_bytes) / kMiB;
  print_figure("allowance_mib_total", allowance_mib);
  print_figure("allowance_mib_per_response", allowance_mib / count);
  const Request request = make_request(options);
  print_figure("initial_allowance_kib",
               static_cast<double>(request.allowance.initial_bytes) / 1024.0, 0);
  print_figure("max_allowance_mib", static_cast<double>(request.allowance.max_bytes) / kMiB);
  if (options.read_first > 0) {
    print_figure("read_first_mib", static_cast<double>(options.read_first) / kMiB);
    print_figure("read_first_s", read_first_s);
  }
  std::fflush(stdout);
}

// One request on a Client of its own, dropped after its first chunk, before the
// baseline: the process's one-time costs (the TLS library's code pages and the
// caches it fills on its first handshake, the allocator's arena for an HTTP thread)
// then land before it, so the held figure is what each response adds. Returns the
// growth of VmRSS over the warm-up, or an error when the request failed.
Result<double> warm_up(const ClientOptions& client_opts, const BenchOptions& options,
                       std::span<std::byte> buffer) {
  Result<MemoryStatus> start = read_memory_status();
  if (!start) return std::move(start).error();
  {
    Result<Client> client = Client::create(client_opts);
    if (!client) return std::move(client).error();
    Result<Response> response = client->send(make_request(options)).wait();
    if (!response) return std::move(response).error();
    if (response->status < 200 || response->status > 299) {  // as start_all requires
      return Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                                " for " + options.url + " (expected 2xx)");
    }
    Result<std::size_t> n = response->body.read(buffer);
    if (!n) return std::move(n).error();
  }
  // What the warm-up freed goes back to the kernel, so the held responses cannot
  // reuse resident pages the baseline already counted.
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  Result<MemoryStatus> end = read_memory_status();
  if (!end) return std::move(end).error();
  return to_mib(end->rss_bytes) - to_mib(start->rss_bytes);
}

// What measure_held found: its exit status and, when it is 0, our figure.
struct HeldOutcome {
  int status = kExitFailed;
  double rss_mib_per_response = 0;
};

// Our measurement, its figures printed. The Client and the responses are gone when it
// returns, so a peer run after it does not share the machine with them.
HeldOutcome measure_held(const BenchOptions& options) {
  ClientOptions client_opts = client_options(options);
  client_opts.pool.max_connections_per_origin = options.count;
  // Off means a sweep so rare that it never runs within the benchmark.
  if (options.no_sweep) client_opts.memory.sweep_interval = std::chrono::hours(24);
  // Allocated (and touched) before the baseline so it is not counted as held.
  std::vector<std::byte> buffer(kReadBuffer);
  Result<double> warm_up_mib = warm_up(client_opts, options, buffer);
  if (!warm_up_mib) {
    print_note("the warm-up request failed: " + warm_up_mib.error().describe());
    return {};
  }
  Result<Client> client = Client::create(client_opts);
  if (!client) {
    print_note(client.error().describe());
    return {};
  }
  Result<MemoryStatus> before = read_memory_status();
  if (!before) {
    print_note(before.error().message());
    return {};
  }
  Result<std::vector<Response>> responses = start_all(*client, options);
  if (!responses) {
    print_note("request failed: " + responses.error().describe());
    return {};
  }
  Result<double> read_first_s = read_before_holding(*responses, options, buffer);
  if (!read_first_s) {
    print_note("reading a body failed: " + read_first_s.error().describe());
    return {};
  }
  hold(*client, options.count);
  Result<MemoryStatus> now = read_memory_status();
  if (!now) {
    print_note(now.error().message());
    return {};
  }
  print_held_figures(*responses, *before, *now);
  print_figure("warm_up_rss_mib", *warm_up_mib);
  print_client_figures(client->stats(), options, *read_first_s);
  const double grown = static_cast<double>(now->rss_bytes) - static_cast<double>(before->rss_bytes);
  return {kExitOk, grown / kMiB / static_cast<double>(options.count)};
}

// Node's fetch on the same URL, when it speaks what we measured (HTTP/1.1) and the
// figure means the same (nothing read: the script reads no body).
int compare_with_node(const BenchOptions& options, double ours_mib_per_response) {
  if (!node_held_applies(options) || options.reads_one_chunk || options.read_first > 0)
    return kExitOk;
  if (!on_path("node")) {
    print_note("node is not on PATH: no Node figures");
    return kExitOk;
  }
  print_note("running Node's fetch on the same URL (bench/held_node_peer.mjs)");
  Result<NodeHeldRun> node = run_node_held(options);
  if (!node) {
    print_note(node.error().message());
    return kExitFailed;
  }
  print_figure("node_held_rss_mib_per_response", node->rss_mib_per_response);
  print_figure("node_held_js_mib_per_response", node->js_mib_per_response);
  print_figure("ratio_vs_node", node->rss_mib_per_response > 0
                                    ? ours_mib_per_response / node->rss_mib_per_response
                                    : 0);
  return kExitOk;
}

}  // namespace

int run_held(const BenchOptions& options) {
  const HeldOutcome ours = measure_held(options);
  if (ours.status != kExitOk) return ours.status;
  return compare_with_node(options, ours.rss_mib_per_response);
}

}  // namespace sluice::bench
