// sluice-soak: minutes of mixed HTTP/1.1, HTTP/2 and HTTP/3 traffic through a few
// shared Clients and many short-lived ones, against the real test servers (nginx,
// nghttpd, caddy, gtlsserver; start them with tests/support/servers/start.sh, or run
// tests/soak/run.sh) and the in-process fault servers (resets, truncations, stalls,
// RST_STREAM, GOAWAY, a lossy and a dead UDP path). Readers read fully, slowly, by
// callbacks, hold bodies unread, or cancel at random points. Every outcome must be
// the expected one (soak_scenarios.hpp says which), and resident memory must stay
// flat once warm (soak_rss.hpp says how that is judged).
//
// Exit status: 0 when every outcome was expected and RSS stayed flat; 1 otherwise;
// 2 on a usage or setup error; 3 when workers did not finish in time (stuck).
//
// Under AddressSanitizer: LeakSanitizer checks the heap at exit, so main() joins every
// thread and destroys every Client and server before it returns; a leak then makes
// the exit status non-zero. ASan also keeps freed memory in a quarantine (256 MiB by
// default) to catch use after free, and RSS climbs until the quarantine is full:
// measured that way, a flat heap looks like a leak for the first hundreds of MiB. So
// this program defaults ASan to a 16 MiB quarantine (quarantine_size_mb, which
// Debian's gcc 12 libasan honours; ASAN_OPTIONS still overrides), which fills within
// the warm-up third of the run and leaves the later RSS samples to the live heap.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "soak/soak_options.hpp"
#include "soak/soak_rss.hpp"
#include "soak/soak_worker.hpp"

#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16:detect_leaks=1"; }
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
#endif

namespace sluice::soak {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr double kStuckAfterSeconds = 300;  // longer than any scenario's total timeout
// H2TestServer keeps every connection (its thread, its nghttp2 session and the bodies
// it sent) until destroyed: replaced often, that memory stays small next to the
// client's, instead of a 60 s sawtooth of tens of MiB in the RSS samples.
constexpr auto kH2RotateEvery = 10s;

std::string fixed(double value, int decimals = 1) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Everything a run builds, in the order it is torn down (reverse of declaration).
struct Run {
  SoakOptions options;
  SoakEnv env;
  std::unique_ptr<FaultServers> faults;
  std::vector<Client> clients;
  Tally tally;
  SoakShared shared;
  std::vector<RssSample> samples;
};

// Three long-lived Clients that differ where it matters for memory and pooling.
Result<std::vector<Client>> make_shared_clients(const std::string& ca_file) {
  std::vector<ClientOptions> variants(3);
  variants[1].memory.staged_bytes_budget = 2u << 20;
  variants[1].memory.sweep_interval = 500ms;
  variants[2].memory.release_threshold = 0;
  variants[2].pool.max_connections_per_origin = 2;
  variants[2].pool.idle_timeout = 2s;
  std::vector<Client> clients;
  for (ClientOptions& options : variants) {
    options.tls.ca_file = ca_file;
    auto client = Client::create(std::move(options));
    if (!client) return std::move(client).error();
    clients.push_back(std::move(*client));
  }
  return clients;
}

ClientStats total_stats(const std::vector<Client>& clients) {
  ClientStats sum;
  for (const Client& client : clients) {
    const ClientStats one = client.stats();
    sum.in_flight += one.in_flight;
    sum.paused_receivers += one.paused_receivers;
    sum.staged_bytes += one.staged_bytes;
    sum.retained_scratch_bytes += one.retained_scratch_bytes;
    sum.request_body_bytes_held += one.request_body_bytes_held;
    sum.connections += one.connections;
    sum.sweep_releases += one.sweep_releases;
    sum.sweep_bytes_released += one.sweep_bytes_released;
    sum.budget_waits += one.budget_waits;
  }
  return sum;
}

void print_progress(Run& run, double seconds, double rss) {
  const Totals t = run.tally.totals();
  const ClientStats stats = total_stats(run.clients);
  std::cout << "soak t=" << fixed(seconds, 0) << "s requests=" << t.requests << " ok=" << t.ok
            << " errors_expected=" << t.expected_errors << " cancelled=" << t.cancelled
            << " unexpected=" << t.unexpected << " rss_mib=" << fixed(rss)
            << " in_flight=" << stats.in_flight << " connections=" << stats.connections
            << std::endl;
}

// Workers stuck in one scenario far beyond every timeout are reported once each.
void check_stuck(Run& run, const std::vector<std::unique_ptr<Worker>>& workers,
                 std::vector<bool>& reported) {
  for (const auto& worker : workers) {
    const Worker::Busy busy = worker->busy();
    if (busy.scenario == nullptr || busy.seconds < kStuckAfterSeconds) {
      reported[worker->index()] = false;
    } else if (!reported[worker->index()]) {
      reported[worker->index()] = true;
      run.tally.record_problem("worker " + std::to_string(worker->index()) + " stuck in " +
                               busy.scenario + " for " + fixed(busy.seconds, 0) + " s");
    }
  }
}

// The main thread's part while the workers run: samples, rotation, stuck checks.
void supervise(Run& run, const std::vector<std::unique_ptr<Worker>>& workers) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::seconds(run.options.seconds);
  Clock::time_point next_sample = start + std::chrono::seconds(run.options.sample_seconds);
  Clock::time_point next_rotation = start + kH2RotateEvery;
  std::vector<bool> reported(workers.size(), false);
  while (Clock::now() < end) {
    std::this_thread::sleep_until(std::min({end, next_sample, next_rotation}));
    const Clock::time_point now = Clock::now();
    if (now >= next_rotation) {
      run.faults->rotate_h2();
      next_rotation += kH2RotateEvery;
    }
    if (now >= next_sample) {
      const double seconds = std::chrono::duration<double>(now - start).count();
      const double rss = read_rss_mib().value_or(0);
      run.samples.push_back({seconds, rss});
      print_progress(run, seconds, rss);
      check_stuck(run, workers, reported);
      next_sample += std::chrono::seconds(run.options.sample_seconds);
    }
  }
}

// Gives up on the process when the workers do not come back: a hang is a failure
// that must end the run rather than stall CI.
class JoinDeadline {
 public:
  explicit JoinDeadline(std::chrono::seconds limit)
      : thread_([this, limit] {
          std::unique_lock lock(mu_);
          if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::cerr << "soak: workers did not finish within " << limit.count()
                      << " s of the end; giving up (exit 3)" << std::endl;
            std::_Exit(3);
          }
        }) {}
  ~JoinDeadline() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

void run_workers(Run& run) {
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
  for (int i = 0; i < run.options.workers; ++i) {
    workers.push_back(std::make_unique<Worker>(run.shared, i, run.options.seed + i));
    threads.emplace_back([&stop, worker = workers.back().get()] { worker->run(stop); });
  }
  supervise(run, workers);
  stop = true;
  std::cout << "soak: traffic time over; waiting for the requests in flight" << std::endl;
  JoinDeadline deadline(std::chrono::seconds(static_cast<int>(kStuckAfterSeconds)));
  for (std::thread& thread : threads) thread.join();
}

// With every worker gone, the shared Clients must hold nothing for anyone: no
// request in flight, no staged byte, no request body copy.
void check_clients_idle(Run& run) {
  ClientStats stats = total_stats(run.clients);
  for (int i = 0; i < 50 && stats.in_flight != 0; ++i) {
    std::this_thread::sleep_for(100ms);
    stats = total_stats(run.clients);
  }
  std::cout << "soak_client_stats in_flight=" << stats.in_flight
            << " paused_receivers=" << stats.paused_receivers
            << " staged_bytes=" << stats.staged_bytes
            << " retained_scratch_bytes=" << stats.retained_scratch_bytes
            << " request_body_bytes_held=" << stats.request_body_bytes_held
            << " connections=" << stats.connections << " sweep_releases=" << stats.sweep_releases
            << " sweep_bytes_released=" << stats.sweep_bytes_released
            << " budget_waits=" << stats.budget_waits << std::endl;
  if (stats.in_flight != 0 || stats.staged_bytes != 0 || stats.request_body_bytes_held != 0) {
    run.tally.record_problem("shared Clients still hold requests or bytes with no worker left");
  }
}

// The test servers report their own failures through GoogleTest (ADD_FAILURE); outside
// a test they land in the ad hoc result.
void check_server_failures(Run& run) {
  const testing::TestResult& result = testing::UnitTest::GetInstance()->ad_hoc_test_result();
  for (int i = 0; i < result.total_part_count(); ++i) {
    if (result.GetTestPartResult(i).failed()) {
      run.tally.record_problem(std::string("test server: ") +
                               result.GetTestPartResult(i).message());
    }
  }
}

int report(Run& run) {
  const Totals t = run.tally.totals();
  const RssJudgement rss = judge_rss(run.samples);
  run.tally.print_by_kind(std::cout);
  std::cout << "soak_requests " << t.requests << "\nsoak_ok " << t.ok << "\nsoak_errors_expected "
            << t.expected_errors << "\nsoak_cancelled " << t.cancelled << "\nsoak_unexpected "
            << t.unexpected << "\nsoak_rss_first_mib " << fixed(rss.first_mib)
            << "\nsoak_rss_last_mib " << fixed(rss.last_mib) << "\nsoak_rss_peak_mib "
            << fixed(rss.peak_mib) << "\nsoak_rss_middle_third_mib " << fixed(rss.middle_third_mib)
            << "\nsoak_rss_last_third_mib " << fixed(rss.last_third_mib) << "\nsoak_rss_growth_mib "
            << fixed(rss.growth_mib) << "\nsoak_rss_slope_mib_per_min "
            << fixed(rss.slope_mib_per_min, 2) << std::endl;
  const bool judged = rss.judged && run.options.seconds >= run.options.min_seconds_for_rss_verdict;
  const bool rss_ok = !judged || rss.growth_mib <= run.options.max_growth_mib;
  std::cout << "soak_rss_verdict "
            << (!judged ? "not judged (run shorter than " +
                              std::to_string(run.options.min_seconds_for_rss_verdict) + " s)"
                : rss_ok ? "steady"
                         : "GROWING")
            << std::endl;
  const bool pass = t.unexpected == 0 && rss_ok;
  std::cout << "soak " << (pass ? "PASS" : "FAIL") << std::endl;
  return pass ? 0 : 1;
}

int soak_main(int argc, char** argv) {
  auto options = parse_soak_options(argc, argv);
  if (!options) {
    std::cerr << options.error().message() << std::endl;
    return 2;
  }
  if (options->help) {
    std::cout << soak_usage();
    return 0;
  }
  auto env = load_soak_env(options->env_file);
  if (!env) {
    std::cerr << env.error().message() << std::endl;
    return 2;
  }
  Run run;
  run.options = *options;
  run.env = std::move(*env);
  auto clients = make_shared_clients(run.env.ca_file);
  if (!clients) {
    std::cerr << "soak: " << clients.error().describe() << std::endl;
    return 2;
  }
  run.clients = std::move(*clients);
  run.faults = std::make_unique<FaultServers>(run.env);
  run.shared = SoakShared{&run.env, run.faults.get(), &run.clients, &run.tally, ClientOptions{}};
  run.shared.fresh_options.tls.ca_file = run.env.ca_file;
  std::cout << "soak: " << run.options.workers << " workers for " << run.options.seconds
            << " s, seed " << run.options.seed << ", RSS every " << run.options.sample_seconds
            << " s" << std::endl;
  run_workers(run);
  check_clients_idle(run);
  run.clients.clear();
  run.faults.reset();
  check_server_failures(run);
  return report(run);
}

}  // namespace
}  // namespace sluice::soak

int main(int argc, char** argv) { return sluice::soak::soak_main(argc, argv); }
