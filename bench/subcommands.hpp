#pragma once
// The benchmarks main() dispatches to. Each runs on the main thread, prints its
// figures (see report.hpp) and returns the process exit status: 0 done, 1 a
// download, upload or write failed or its runs disagreed.

#include "bench/bench_options.hpp"

namespace sluice::bench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

/// Median download speed and CPU cost, ours and curl's (throughput.cpp).
int run_throughput(const BenchOptions& options);
/// Resident memory per response held unread (held.cpp).
int run_held(const BenchOptions& options);
/// Requests per second with many in flight on one Client, ours and h2load's (many.cpp).
int run_many(const BenchOptions& options);
/// Peak memory of a burst of owned uploads to a slow server, release rule on and off
/// (upload_burst.cpp).
int run_upload_burst(const BenchOptions& options);
/// Peak memory and time of a large write then one byte, BodyWriter and std::vector
/// (append_growth.cpp).
int run_append_growth(const BenchOptions& options);
/// Median download speed, peak memory and CPU of sluice::download() into a file, and of
/// curl, wget and aria2c on the same URL (download.cpp).
int run_download(const BenchOptions& options);
/// Keeps the delay links of --rtt up, prints the URL through them, and waits for
/// SIGINT or SIGTERM: for running any client by hand through the same path
/// (link.cpp).
int run_link(const BenchOptions& options);
/// A segmented download's handshakes with and without TLS session resumption: time
/// and CPU until every range's response began, and aria2c's download (resumption.cpp).
int run_resumption(const BenchOptions& options);
/// Per-request time of small sequential GETs on one kept-alive connection, ours,
/// curl's and h2load's (latency.cpp).
int run_latency(const BenchOptions& options);

}  // namespace sluice::bench
