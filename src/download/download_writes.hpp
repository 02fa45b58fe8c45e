#pragma once
// RangeWrites: the writes of one range on the file pool (FileWriter jobs), at most
// kMaxInFlight at once so a fast network over a slow disk holds a bounded number of
// chunks, and how far the range's completed writes reach without a gap (only that
// is ever recorded as done: the control file must never claim a byte that is not
// on disk).
// Ownership: owned by the thread that fetches the range (submit, drain, buffers);
// completions arrive on pool threads and are only queued (guarded by mu_). The
// destructor waits for every job, which refers to this object.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "download/file_writer.hpp"
#include "sluice/error.hpp"

namespace sluice {

class RangeWrites {
 public:
  static constexpr std::size_t kMaxInFlight = 8;
  /// Called between waits of at most kWaitSlice (the calling thread reports
  /// progress there).
  using Between = std::function<void()>;
  static constexpr std::chrono::milliseconds kWaitSlice{50};

  /// `done` counts the range's bytes from `range_start` on whose writes completed
  /// contiguously; it is advanced here and read by the supervisor on another thread.
  /// Writes continue at range_start + done.
  RangeWrites(FileWriter& writer, std::uint64_t range_start, std::atomic<std::uint64_t>& done);
  RangeWrites(const RangeWrites&) = delete;
  RangeWrites& operator=(const RangeWrites&) = delete;
  ~RangeWrites();

  /// An empty buffer for the next chunk: one a job handed back when there is one.
  std::string take_buffer();
  /// Writes `chunk` at `offset`, right after the previous chunk. Waits while
  /// kMaxInFlight writes are pending. Fails with the first write error seen.
  Result<void> submit(std::string chunk, std::uint64_t offset, const Between& between);
  /// Waits for every submitted write; the first write error, if any.
  Result<void> drain(const Between& between);

 private:
  /// Owner thread: takes queued completions, waiting up to one slice for one when
  /// `wait` is set.
  void collect(bool wait);
  void complete(FileWriter::Completion completion);

  FileWriter& writer_;
  std::atomic<std::uint64_t>& done_;
  const std::uint64_t base_;      // the range's start: done_ counts from there
  std::uint64_t contiguous_end_;  // owner thread: file offset up to which writes completed
  std::map<std::uint64_t, std::uint64_t> finished_;  // owner thread: offset -> end, past a gap
  std::size_t in_flight_ = 0;                        // owner thread
  std::vector<std::string> spare_;                   // owner thread: buffers handed back
  std::optional<Error> error_;                       // owner thread: first write error

  std::mutex mu_;
  std::condition_variable completed_cv_;
  std::deque<FileWriter::Completion> completed_;  // guarded by mu_
};

}  // namespace sluice
