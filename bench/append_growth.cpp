// `sluice-bench append-growth`: the append-growth rule. A large write followed by one
// byte must not double the queue's block and copy the payload. Measured on the
// public BodyWriter (never attached to a request, so nothing drains its queue) and,
// as the naive peer, on a std::vector<std::byte>, which libstdc++ grows to exactly
// the size of one large insert and then doubles on the next byte. Each runs in a
// child process of its own so that the two peaks are comparable.
// Main thread only.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/child_peak.hpp"
#include "bench/report.hpp"
#include "bench/rss.hpp"
#include "bench/subcommands.hpp"
#include "sluice/body.hpp"

namespace sluice::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The resident size after resetting the peak to it: what the queue's growth is
// measured from. The payload is already resident, so it is not counted.
Result<std::uint64_t> baseline() {
  reset_peak_rss();
  Result<MemoryStatus> now = read_memory_status();
  if (!now) return std::move(now).error();
  return now->rss_bytes;
}

// What a variant reports: its queue's peak growth over the baseline, and the time
// each of the two writes took.
Result<ChildFigures> figures(std::uint64_t base, double first_ms, double second_ms) {
  Result<MemoryStatus> now = read_memory_status();
  if (!now) return std::move(now).error();
  double growth = now->hwm_bytes > base ? static_cast<double>(now->hwm_bytes - base) : 0;
  return ChildFigures{
      {"peak_growth_bytes", growth}, {"first_write_ms", first_ms}, {"second_write_ms", second_ms}};
}

Result<ChildFigures> append_to_body_writer(std::size_t size) {
  const std::vector<std::byte> payload(size, std::byte{'a'});  // resident before the baseline
  // A mark above 2 x size: neither write may wait, and a doubled block would fit.
  std::shared_ptr<BodyWriter> writer = BodyWriter::create(2 * size + 1024 * 1024);
  Result<std::uint64_t> base = baseline();
  if (!base) return std::move(base).error();
  Clock::time_point start = Clock::now();
  if (Result<void> written = writer->write(payload); !written) return std::move(written).error();
  double first_ms = ms_since(start);
  start = Clock::now();
  if (Result<void> written = writer->write("x"); !written) return std::move(written).error();
  double second_ms = ms_since(start);
  return figures(*base, first_ms, second_ms);
}

Result<ChildFigures> append_to_vector(std::size_t size) {
  const std::vector<std::byte> payload(size, std::byte{'a'});
  std::vector<std::byte> queue;
  Result<std::uint64_t> base = baseline();
  if (!base) return std::move(base).error();
  Clock::time_point start = Clock::now();
  queue.insert(queue.end(), payload.begin(), payload.end());
  double first_ms = ms_since(start);
  start = Clock::now();
  queue.push_back(std::byte{'x'});
  double second_ms = ms_since(start);
  Result<ChildFigures> measured = figures(*base, first_ms, second_ms);
  // Reported, so the queue is observed and cannot be optimised away.
  if (measured) measured->emplace_back("capacity_bytes", static_cast<double>(queue.capacity()));
  return measured;
}

Result<ChildReport> run_variant(const std::function<Result<ChildFigures>()>& variant,
                                const char* label) {
  Result<ChildReport> report = run_in_child(variant);
  if (report) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "%s: peak growth %.1f MiB, first write %.2f ms, second write %.3f ms", label,
                  to_mib(static_cast<std::uint64_t>(report->figure("peak_growth_bytes"))),
                  report->figure("first_write_ms"), report->figure("second_write_ms"));
    print_note(note);
  }
  return report;
}

}  // namespace

int run_append_growth(const BenchOptions& options) {
  const std::size_t size = options.size;
  Result<ChildReport> ours =
      run_variant([size] { return append_to_body_writer(size); }, "BodyWriter");
  if (!ours) {
    print_note("append growth (BodyWriter) failed: " + ours.error().message());
    return kExitFailed;
  }
  Result<ChildReport> naive = run_variant([size] { return append_to_vector(size); }, "std::vector");
  if (!naive) {
    print_note("append growth (std::vector) failed: " + naive.error().message());
    return kExitFailed;
  }
  double payload = static_cast<double>(size);
  print_figure("append_size_mib", to_mib(size));
  print_figure("append_peak_ratio", ours->figure("peak_growth_bytes") / payload);
  print_figure("first_write_ms", ours->figure("first_write_ms"));
  print_figure("second_write_ms", ours->figure("second_write_ms"));
  print_figure("naive_append_peak_ratio", naive->figure("peak_growth_bytes") / payload);
  print_figure("naive_first_write_ms", naive->figure("first_write_ms"));
  print_figure("naive_second_write_ms", naive->figure("second_write_ms"));
  print_figure("naive_capacity_mib",
               to_mib(static_cast<std::uint64_t>(naive->figure("capacity_bytes"))));
  return kExitOk;
}

}  // namespace sluice::bench
