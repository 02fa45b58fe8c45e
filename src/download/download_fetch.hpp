#pragma once
// RangeFetch: fetching one range of a download into the file, attempt after attempt
// (each resuming where the completed writes reached). It borrows the staged body
// bytes (BodyReader::next_for) and writes them to the file from where they lie, on
// its own thread: no copy between the staging buffer and the kernel, and no hand-off
// to another thread per write. It waits in slices so the thread notices a stop and,
// on the calling thread, keeps reporting progress.
//
// Ownership: FetchShared is owned by the download on the calling thread and
// outlives every range thread; after the ranges start only its atomics change.
// A RangeSlot (range_slot.hpp) is shared by the thread that fetches it and the
// supervisor on the calling thread. A RangeFetch is a short-lived helper on its
// range's thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "download/download_ranges.hpp"
#include "download/download_sources.hpp"
#include "download/range_slot.hpp"
#include "sluice/client.hpp"
#include "sluice/download.hpp"
#include "sluice/retry.hpp"

namespace sluice {

class OutputFile;
class RateLimiter;
class Sha256;

/// The most body bytes one step asks of the rate limiter (a step borrows at most one
/// staged block, which is smaller; what it does not use goes back).
inline constexpr std::size_t kLargestStep = 256 * 1024;
/// The longest any download thread blocks before looking around (stop, progress).
inline constexpr std::chrono::milliseconds kDownloadSlice{50};

struct FetchShared {
  FetchShared(Client& client_in, const DownloadOptions& options_in, const OutputFile& file_in)
      : client(client_in), options(options_in), file(file_in) {}
  bool stopping() const {
    return stop.load(std::memory_order_acquire) ||
           (options.cancel && options.cancel->load(std::memory_order_acquire));
  }

  Client& client;
  const DownloadOptions& options;
  const OutputFile& file;
  /// The URL (after redirects) and its mirrors: the GET each range copies.
  DownloadSources* sources = nullptr;
  std::string validator;  ///< If-Range value; empty: none
  std::optional<std::uint64_t> total;
  /// Ranges of the plan, grown by the supervisor as ranges that finish early take
  /// work from the others; for messages.
  std::atomic<unsigned> range_count{1};
  RateLimiter* limiter = nullptr;  ///< null: no limit
  /// Set for one range from byte 0 fetched on one thread: hashed as it arrives.
  Sha256* running_hash = nullptr;
  std::atomic<std::uint64_t> hashed{0};  ///< bytes fed to running_hash
  std::atomic<bool> stop{false};         ///< a range failed: every range stops
  std::atomic<int> retries{0};           ///< retries used, all ranges
  /// When the download began: RetryPolicy::max_time counts from it.
  std::chrono::steady_clock::time_point began{};
};

class RangeFetch {
 public:
  using Between = std::function<void()>;
  /// Fetches from `source` (DownloadSources), the URL or a mirror.
  RangeFetch(FetchShared& shared, RangeSlot& slot, std::size_t source, Between between)
      : shared_(shared), slot_(slot), source_(source), between_(std::move(between)) {}

  /// Fetches the rest of the range, starting on `first` when given (a response
  /// whose body begins at the range's next byte), retrying on its source as the
  /// options allow (a mirror at fault, e.g. one serving another file, at once). A
  /// source the range gives up on is left for the next live one with its own
  /// retries: a mirror is then dropped for every range, the primary only for this one.
  Result<void> run(std::optional<Response> first);
  /// The source the range ended on.
  std::size_t source() const noexcept { return source_; }

 private:
  std::optional<AttemptFailure> attempt(std::optional<Response>& response);
  std::optional<AttemptFailure> request_range(std::optional<Response>& response);
  std::optional<AttemptFailure> check_response(const Response& response);
  /// A mirror's 206 must carry the validator the download began with.
  std::optional<AttemptFailure> check_mirror_validator(const Response& response) const;
  /// Whether `failure` is the source's fault (not the disk's, not a stop).
  static bool blames_source(const AttemptFailure& failure);
  /// Moves the range off source_ after it failed there; false when none is left.
  bool leave_source(const AttemptFailure& failure, int retries);
  /// `last` when no source is left to the range, with why the mirrors are out.
  Error nowhere_left(Error last) const;
  /// Whether a 200 is the file the download began with (its validator, or with none
  /// its size): then the bytes before the range are read past, not refused.
  bool same_file(const Response& response) const;
  /// Reads and drops skip_ bytes: the start of a whole-file answer to a range.
  std::optional<AttemptFailure> skip_written(BodyReader& body);
  std::optional<AttemptFailure> stream(BodyReader& body);
  /// Waits for the rate limiter's grant; the bytes granted, or nothing on stop.
  std::optional<std::size_t> rate_grant(std::size_t want);
  /// Sleeps until `deadline` in slices; false when stopped first.
  bool sleep_until(std::chrono::steady_clock::time_point deadline);
  void look_around() {
    if (between_) between_();
  }
  std::string describe() const;
  AttemptFailure stopped() const;

  FetchShared& shared_;
  RangeSlot& slot_;
  std::size_t source_;
  std::vector<bool> left_;  // sources this range gave up on (empty until the first)
  Between between_;
  std::uint64_t skip_ = 0;  // body bytes before the range's next byte (a 200 to a range)
  // The end the last request asked for: the range's end may have been cut since.
  std::optional<std::uint64_t> asked_end_;
};

}  // namespace sluice
