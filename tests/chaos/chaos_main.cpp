// sluice-chaos: downloads with the `sluice` command and fetches with the library's
// Client, over h1, h1+TLS, h2 and h3, each through its own seeded fault link
// (chaos_link.hpp), against the real servers of tests/support/servers/start.sh.
// Every run must end byte-exact, or fail as its fault says and (a download) resume
// to byte-exact with `-C -`; nothing may outlive its deadline; this process's RSS
// (the library's) must be as flat over the last hundred fetches as the first.
// Exit status: 0 when all that held; 1 otherwise; 2 on a usage or setup error.
// Replay one run: --seed S --only download:I (or fetch:I), as a wrong run prints.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <numeric>
#include <thread>
#include <vector>

#include "chaos/chaos_options.hpp"
#include "chaos/chaos_tally.hpp"
#include "soak/soak_rss.hpp"

namespace sluice::chaos {
namespace {

// Growth from the first hundred fetches to the last hundred that counts as a leak:
// a fresh Client per fetch leaves nothing behind when both figures are flat. RSS
// also holds what glibc's arenas keep after a free (each Client's HTTP thread may
// take an arena of its own): 1,000 fetches of seed 20261207 grew it 25.8 to 31.2 MiB
// while the heap in use stayed at 3.5 MiB. So the heap is held tight and RSS only to
// a bound. The heap is judged by the lowest sample of each hundred: samples are taken
// while other fetches still hold their bodies, and the lowest is the one with the
// fewest in flight, which a leak raises as surely as it raises the rest.
constexpr double kRssGrowthLimitMib = 16;
constexpr double kHeapGrowthLimitMib = 2;
constexpr std::size_t kRssWindow = 100;

// Runs `count` runs on `workers` threads; `after` sees each record as it ends.
void run_all(std::uint64_t count, int workers, const std::function<RunRecord(std::uint64_t)>& run,
             const std::function<void(RunRecord)>& after) {
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) {
    threads.emplace_back([&] {
      for (std::uint64_t index = next++; index < count; index = next++) after(run(index));
    });
  }
  for (std::thread& thread : threads) thread.join();
}

double average(const std::vector<double>& values, std::size_t from, std::size_t to) {
  return std::accumulate(values.begin() + from, values.begin() + to, 0.0) /
         static_cast<double>(to - from);
}

double lowest(const std::vector<double>& values, std::size_t from, std::size_t to) {
  return *std::min_element(values.begin() + from, values.begin() + to);
}

using WindowFigure = double (*)(const std::vector<double>&, std::size_t, std::size_t);

// True when `what` (RSS, or the heap in use), summed up per window by `figure`, was
// flat, or too few fetches ran to judge it.
bool report_growth(const char* what, WindowFigure figure, const std::vector<double>& samples,
                   double limit_mib) {
  if (samples.size() < 2 * kRssWindow) {
    std::cout << "chaos " << what << ": " << samples.size() << " samples, too few to judge (needs "
              << 2 * kRssWindow << ")\n";
    return true;
  }
  const double first = figure(samples, 0, kRssWindow);
  const double last = figure(samples, samples.size() - kRssWindow, samples.size());
  std::cout << "chaos " << what << ": first " << kRssWindow << " fetches " << first << " MiB, last "
            << kRssWindow << " " << last << " MiB (growth limit " << limit_mib << " MiB)\n";
  return last - first <= limit_mib;
}

int run(const ChaosOptions& options) {
  auto env = soak::load_soak_env(options.env_file);
  if (!env) {
    std::cerr << "sluice-chaos: " << env.error().describe() << "\n";
    return 2;
  }
  std::filesystem::create_directories(options.scratch);
  const ChaosSetup setup{std::move(*env), options.sluice, options.scratch, options.seed};
  std::cout << "chaos seed=" << options.seed << " downloads=" << options.downloads
            << " fetches=" << options.fetches << " workers=" << options.workers << std::endl;
  ChaosTally tally;
  std::mutex rss_mu;
  std::vector<double> rss;   // guarded by rss_mu, in the order fetches ended
  std::vector<double> heap;  // guarded by rss_mu, likewise
  auto record = [&](RunRecord done) {
    if (done.wrong() || options.verbose) {
      std::cout << "chaos " << done.kind << " " << done.index << " " << done.protocol << " "
                << done.mode << " " << done.fault << ": " << done.outcome << " " << done.detail
                << std::endl;
    }
    tally.add(std::move(done));
  };
  if (!options.only_kind.empty()) {
    RunRecord one = options.only_kind == "download" ? run_download(setup, options.only_index)
                                                    : run_fetch(setup, options.only_index);
    for (const std::string& line : one.log) std::cout << "  " << line << "\n";
    const bool as_expected = options.expect.empty() || one.outcome == options.expect;
    if (!as_expected) std::cout << "chaos: expected " << options.expect << "\n";
    record(std::move(one));
    tally.print(std::cout, options.seed);
    return tally.wrong() == 0 && as_expected ? 0 : 1;
  }
  std::thread downloads([&] {
    run_all(
        options.downloads, options.workers, [&](std::uint64_t i) { return run_download(setup, i); },
        record);
  });
  run_all(
      options.fetches, options.workers, [&](std::uint64_t i) { return run_fetch(setup, i); },
      [&](RunRecord done) {
        {
          std::lock_guard lock(rss_mu);
          if (auto mib = soak::read_rss_mib()) rss.push_back(*mib);
          if (auto mib = soak::read_heap_in_use_mib()) heap.push_back(*mib);
        }
        record(std::move(done));
      });
  downloads.join();
  tally.print(std::cout, options.seed);
  // Both printed, whichever fails: the heap figure tells arenas from a leak.
  const bool rss_flat = report_growth("rss (average)", average, rss, kRssGrowthLimitMib);
  const bool heap_flat = report_growth("heap in use (lowest)", lowest, heap, kHeapGrowthLimitMib);
  const bool flat = rss_flat && heap_flat;
  const bool passed = flat && tally.wrong() == 0;
  std::cout << "chaos: " << (passed ? "PASS" : "FAIL") << std::endl;
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace sluice::chaos

int main(int argc, char** argv) {
  auto options = sluice::chaos::parse_chaos_options(argc, argv);
  if (!options) {
    std::cerr << "sluice-chaos: " << options.error().describe() << "\n"
              << sluice::chaos::chaos_usage();
    return 2;
  }
  return sluice::chaos::run(*options);
}
