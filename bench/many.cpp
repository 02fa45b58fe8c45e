// `sluice-bench many`: N small requests through one Client with C in flight at once,
// the load h2load generates, and h2load itself on the same URL, interleaved.
// The main thread starts a run and sleeps until it ends; the requests are driven by
// callbacks on the Client's HTTP thread (see ManyDriver for why).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bench/measure.hpp"
#include "bench/peer.hpp"
#include "bench/report.hpp"
#include "bench/subcommands.hpp"
#include "sluice/client.hpp"
#include "sluice/url.hpp"

namespace sluice::bench {
namespace {

// What one run of ours did.
struct ManyRun {
  double wall_s = 0;  ///< first send to the end of the last body
  double cpu_s = 0;   ///< the whole process, Client creation to its destruction
  std::uint64_t bytes = 0;
  HttpVersion version = HttpVersion::http1_1;  ///< of the first response
  /// Open when the last body ended: shows whether h2 multiplexed (1), for a note
  /// only, as a server that closed connections on the way (GOAWAY) leaves fewer.
  std::size_t connections = 0;

  double requests_per_s(std::size_t requests) const {
    return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0;
  }
};

double cpu_ms_per_1000(double cpu_s, std::size_t requests) {
  return cpu_s * 1e6 / static_cast<double>(requests);
}

// Keeps C requests in flight until N have ended, entirely from the Client's
// callbacks: PendingResponse::then() takes each response, BodyReader::on_data()
// counts its bytes, and its on_end starts the next request.
//
// Why callbacks rather than blocking reads: every byte is handed over on the HTTP
// thread that received it and the next request starts from there, so a run costs
// what the library's event loop, protocol and staging path cost, as h2load is one
// event loop. C reader threads blocked in read() would mostly measure C threads
// being woken on two cores (the bench, not the library); a main thread that starts
// each next request would add a cross-thread wake per request. The main thread only
// sleeps on done_ until the last body ends or something fails: no busy wait.
//
// Ownership: shared by the main thread and the callbacks (each holds a shared_ptr).
// Guarded by mu_: all counters, and the use of client_, which the main thread
// destroys only after it has set stopping_ under mu_.
class ManyDriver : public std::enable_shared_from_this<ManyDriver> {
 public:
  ManyDriver(Client& client, const BenchOptions& options)
      : client_(&client), request_(make_request(options)), requests_(options.requests) {}

  /// Main thread: starts the first C requests and waits until all N ended or one
  /// failed. Afterwards no callback touches the Client.
  Result<ManyRun> run(std::size_t concurrency);

 private:
  // Body bytes of one response; HTTP thread only (on_data and on_end run there).
  struct BodyCount {
    std::uint64_t bytes = 0;
    std::optional<std::uint64_t> expected;
  };

  void send_next();
  void on_response(Result<Response> response);
  void on_body_end(const BodyCount& count, Result<void> end);
  void fail(Error error);

  std::mutex mu_;
  std::condition_variable done_;
  Client* client_;         // guarded by mu_; not used once stopping_
  const Request request_;  // copied for every send
  const std::size_t requests_;
  std::size_t sent_ = 0;                              // guarded by mu_
  std::size_t ended_ = 0;                             // guarded by mu_
  std::uint64_t bytes_ = 0;                           // guarded by mu_
  std::optional<HttpVersion> version_;                // guarded by mu_
  std::optional<Error> failure_;                      // guarded by mu_
  std::chrono::steady_clock::time_point first_send_;  // guarded by mu_
  std::chrono::steady_clock::time_point last_end_;    // guarded by mu_
  bool stopping_ = false;                             // guarded by mu_
};

Result<ManyRun> ManyDriver::run(std::size_t concurrency) {
  {
    std::lock_guard lock(mu_);
    first_send_ = std::chrono::steady_clock::now();
  }
  for (std::size_t i = 0; i < concurrency && i < requests_; ++i) send_next();
  std::unique_lock lock(mu_);
  done_.wait(lock, [this] { return ended_ == requests_ || failure_.has_value(); });
  stopping_ = true;
  if (failure_) return *failure_;
  ManyRun run;
  run.wall_s = std::chrono::duration<double>(last_end_ - first_send_).count();
  run.bytes = bytes_;
  run.version = version_.value_or(HttpVersion::http1_1);
  return run;
}

// Any thread. then() is attached outside mu_ (on_response takes it, on the HTTP
// thread, possibly before then() returns).
void ManyDriver::send_next() {
  PendingResponse pending;
  {
    std::lock_guard lock(mu_);
    if (stopping_ || sent_ == requests_) return;
    ++sent_;
    pending = client_->send(request_);
  }
  (void)std::move(pending).then([self = shared_from_this()](Result<Response> response) {
    self->on_response(std::move(response));
  });
}

void ManyDriver::on_response(Result<Response> response) {
  if (!response) return fail(std::move(response).error());
  if (response->status < 200 || response->status > 299) {
    return fail(Error(ErrorCategory::protocol, "HTTP status " + std::to_string(response->status) +
                                                   " for " + request_.url + " (expected 2xx)"));
  }
  {
    std::lock_guard lock(mu_);
    if (!version_) version_ = response->version;
  }
  auto count = std::make_shared<BodyCount>();
  count->expected = expected_length(*response);
  // In callback mode the callbacks own the body: the Response may go at once.
  (void)std::move(response->body)
      .on_data(
          [count](std::span<const std::byte> bytes) {
            count->bytes += bytes.size();
            return true;
          },
          [self = shared_from_this(), count](Result<void> end) {
            self->on_body_end(*count, std::move(end));
          });
}

void ManyDriver::on_body_end(const BodyCount& count, Result<void> end) {
  if (!end) return fail(std::move(end).error());
  if (count.expected && *count.expected != count.bytes) {
    return fail(length_mismatch(count.bytes, *count.expected));
  }
  {
    std::lock_guard lock(mu_);
    ++ended_;
    bytes_ += count.bytes;
    if (ended_ == requests_) {
      last_end_ = std::chrono::steady_clock::now();
      done_.notify_one();
      return;
    }
  }
  send_next();
}

void ManyDriver::fail(Error error) {
  std::lock_guard lock(mu_);
  if (!failure_) failure_ = std::move(error);
  stopping_ = true;
  done_.notify_one();
}

// Whether the requests will most likely run over HTTP/1.1, which takes one
// connection per request in flight: then the Client may open C of them, as h2load
// --h1 -c C does. Over h2 the library's default stands: one connection multiplexes.
// Over https with automatic, ALPN decides; C is allowed in case the server picks
// http/1.1 (the pool opens one connection until it knows, and more only when the
// first turns out HTTP/1.1 or full).
bool may_run_http1(const BenchOptions& options) {
  if (options.version == VersionPolicy::http2_prior_knowledge) return false;
  if (options.version == VersionPolicy::http1_only) return true;
  Result<Url> url = Url::parse(options.url);
  if (url && !url->is_https()) return true;  // no ALPN without TLS: HTTP/1.1
  return options.version == VersionPolicy::automatic;
}

Result<ManyRun> run_ours(const BenchOptions& options) {
  const double cpu_before = process_cpu_seconds();
  Result<ManyRun> run = Error(ErrorCategory::usage, "not run");
  {
    ClientOptions client_opts = client_options(options);
    if (may_run_http1(options)) client_opts.pool.max_connections_per_origin = options.concurrency;
    Result<Client> client = Client::create(client_opts);
    if (!client) return std::move(client).error();
    auto driver = std::make_shared<ManyDriver>(*client, options);
    run = driver->run(options.concurrency);
    if (run) run->connections = client->stats().connections;
  }  // the Client's threads are joined here, so all their CPU time is counted
  if (run) run->cpu_s = process_cpu_seconds() - cpu_before;
  return run;
}

void note_ours(int index, const BenchOptions& options, const ManyRun& run) {
  char line[200];
  std::snprintf(line, sizeof line,
                "run %d sluice %10.0f req/s %8.1f ms CPU/1000 req (HTTP/%s, %zu connection%s "
                "open at the end, %llu body bytes)",
                index, run.requests_per_s(options.requests),
                cpu_ms_per_1000(run.cpu_s, options.requests), to_string(run.version),
                run.connections, run.connections == 1 ? "" : "s",
                static_cast<unsigned long long>(run.bytes));
  print_note(line);
}

void note_h2load(int index, const BenchOptions& options, const H2loadRun& run) {
  char line[200];
  std::snprintf(line, sizeof line, "run %d h2load %10.0f req/s %8.1f ms CPU/1000 req (%s)", index,
                run.requests_per_s, cpu_ms_per_1000(run.cpu_s, options.requests),
                run.protocol.c_str());
  print_note(line);
}

void print_many_figures(const BenchOptions& options, const std::vector<ManyRun>& ours,
                        const std::vector<H2loadRun>& theirs) {
  std::vector<double> rate, cost, their_rate, their_cost;
  for (const ManyRun& run : ours) {
    rate.push_back(run.requests_per_s(options.requests));
    cost.push_back(cpu_ms_per_1000(run.cpu_s, options.requests));
  }
  for (const H2loadRun& run : theirs) {
    their_rate.push_back(run.requests_per_s);
    their_cost.push_back(cpu_ms_per_1000(run.cpu_s, options.requests));
  }
  print_figure("runs", static_cast<double>(ours.size()), 0);
  print_figure("requests", static_cast<double>(options.requests), 0);
  print_figure("concurrency", static_cast<double>(options.concurrency), 0);
  print_text("http_version", to_string(ours.front().version));
  print_figure("requests_per_s", median(rate), 0);
  print_figure("cpu_ms_per_1000_requests", median(cost), 1);
  if (theirs.empty()) return;
  print_text("h2load_protocol", theirs.front().protocol);
  print_figure("h2load_requests_per_s", median(their_rate), 0);
  print_figure("h2load_cpu_ms_per_1000_requests", median(their_cost), 1);
  const double h2load_rate = median(their_rate);
  print_figure("ratio_vs_h2load", h2load_rate > 0 ? median(rate) / h2load_rate : 0);
}

}  // namespace

int run_many(const BenchOptions& options) {
  const bool with_h2load = on_path("h2load");
  if (!with_h2load) print_note("h2load is not on PATH: reporting sluice figures only");
  std::vector<ManyRun> ours;
  std::vector<H2loadRun> theirs;
  // Interleaved (ours, h2load, ours, ...) so that a noisy neighbour slows both.
  for (int index = 1; index <= options.runs; ++index) {
    Result<ManyRun> mine = run_ours(options);
    if (!mine) {
      print_note("sluice run " + std::to_string(index) + " failed: " + mine.error().describe());
      return kExitFailed;
    }
    note_ours(index, options, *mine);
    ours.push_back(*mine);
    if (!with_h2load) continue;
    if (mine->version == HttpVersion::http3) {
      // Debian's h2load (nghttp2 1.52) is built without HTTP/3: no same-protocol peer.
      if (index == 1) print_note("h2load here has no HTTP/3: reporting sluice figures only");
      continue;
    }
    // h2load speaks what we spoke, so the ratio compares one protocol.
    Result<H2loadRun> peer = run_h2load(options, mine->version == HttpVersion::http1_1);
    if (!peer) {
      print_note("h2load run " + std::to_string(index) + " failed: " + peer.error().message());
      return kExitFailed;
    }
    note_h2load(index, options, *peer);
    theirs.push_back(*peer);
  }
  print_many_figures(options, ours, theirs);
  return kExitOk;
}

}  // namespace sluice::bench
