// SharedRateLimit: two downloads on two threads that share one rate read, together,
// no faster than it. The check is made at every progress event of either download
// (an event, not a timed wait): the bytes both have on disk never exceed what the
// rate allowed since the limit was made. A slow machine only makes them fewer, so the
// bound cannot flake; that the rate is not far below the limit is a speed, measured
// by bench, not asserted here.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "integration/download_test_server.hpp"
#include "sluice/download.hpp"
#include "support/make_client.hpp"

namespace sluice {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kBody = 384u << 10;
constexpr std::uint64_t kRate = 1u << 20;  // both bodies together: about 0.75 s

// The latest count of each download, and the worst excess seen over the rate's bound.
struct SharedMeter {
  std::mutex mu;
  std::uint64_t done[2] = {0, 0};  // guarded by mu
  double worst_excess = -1e18;     // guarded by mu: bytes over the bound, at its worst
  int events = 0;                  // guarded by mu
};

TEST(DownloadSharedRate, TwoDownloadsTogetherStayUnderTheSharedRate) {
  const std::string body = test::pseudo_random_bytes(kBody, 5);
  test::RangeFileServer server(body);
  test::ScratchDir dir;
  Client client = test::make_client();
  SharedMeter meter;
  const auto start = std::chrono::steady_clock::now();  // before the bucket exists
  auto shared = std::make_shared<SharedRateLimit>(kRate);
  const auto run = [&](int which) {
    DownloadOptions options;
    options.request = Request::get(server.url("/" + std::to_string(which) + ".bin"));
    options.target.path = dir.file(std::to_string(which) + ".bin");
    options.shared_rate_limit = shared;
    options.progress_interval = 5ms;
    options.on_progress = [&meter, which, start](const DownloadProgress& progress) {
      const std::chrono::duration<double> since = std::chrono::steady_clock::now() - start;
      std::lock_guard lock(meter.mu);
      meter.done[which] = progress.bytes_done;
      const double allowed = static_cast<double>(kRate) * since.count();
      const double excess = static_cast<double>(meter.done[0] + meter.done[1]) - allowed;
      meter.worst_excess = std::max(meter.worst_excess, excess);
      ++meter.events;
    };
    return download(client, std::move(options));
  };
  Result<DownloadResult> second = Error(ErrorCategory::usage, "not run");
  std::thread other([&] { second = run(1); });
  Result<DownloadResult> first = run(0);
  other.join();
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(test::sha256_of_file(first->path), test::sha256_hex(body));
  EXPECT_EQ(test::sha256_of_file(second->path), test::sha256_hex(body));
  std::lock_guard lock(meter.mu);
  EXPECT_GT(meter.events, 2);
  // The bucket grants a tenth of a second's worth at most ahead of its debt: within
  // that, never past the rate.
  EXPECT_LE(meter.worst_excess, static_cast<double>(kRate) / 10)
      << "the two downloads read faster than the rate they share";
}

}  // namespace
}  // namespace sluice
